/**
 * Gemini `streamGenerateContent?alt=sse`: every SSE data payload is a whole GenerateContentResponse
 * fragment. Each fragment becomes one chunk with one choice per candidate (role on a candidate's
 * first delta; thought text → reasoning_content; function calls arrive whole and become complete
 * tool-call deltas). usageMetadata is repeated on every fragment: the last one wins and is emitted by
 * flush() on a final `choices: []` chunk, because the stream has no end marker of its own.
 */
import { CanonicalChatChunk, CanonicalChunkChoice, CanonicalUsage, ProviderError, SseEvent } from '../types';
import { asArray, asNumber, asRecord, isRecord, JsonRecord, parseJson } from '../http/wire-json';
import { mapGeminiStreamError } from './gemini.errors';
import {
  geminiResponseId,
  mapGeminiFinishReason,
  mapGeminiUsage,
  promptBlockReason,
  readCandidateParts,
} from './gemini.response';

interface CandidateStreamState {
  roleSent: boolean;
  toolCalls: number;
}

export interface GeminiStreamState {
  readonly requestedModel: string;
  readonly created: number;
  id: string;
  candidates: Map<number, CandidateStreamState>;
  usage: CanonicalUsage | null;
  /** a finishReason (or a prompt block) was seen */
  finished: boolean;
  usageEmitted: boolean;
}

export function createGeminiStreamState(requestedModel: string, nowMs: number): GeminiStreamState {
  return {
    requestedModel,
    created: Math.floor(nowMs / 1000),
    id: '',
    candidates: new Map(),
    usage: null,
    finished: false,
    usageEmitted: false,
  };
}

function candidateState(state: GeminiStreamState, index: number): CandidateStreamState {
  let candidate = state.candidates.get(index);
  if (candidate === undefined) {
    candidate = { roleSent: false, toolCalls: 0 };
    state.candidates.set(index, candidate);
  }
  return candidate;
}

function mapCandidateDelta(
  raw: JsonRecord,
  position: number,
  state: GeminiStreamState,
): CanonicalChunkChoice | undefined {
  const index = asNumber(raw.index) ?? position;
  const candidate = candidateState(state, index);
  const parts = readCandidateParts(raw, candidate.toolCalls);
  const delta: CanonicalChunkChoice['delta'] = {};
  if (parts.reasoning !== '') delta.reasoning_content = parts.reasoning;
  if (parts.text !== '') delta.content = parts.text;
  if (parts.toolCalls.length > 0) {
    delta.tool_calls = parts.toolCalls.map((call, i) => ({
      index: candidate.toolCalls + i,
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
    candidate.toolCalls += parts.toolCalls.length;
  }
  const finish = mapGeminiFinishReason(raw.finishReason, candidate.toolCalls > 0);
  if (finish !== null) state.finished = true;
  if (Object.keys(delta).length === 0 && finish === null) return undefined;
  if (!candidate.roleSent) {
    candidate.roleSent = true;
    return { index, delta: { role: 'assistant', ...delta }, finish_reason: finish };
  }
  return { index, delta, finish_reason: finish };
}

export function mapGeminiStreamEvent(event: SseEvent, state: GeminiStreamState): CanonicalChatChunk[] {
  const parsed = parseJson(event.data);
  if (!parsed.ok || (!isRecord(parsed.value) && !Array.isArray(parsed.value)))
    throw new ProviderError('upstream', 'Upstream sent an unreadable stream chunk');
  const payload = parsed.value;
  if (!isRecord(payload) || payload.error !== undefined) throw mapGeminiStreamError(payload);

  state.id = geminiResponseId(payload) ?? state.id;
  const usage = mapGeminiUsage(payload.usageMetadata);
  if (usage) state.usage = usage;

  const choices: CanonicalChunkChoice[] = [];
  asArray(payload.candidates).forEach((raw, position) => {
    const candidate = asRecord(raw);
    const choice = candidate ? mapCandidateDelta(candidate, position, state) : undefined;
    if (choice) choices.push(choice);
  });
  if (choices.length === 0 && asArray(payload.candidates).length === 0 && promptBlockReason(payload) !== undefined) {
    state.finished = true;
    const roleSent = candidateState(state, 0).roleSent;
    choices.push({ index: 0, delta: roleSent ? {} : { role: 'assistant' }, finish_reason: 'content_filter' });
  }
  if (choices.length === 0) return [];
  return [
    { id: state.id, object: 'chat.completion.chunk', created: state.created, model: state.requestedModel, choices },
  ];
}

/** End of body: the usage chunk; a stream that never reported a finishReason was cut off. */
export function flushGeminiStream(state: GeminiStreamState): CanonicalChatChunk[] {
  if (!state.finished) throw new ProviderError('upstream', 'Upstream stream ended before a finishReason');
  if (state.usageEmitted || state.usage === null) return [];
  state.usageEmitted = true;
  return [
    {
      id: state.id,
      object: 'chat.completion.chunk',
      created: state.created,
      model: state.requestedModel,
      choices: [],
      usage: state.usage,
    },
  ];
}
