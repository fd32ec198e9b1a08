/** Gemini GenerateContentResponse → canonical response (plus the candidate / usage readers the stream shares). */
import { randomUUID } from 'node:crypto';
import {
  CanonicalChatResponse,
  CanonicalChoice,
  CanonicalUsage,
  FinishReason,
  ProviderError,
  ToolCall,
} from '../types';
import { asArray, asCount, asNumber, asRecord, asString, isRecord, JsonRecord } from '../http/wire-json';
import { syntheticToolCallId } from '../synthetic-tool-ids';

/**
 * promptTokenCount already includes cachedContentTokenCount; tool-use prompt tokens (grounding)
 * are input too. Thinking tokens are billed as output: completion = candidates + thoughts.
 */
export function mapGeminiUsage(raw: unknown): CanonicalUsage | null {
  const usage = asRecord(raw);
  if (!usage) return null;
  const prompt = asCount(usage.promptTokenCount) + asCount(usage.toolUsePromptTokenCount);
  const thoughts = asCount(usage.thoughtsTokenCount);
  const completion = asCount(usage.candidatesTokenCount) + thoughts;
  const out: CanonicalUsage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    cache_read_tokens: asCount(usage.cachedContentTokenCount),
    cache_write_tokens: 0,
  };
  if (usage.thoughtsTokenCount !== undefined) out.reasoning_tokens = thoughts;
  return out;
}

const CONTENT_FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
]);

/** STOP → stop (tool_calls when the candidate called functions), MAX_TOKENS → length, safety family → content_filter. */
export function mapGeminiFinishReason(raw: unknown, calledTools: boolean): FinishReason {
  if (typeof raw !== 'string' || raw === '' || raw === 'FINISH_REASON_UNSPECIFIED') return null;
  if (raw === 'MAX_TOKENS') return 'length';
  if (CONTENT_FILTER_REASONS.has(raw)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

export interface GeminiCandidateParts {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
}

/**
 * Read a candidate's parts: thought parts → reasoning, other text → content, functionCall → tool
 * calls with ids numbered from `firstToolIndex` (see gemini.tool-ids.ts).
 */
export function readCandidateParts(candidate: JsonRecord, firstToolIndex: number): GeminiCandidateParts {
  const out: GeminiCandidateParts = { text: '', reasoning: '', toolCalls: [] };
  for (const raw of asArray(asRecord(candidate.content)?.parts)) {
    const part = asRecord(raw);
    if (!part) continue;
    const text = asString(part.text);
    if (text !== undefined) {
      if (part.thought === true) out.reasoning += text;
      else out.text += text;
    }
    const call = asRecord(part.functionCall);
    if (call) {
      const name = asString(call.name) ?? '';
      const id = asString(call.id) ?? syntheticToolCallId(firstToolIndex + out.toolCalls.length, name);
      out.toolCalls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(call.args ?? {}) } });
    }
  }
  return out;
}

function mapCandidate(raw: unknown, position: number): CanonicalChoice {
  const candidate = asRecord(raw) ?? {};
  const parts = readCandidateParts(candidate, 0);
  const message: CanonicalChoice['message'] = {
    role: 'assistant',
    content: parts.text === '' ? null : parts.text,
    reasoning_content: parts.reasoning === '' ? null : parts.reasoning,
  };
  if (parts.toolCalls.length > 0) message.tool_calls = parts.toolCalls;
  return {
    index: asNumber(candidate.index) ?? position,
    message,
    finish_reason: mapGeminiFinishReason(candidate.finishReason, parts.toolCalls.length > 0),
  };
}

/** A prompt blocked before generation (`promptFeedback.blockReason`, no candidates). */
export function promptBlockReason(body: JsonRecord): string | undefined {
  return asString(asRecord(body.promptFeedback)?.blockReason);
}

export function geminiResponseId(body: JsonRecord): string | undefined {
  return asString(body.responseId);
}

export function mapGeminiChatResponse(body: unknown, requestedModel: string, nowMs: number): CanonicalChatResponse {
  if (!isRecord(body)) throw new ProviderError('upstream', 'Upstream returned an unreadable generateContent body');
  const candidates = asArray(body.candidates);
  let choices: CanonicalChoice[];
  if (candidates.length > 0) choices = candidates.map(mapCandidate);
  else if (promptBlockReason(body) !== undefined)
    choices = [
      {
        index: 0,
        message: { role: 'assistant', content: null, reasoning_content: null },
        finish_reason: 'content_filter',
      },
    ];
  else throw new ProviderError('upstream', 'Upstream returned no candidates');
  return {
    id: geminiResponseId(body) ?? `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(nowMs / 1000),
    model: requestedModel,
    choices,
    usage: mapGeminiUsage(body.usageMetadata),
  };
}
