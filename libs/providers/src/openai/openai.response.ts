/** OpenAI-compatible chat-completion JSON → canonical response (and the shared usage / field readers). */
import {
  CanonicalChatResponse,
  CanonicalChoice,
  CanonicalUsage,
  FinishReason,
  ProviderError,
  ToolCall,
} from '../types';
import { asArray, asCount, asNumber, asRecord, asString, isRecord, JsonRecord } from '../http/wire-json';

/**
 * prompt_tokens already includes cached tokens on every OpenAI-compatible API. Cache reads come from
 * `prompt_tokens_details.cached_tokens` (OpenAI, OpenRouter, DeepSeek) or DeepSeek's
 * `prompt_cache_hit_tokens`; there is no cache-write charge (0).
 */
export function mapOpenAiUsage(raw: unknown): CanonicalUsage | null {
  const usage = asRecord(raw);
  if (!usage) return null;
  const prompt = asCount(usage.prompt_tokens);
  const completion = asCount(usage.completion_tokens);
  const promptDetails = asRecord(usage.prompt_tokens_details);
  const completionDetails = asRecord(usage.completion_tokens_details);
  const cacheRead = Math.max(asCount(promptDetails?.cached_tokens), asCount(usage.prompt_cache_hit_tokens));
  const out: CanonicalUsage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cache_read_tokens: cacheRead,
    cache_write_tokens: 0,
  };
  const reasoning = asNumber(completionDetails?.reasoning_tokens);
  if (reasoning !== undefined) out.reasoning_tokens = asCount(reasoning);
  return out;
}

export function mapOpenAiFinishReason(raw: unknown): FinishReason {
  switch (raw) {
    case null:
    case undefined:
      return null;
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    default:
      // 'stop', 'eos', vendor-specific values: the generation ended normally
      return 'stop';
  }
}

/** DeepSeek sends `reasoning_content`, OpenRouter `reasoning`; both become canonical reasoning_content. */
export function readOpenAiReasoning(message: JsonRecord): string | undefined {
  return asString(message.reasoning_content) ?? asString(message.reasoning);
}

/** Tool-call arguments must be a string; a few compatible servers send an object. */
function argumentsText(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (raw === undefined || raw === null) return '';
  return JSON.stringify(raw);
}

export function mapOpenAiToolCalls(raw: unknown): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const item of asArray(raw)) {
    const call = asRecord(item);
    const fn = asRecord(call?.function);
    const name = asString(fn?.name);
    if (!call || !fn || name === undefined) continue;
    calls.push({
      id: asString(call.id) ?? '',
      type: 'function',
      function: { name, arguments: argumentsText(fn.arguments) },
    });
  }
  return calls;
}

function mapChoice(raw: unknown, position: number): CanonicalChoice {
  const choice = asRecord(raw);
  const message = asRecord(choice?.message);
  if (!choice || !message) throw new ProviderError('upstream', 'Upstream response has a choice without a message');
  const content = asString(message.content) ?? null;
  const out: CanonicalChoice = {
    index: asNumber(choice.index) ?? position,
    message: { role: 'assistant', content, reasoning_content: readOpenAiReasoning(message) ?? null },
    finish_reason: mapOpenAiFinishReason(choice.finish_reason),
  };
  const toolCalls = mapOpenAiToolCalls(message.tool_calls);
  if (toolCalls.length > 0) out.message.tool_calls = toolCalls;
  const refusal = asString(message.refusal);
  if (refusal !== undefined) out.message.refusal = refusal;
  if (isRecord(choice.logprobs)) out.logprobs = choice.logprobs;
  return out;
}

/** Message of an `{"error": ...}` object embedded in a 2xx body or stream chunk, if there is one. */
export function embeddedOpenAiError(body: JsonRecord): string | undefined {
  if (body.error === undefined || body.error === null) return undefined;
  const error = asRecord(body.error);
  return asString(error?.message) ?? asString(body.error) ?? 'Upstream reported an error';
}

export function mapOpenAiChatResponse(body: unknown, requestedModel: string, nowMs: number): CanonicalChatResponse {
  const embedded = isRecord(body) ? embeddedOpenAiError(body) : undefined;
  if (embedded !== undefined) throw new ProviderError('upstream', embedded);
  if (!isRecord(body) || !Array.isArray(body.choices)) {
    throw new ProviderError('upstream', 'Upstream returned a chat completion without choices');
  }
  return {
    id: asString(body.id) ?? '',
    object: 'chat.completion',
    created: asNumber(body.created) ?? Math.floor(nowMs / 1000),
    model: requestedModel,
    choices: body.choices.map(mapChoice),
    usage: mapOpenAiUsage(body.usage),
  };
}
