/**
 * GigaChat SSE (`data: {choices:[{delta,index,finish_reason}], usage?}` … `data: [DONE]`) →
 * canonical chunks. A function call arrives whole in one delta (`function_call` with object
 * arguments) and becomes one tool-call delta; usage (on the last chunk) goes out on its own
 * `choices: []` chunk.
 */
import { asArray, asNumber, asRecord, asString, isRecord, parseJson } from '../http/wire-json';
import { CanonicalChatChunk, CanonicalChunkChoice, ProviderError, SseEvent } from '../types';
import { readGigaChatError } from './gigachat.errors';
import {
  gigaChatToolCallId,
  mapGigaChatFinishReason,
  mapGigaChatFunctionCall,
  mapGigaChatUsage,
} from './gigachat.response';

export interface GigaChatStreamState {
  readonly requestedModel: string;
  readonly created: number;
  readonly id: string;
  done: boolean;
  finished: boolean;
}

export function createGigaChatStreamState(requestedModel: string, nowMs: number): GigaChatStreamState {
  const created = Math.floor(nowMs / 1000);
  return { requestedModel, created, id: `chatcmpl-gigachat-${nowMs}`, done: false, finished: false };
}

export function mapGigaChatStreamEvent(event: SseEvent, state: GigaChatStreamState): CanonicalChatChunk[] {
  const data = event.data.trim();
  if (data === '' || state.done) return [];
  if (data === '[DONE]') {
    state.done = true;
    return [];
  }
  const parsed = parseJson(data);
  if (!parsed.ok || !isRecord(parsed.value))
    throw new ProviderError('upstream', 'GigaChat sent an unreadable stream chunk');
  const chunk = parsed.value;
  if (event.event === 'error' || (chunk.choices === undefined && chunk.message !== undefined))
    throw new ProviderError('upstream', `GigaChat: ${readGigaChatError(data) ?? 'stream error'}`);
  const base = {
    id: state.id,
    object: 'chat.completion.chunk' as const,
    created: asNumber(chunk.created) ?? state.created,
    model: state.requestedModel,
  };
  const choices: CanonicalChunkChoice[] = [];
  for (const [position, raw] of asArray(chunk.choices).entries()) {
    const choice = asRecord(raw);
    if (!choice) continue;
    const delta = asRecord(choice.delta) ?? {};
    const index = asNumber(choice.index) ?? position;
    const out: CanonicalChunkChoice = {
      index,
      delta: {},
      finish_reason: mapGigaChatFinishReason(choice.finish_reason),
    };
    if (delta.role === 'assistant') out.delta.role = 'assistant';
    const content = asString(delta.content);
    if (content !== undefined && content !== '') out.delta.content = content;
    const call = mapGigaChatFunctionCall(delta.function_call, gigaChatToolCallId(delta, `${base.created}_${index}`));
    if (call) {
      out.delta.tool_calls = [
        {
          index: 0,
          id: call.id,
          type: 'function',
          function: { name: call.function.name, arguments: call.function.arguments },
        },
      ];
      if (out.finish_reason !== null) out.finish_reason = 'tool_calls';
    }
    if (out.finish_reason !== null) state.finished = true;
    choices.push(out);
  }
  const result: CanonicalChatChunk[] = [];
  if (choices.length > 0) result.push({ ...base, choices });
  const usage = mapGigaChatUsage(chunk.usage);
  if (usage) result.push({ ...base, choices: [], usage });
  return result;
}

/** A stream that ended without `[DONE]` and without a finish_reason was cut off. */
export function flushGigaChatStream(state: GigaChatStreamState): CanonicalChatChunk[] {
  if (!state.done && !state.finished) throw new ProviderError('upstream', 'GigaChat stream ended before completion');
  return [];
}
