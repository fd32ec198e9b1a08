/**
 * Foundation Models completion answer → canonical response (plus the readers the stream shares).
 * The REST answer wraps the CompletionResponse in `result`; usage counts are int64 strings.
 */
import { randomUUID } from 'node:crypto';
import {
  CanonicalChatResponse,
  CanonicalChoice,
  CanonicalUsage,
  FinishReason,
  ProviderError,
  ToolCall,
} from '../types';
import { asArray, asRecord, asString, isRecord, JsonRecord } from '../http/wire-json';
import { syntheticToolCallId } from '../synthetic-tool-ids';

/** A protobuf int64 (a decimal string, or a number from a lenient proxy) as a token count. */
export function yandexCount(value: unknown): number {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

/** inputTextTokens / completionTokens (reasoning included) → canonical usage. */
export function mapYandexUsage(raw: unknown): CanonicalUsage | null {
  const usage = asRecord(raw);
  if (!usage) return null;
  const prompt = yandexCount(usage.inputTextTokens);
  const completion = yandexCount(usage.completionTokens);
  const out: CanonicalUsage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: yandexCount(usage.totalTokens) || prompt + completion,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
  };
  const details = asRecord(usage.completionTokensDetails);
  if (details?.reasoningTokens !== undefined) out.reasoning_tokens = yandexCount(details.reasoningTokens);
  return out;
}

/** ALTERNATIVE_STATUS_* → finish reason; PARTIAL (and unknown) → null: not finished. */
export function mapYandexStatus(raw: unknown): FinishReason {
  switch (raw) {
    case 'ALTERNATIVE_STATUS_FINAL':
      return 'stop';
    case 'ALTERNATIVE_STATUS_TRUNCATED_FINAL':
      return 'length';
    case 'ALTERNATIVE_STATUS_CONTENT_FILTER':
      return 'content_filter';
    case 'ALTERNATIVE_STATUS_TOOL_CALLS':
      return 'tool_calls';
    default:
      return null;
  }
}

export interface YandexAlternative {
  text: string;
  toolCalls: ToolCall[];
  finish: FinishReason;
}

export function readYandexAlternative(raw: unknown): YandexAlternative {
  const alternative = asRecord(raw) ?? {};
  const message = asRecord(alternative.message) ?? {};
  const toolCalls: ToolCall[] = [];
  for (const item of asArray(asRecord(message.toolCallList)?.toolCalls)) {
    const call = asRecord(asRecord(item)?.functionCall);
    if (!call) continue;
    const name = asString(call.name) ?? '';
    const args = isRecord(call.arguments) ? call.arguments : {};
    toolCalls.push({
      id: syntheticToolCallId(toolCalls.length, name),
      type: 'function',
      function: { name, arguments: JSON.stringify(args) },
    });
  }
  return { text: asString(message.text) ?? '', toolCalls, finish: mapYandexStatus(alternative.status) };
}

/** The CompletionResponse inside `{result: …}` (or the bare object). */
export function yandexResult(body: unknown): JsonRecord | undefined {
  if (!isRecord(body)) return undefined;
  const result = asRecord(body.result);
  if (result) return result;
  return Array.isArray(body.alternatives) ? body : undefined;
}

export function mapYandexChatResponse(body: unknown, requestedModel: string, nowMs: number): CanonicalChatResponse {
  const result = yandexResult(body);
  const alternatives = asArray(result?.alternatives);
  if (!result || alternatives.length === 0)
    throw new ProviderError('upstream', 'Upstream returned a completion without alternatives');
  const choices: CanonicalChoice[] = alternatives.map((raw, index) => {
    const alt = readYandexAlternative(raw);
    const message: CanonicalChoice['message'] = {
      role: 'assistant',
      content: alt.text === '' ? null : alt.text,
      reasoning_content: null,
    };
    if (alt.toolCalls.length > 0) message.tool_calls = alt.toolCalls;
    return { index, message, finish_reason: alt.finish ?? 'stop' };
  });
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(nowMs / 1000),
    model: requestedModel,
    choices,
    usage: mapYandexUsage(result.usage),
  };
}
