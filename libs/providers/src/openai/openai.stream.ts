/**
 * OpenAI-compatible SSE chunks → canonical chunks. Chunks pass through with the reasoning field
 * normalised (`reasoning_content` / `reasoning` → `reasoning_content`), vendor extras dropped, and
 * usage always delivered on its own `choices: []` chunk (DeepSeek and OpenRouter attach usage to a
 * chunk that also has choices: that chunk is split in two). `data: [DONE]` ends the stream.
 */
import { CanonicalChatChunk, CanonicalChunkChoice, ProviderError, SseEvent, ToolCallDelta } from '../types';
import { asArray, asNumber, asRecord, asString, isRecord, parseJson } from '../http/wire-json';
import { embeddedOpenAiError, mapOpenAiFinishReason, mapOpenAiUsage, readOpenAiReasoning } from './openai.response';

export interface OpenAiStreamState {
  readonly requestedModel: string;
  readonly created: number;
  /** `[DONE]` was received */
  done: boolean;
  /** some choice carried a finish_reason */
  finished: boolean;
}

export function createOpenAiStreamState(requestedModel: string, nowMs: number): OpenAiStreamState {
  return { requestedModel, created: Math.floor(nowMs / 1000), done: false, finished: false };
}

function mapToolCallDeltas(raw: unknown): ToolCallDelta[] {
  const out: ToolCallDelta[] = [];
  for (const [position, item] of asArray(raw).entries()) {
    const call = asRecord(item);
    if (!call) continue;
    const delta: ToolCallDelta = { index: asNumber(call.index) ?? position };
    const id = asString(call.id);
    if (id !== undefined) delta.id = id;
    if (call.type === 'function') delta.type = 'function';
    const fn = asRecord(call.function);
    if (fn) {
      const name = asString(fn.name);
      const args = asString(fn.arguments);
      delta.function = {};
      if (name !== undefined) delta.function.name = name;
      if (args !== undefined) delta.function.arguments = args;
    }
    out.push(delta);
  }
  return out;
}

function mapChunkChoice(raw: unknown, position: number): CanonicalChunkChoice | undefined {
  const choice = asRecord(raw);
  if (!choice) return undefined;
  const delta = asRecord(choice.delta) ?? {};
  const out: CanonicalChunkChoice = {
    index: asNumber(choice.index) ?? position,
    delta: {},
    finish_reason: mapOpenAiFinishReason(choice.finish_reason),
  };
  if (delta.role === 'assistant') out.delta.role = 'assistant';
  const content = asString(delta.content);
  if (content !== undefined) out.delta.content = content;
  const reasoning = readOpenAiReasoning(delta);
  if (reasoning !== undefined) out.delta.reasoning_content = reasoning;
  const toolCalls = mapToolCallDeltas(delta.tool_calls);
  if (toolCalls.length > 0) out.delta.tool_calls = toolCalls;
  if (asRecord(choice.logprobs)) out.logprobs = choice.logprobs;
  return out;
}

export function mapOpenAiStreamEvent(event: SseEvent, state: OpenAiStreamState): CanonicalChatChunk[] {
  const data = event.data.trim();
  if (data === '' || state.done) return [];
  if (data === '[DONE]') {
    state.done = true;
    return [];
  }
  const parsed = parseJson(data);
  if (!parsed.ok || !isRecord(parsed.value))
    throw new ProviderError('upstream', 'Upstream sent an unreadable stream chunk');
  const chunk = parsed.value;
  const embedded = embeddedOpenAiError(chunk);
  if (embedded !== undefined) throw new ProviderError('upstream', embedded);

  const base = {
    id: asString(chunk.id) ?? '',
    object: 'chat.completion.chunk' as const,
    created: asNumber(chunk.created) ?? state.created,
    model: state.requestedModel,
  };
  const out: CanonicalChatChunk[] = [];
  const choices = asArray(chunk.choices)
    .map(mapChunkChoice)
    .filter((c): c is CanonicalChunkChoice => c !== undefined);
  if (choices.some((c) => c.finish_reason !== null)) state.finished = true;
  if (choices.length > 0) out.push({ ...base, choices });
  const usage = mapOpenAiUsage(chunk.usage);
  if (usage) out.push({ ...base, choices: [], usage });
  return out;
}

/**
 * End of the upstream body. A stream that ended without `[DONE]` and without any finish_reason was
 * cut off: that is an upstream failure, not a short answer.
 */
export function flushOpenAiStream(state: OpenAiStreamState): CanonicalChatChunk[] {
  if (!state.done && !state.finished) throw new ProviderError('upstream', 'Upstream stream ended before completion');
  return [];
}
