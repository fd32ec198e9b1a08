/** GigaChat chat-completion JSON → canonical response (function_call → tool_calls, usage with precached tokens). */
import { asArray, asCount, asNumber, asRecord, asString, isRecord, JsonRecord } from '../http/wire-json';
import {
  CanonicalChatResponse,
  CanonicalChoice,
  CanonicalUsage,
  FinishReason,
  ProviderError,
  ToolCall,
} from '../types';

/**
 * GigaChat reports `prompt_tokens` WITHOUT the tokens served from its prompt cache, which come
 * apart as `precached_prompt_tokens`; the canonical prompt count includes them (as cache reads).
 */
export function mapGigaChatUsage(raw: unknown): CanonicalUsage | null {
  const usage = asRecord(raw);
  if (!usage) return null;
  const cached = asCount(usage.precached_prompt_tokens);
  const prompt = asCount(usage.prompt_tokens) + cached;
  const completion = asCount(usage.completion_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cache_read_tokens: cached,
    cache_write_tokens: 0,
  };
}

/**
 * stop / length / function_call; `blacklist` (the answer was withheld by Sber's content policy) is
 * a content filter; `error` is an upstream failure.
 */
export function mapGigaChatFinishReason(raw: unknown): FinishReason {
  switch (raw) {
    case null:
    case undefined:
      return null;
    case 'length':
      return 'length';
    case 'function_call':
      return 'tool_calls';
    case 'blacklist':
      return 'content_filter';
    case 'error':
      throw new ProviderError('upstream', 'GigaChat ended the answer with an error');
    default:
      return 'stop';
  }
}

/** GigaChat's function call (arguments an object; a string is accepted too) → a canonical tool call. */
export function mapGigaChatFunctionCall(raw: unknown, id: string): ToolCall | undefined {
  const call = asRecord(raw);
  const name = asString(call?.name);
  if (!call || name === undefined) return undefined;
  const args = call.arguments;
  const text = typeof args === 'string' ? args : JSON.stringify(isRecord(args) ? args : {});
  return { id, type: 'function', function: { name, arguments: text } };
}

/** GigaChat's calls carry no id: one is made from the answer's functions_state_id or its position. */
export function gigaChatToolCallId(message: JsonRecord | undefined, fallback: string): string {
  const state = asString(message?.functions_state_id);
  return `call_${(state ?? fallback).replace(/[^A-Za-z0-9_-]/g, '')}`;
}

export function mapGigaChatChatResponse(body: unknown, requestedModel: string, nowMs: number): CanonicalChatResponse {
  if (!isRecord(body) || !Array.isArray(body.choices))
    throw new ProviderError('upstream', 'GigaChat returned a chat body without choices');
  const created = asNumber(body.created) ?? Math.floor(nowMs / 1000);
  const choices = asArray(body.choices).map((raw, position): CanonicalChoice => {
    const choice = asRecord(raw) ?? {};
    const message = asRecord(choice.message);
    const index = asNumber(choice.index) ?? position;
    const call = mapGigaChatFunctionCall(message?.function_call, gigaChatToolCallId(message, `${created}_${index}`));
    const out: CanonicalChoice = {
      index,
      message: { role: 'assistant', content: asString(message?.content) ?? null },
      finish_reason: mapGigaChatFinishReason(choice.finish_reason),
    };
    if (call) {
      out.message.tool_calls = [call];
      out.finish_reason = 'tool_calls';
      if (out.message.content === '') out.message.content = null;
    }
    return out;
  });
  return {
    id: `chatcmpl-gigachat-${created}`,
    object: 'chat.completion',
    created,
    model: requestedModel,
    choices,
    usage: mapGigaChatUsage(body.usage),
  };
}
