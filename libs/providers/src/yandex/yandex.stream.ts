/**
 * Foundation Models streaming (`completionOptions.stream: true`): newline-delimited JSON, one
 * `{"result": CompletionResponse}` per line, each alternative carrying the WHOLE text generated so
 * far. The state remembers what was sent per alternative, so each line becomes a delta of the new
 * text only. Tool calls arrive whole on the line whose status is ALTERNATIVE_STATUS_TOOL_CALLS.
 * Usage is repeated on every line: the last one wins and flush() emits it on a final `choices: []`
 * chunk. A line `{"error": …}` is an error reported mid-stream.
 */
import { randomUUID } from 'node:crypto';
import { CanonicalChatChunk, CanonicalChunkChoice, CanonicalUsage, ProviderError, SseEvent } from '../types';
import { asArray, isRecord, parseJson } from '../http/wire-json';
import { mapYandexStreamError } from './yandex.errors';
import { mapYandexUsage, readYandexAlternative, yandexResult } from './yandex.response';

interface AlternativeStreamState {
  /** the text already sent as deltas (the prefix every later line repeats) */
  sent: string;
  roleSent: boolean;
  toolCallsSent: number;
  finished: boolean;
}

export interface YandexStreamState {
  readonly requestedModel: string;
  readonly created: number;
  readonly id: string;
  alternatives: Map<number, AlternativeStreamState>;
  usage: CanonicalUsage | null;
  usageEmitted: boolean;
}

export function createYandexStreamState(requestedModel: string, nowMs: number): YandexStreamState {
  return {
    requestedModel,
    created: Math.floor(nowMs / 1000),
    id: `chatcmpl-${randomUUID()}`,
    alternatives: new Map(),
    usage: null,
    usageEmitted: false,
  };
}

function alternativeState(state: YandexStreamState, index: number): AlternativeStreamState {
  let alt = state.alternatives.get(index);
  if (alt === undefined) {
    alt = { sent: '', roleSent: false, toolCallsSent: 0, finished: false };
    state.alternatives.set(index, alt);
  }
  return alt;
}

function mapAlternative(raw: unknown, index: number, state: YandexStreamState): CanonicalChunkChoice | undefined {
  const alt = alternativeState(state, index);
  if (alt.finished) return undefined;
  const read = readYandexAlternative(raw);
  const delta: CanonicalChunkChoice['delta'] = {};
  if (read.text.startsWith(alt.sent)) {
    if (read.text.length > alt.sent.length) delta.content = read.text.slice(alt.sent.length);
    alt.sent = read.text;
  } else if (read.finish !== 'content_filter') {
    // the filter may replace what was generated; anything else that rewrites sent text cannot be streamed
    throw new ProviderError('upstream', 'Upstream stream rewrote text it had already sent');
  }
  if (read.toolCalls.length > alt.toolCallsSent) {
    delta.tool_calls = read.toolCalls.slice(alt.toolCallsSent).map((call, i) => ({
      index: alt.toolCallsSent + i,
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
    alt.toolCallsSent = read.toolCalls.length;
  }
  if (read.finish !== null) alt.finished = true;
  if (Object.keys(delta).length === 0 && read.finish === null) return undefined;
  if (!alt.roleSent) {
    alt.roleSent = true;
    return { index, delta: { role: 'assistant', ...delta }, finish_reason: read.finish };
  }
  return { index, delta, finish_reason: read.finish };
}

export function mapYandexStreamEvent(event: SseEvent, state: YandexStreamState): CanonicalChatChunk[] {
  const parsed = parseJson(event.data);
  if (!parsed.ok || !isRecord(parsed.value))
    throw new ProviderError('upstream', 'Upstream sent an unreadable stream line');
  const payload = parsed.value;
  if (payload.error !== undefined) throw mapYandexStreamError(payload);
  const result = yandexResult(payload);
  if (!result) throw new ProviderError('upstream', 'Upstream sent a stream line without a result');
  const usage = mapYandexUsage(result.usage);
  if (usage) state.usage = usage;
  const choices: CanonicalChunkChoice[] = [];
  asArray(result.alternatives).forEach((raw, index) => {
    const choice = mapAlternative(raw, index, state);
    if (choice) choices.push(choice);
  });
  if (choices.length === 0) return [];
  return [
    { id: state.id, object: 'chat.completion.chunk', created: state.created, model: state.requestedModel, choices },
  ];
}

/** End of body: the usage chunk; a stream whose alternatives never reached a final status was cut off. */
export function flushYandexStream(state: YandexStreamState): CanonicalChatChunk[] {
  const alternatives = [...state.alternatives.values()];
  if (alternatives.length === 0 || alternatives.some((a) => !a.finished))
    throw new ProviderError('upstream', 'Upstream stream ended before a final status');
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
