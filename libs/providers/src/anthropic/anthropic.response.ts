/** Anthropic Messages response → canonical response (plus the usage and stop-reason mapping the stream shares). */
import { CanonicalChatResponse, CanonicalUsage, FinishReason, ProviderError, ToolCall } from '../types';
import { asArray, asCount, asRecord, asString, isRecord } from '../http/wire-json';
import { JSON_OUTPUT_TOOL_NAME } from './anthropic.json-mode';

export interface AnthropicUsageCounts {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** of cacheWrite, the tokens written to the 1-hour cache (`cache_creation.ephemeral_1h_input_tokens`) */
  cacheWrite1h?: number;
  output: number;
}

export function readAnthropicUsage(raw: unknown): AnthropicUsageCounts {
  const usage = asRecord(raw);
  const byTtl = asRecord(usage?.cache_creation);
  const counts: AnthropicUsageCounts = {
    input: asCount(usage?.input_tokens),
    cacheRead: asCount(usage?.cache_read_input_tokens),
    cacheWrite: asCount(usage?.cache_creation_input_tokens),
    output: asCount(usage?.output_tokens),
  };
  const oneHour = asCount(byTtl?.ephemeral_1h_input_tokens);
  if (oneHour > 0) counts.cacheWrite1h = Math.min(oneHour, counts.cacheWrite);
  return counts;
}

/** Anthropic's input_tokens excludes cache reads and writes; canonical prompt_tokens includes them. */
export function toCanonicalUsage(counts: AnthropicUsageCounts): CanonicalUsage {
  const prompt = counts.input + counts.cacheRead + counts.cacheWrite;
  const usage: CanonicalUsage = {
    prompt_tokens: prompt,
    completion_tokens: counts.output,
    total_tokens: prompt + counts.output,
    cache_read_tokens: counts.cacheRead,
    cache_write_tokens: counts.cacheWrite,
  };
  if (counts.cacheWrite1h) usage.cache_write_1h_tokens = counts.cacheWrite1h;
  return usage;
}

/**
 * end_turn / stop_sequence / pause_turn → stop; max_tokens / model_context_window_exceeded → length;
 * tool_use → tool_calls (stop when the only tool used was the JSON-mode tool); refusal → content_filter.
 */
export function mapAnthropicStopReason(raw: unknown, callerToolUsed: boolean): FinishReason {
  switch (raw) {
    case null:
    case undefined:
      return null;
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return callerToolUsed ? 'tool_calls' : 'stop';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

export function mapAnthropicChatResponse(body: unknown, requestedModel: string, nowMs: number): CanonicalChatResponse {
  if (!isRecord(body) || !Array.isArray(body.content))
    throw new ProviderError('upstream', 'Upstream returned a message without content');
  let text = '';
  let reasoning = '';
  let jsonOutput: string | undefined;
  const toolCalls: ToolCall[] = [];
  for (const raw of asArray(body.content)) {
    const block = asRecord(raw);
    if (!block) continue;
    if (block.type === 'text') text += asString(block.text) ?? '';
    else if (block.type === 'thinking') reasoning += asString(block.thinking) ?? '';
    else if (block.type === 'tool_use') {
      const name = asString(block.name) ?? '';
      const args = JSON.stringify(block.input ?? {});
      if (name === JSON_OUTPUT_TOOL_NAME) jsonOutput = args;
      else toolCalls.push({ id: asString(block.id) ?? '', type: 'function', function: { name, arguments: args } });
    }
    // redacted_thinking, server tool blocks and unknown future blocks carry nothing for the caller
  }
  // JSON mode: the forced tool's input is the answer (any preamble text would break JSON.parse)
  const content = jsonOutput ?? (text === '' ? null : text);
  const message: CanonicalChatResponse['choices'][number]['message'] = {
    role: 'assistant',
    content,
    reasoning_content: reasoning === '' ? null : reasoning,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: asString(body.id) ?? '',
    object: 'chat.completion',
    created: Math.floor(nowMs / 1000),
    model: requestedModel,
    choices: [{ index: 0, message, finish_reason: mapAnthropicStopReason(body.stop_reason, toolCalls.length > 0) }],
    usage: body.usage === undefined ? null : toCanonicalUsage(readAnthropicUsage(body.usage)),
  };
}
