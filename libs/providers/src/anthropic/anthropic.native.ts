/**
 * The Anthropic Messages API spoken natively: a caller's (validated) Messages body goes upstream
 * unchanged but for `model` and `stream`, and the upstream's JSON body or SSE events come back
 * unchanged. The canonical mapping of the same body / events rides along for usage and for counting
 * what was delivered, so new block and event types pass through without the gateway knowing them.
 */
import type { Clock } from '@app/common';
import type { MessagesApi } from '../chat-provider';
import { ProviderHttpClient } from '../http/provider-http.client';
import { joinUrl } from '../http/urls';
import { asCount, asRecord, isRecord } from '../http/wire-json';
import { CanonicalChatChunk, CanonicalChatResponse, ProviderConnection, ProviderError, SseEvent } from '../types';
import { mapAnthropicError } from './anthropic.errors';
import { ANTHROPIC_VERSION } from './anthropic.request';
import { mapAnthropicChatResponse } from './anthropic.response';
import { createAnthropicStreamState, flushAnthropicStream, mapAnthropicStreamEvent } from './anthropic.stream';

/** Events that only open the answer: held back until content follows, so a failure before it can still be retried. */
const OPENING_EVENTS = new Set(['message_start', 'ping', 'content_block_start']);

/**
 * Upstream headers: the gateway's key and the caller's `anthropic-version` (the gateway's default
 * when absent) and `anthropic-beta` (unchanged) — never the caller's own credentials.
 */
export function nativeAnthropicHeaders(
  conn: ProviderConnection,
  client: Record<string, string>,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-api-key': conn.apiKey,
    'anthropic-version': client['anthropic-version'] ?? ANTHROPIC_VERSION,
  };
  if (client['anthropic-beta'] !== undefined) headers['anthropic-beta'] = client['anthropic-beta'];
  return headers;
}

/**
 * Native SSE events → chunks that carry them (`passthrough`) with their canonical reading. The
 * opening events are held and travel with the first content event; an `error` event throws.
 */
export async function* nativeAnthropicChunks(
  events: AsyncIterable<SseEvent>,
  model: string,
  nowMs: number,
): AsyncGenerator<CanonicalChatChunk, void, undefined> {
  const state = createAnthropicStreamState(model, nowMs);
  let held: SseEvent[] = [];
  let read: CanonicalChatChunk[] = [];
  let content = false;
  for await (const event of events) {
    read.push(...mapAnthropicStreamEvent(event, state));
    held.push(event);
    const type = event.event ?? typeOf(event.data);
    // once content flowed, every event (pings in long pauses too) goes on at once
    if (!content && OPENING_EVENTS.has(type) && !read.some((c) => c.usage)) continue;
    content = true;
    yield merge(state.id, state.created, model, read, held);
    held = [];
    read = [];
  }
  read.push(...flushAnthropicStream(state));
  if (held.length > 0 || read.length > 0) yield merge(state.id, state.created, model, read, held);
}

function merge(
  id: string,
  created: number,
  model: string,
  mapped: CanonicalChatChunk[],
  passthrough: SseEvent[],
): CanonicalChatChunk {
  const usage = mapped.find((c) => c.usage)?.usage;
  const promptUsage = mapped.find((c) => c.promptUsage)?.promptUsage;
  return {
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: mapped.flatMap((c) => c.choices),
    ...(usage ? { usage } : {}),
    ...(promptUsage ? { promptUsage } : {}),
    passthrough,
  };
}

function typeOf(data: string): string {
  try {
    const v: unknown = JSON.parse(data);
    return isRecord(v) && typeof v.type === 'string' ? v.type : '';
  } catch {
    return '';
  }
}

/** `POST /v1/messages` and `POST /v1/messages/count_tokens` of one Anthropic connection. */
export class AnthropicMessagesClient implements MessagesApi {
  constructor(
    private readonly conn: ProviderConnection,
    private readonly http: ProviderHttpClient,
    private readonly clock: Clock,
  ) {}

  async create(
    body: Record<string, unknown>,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<CanonicalChatResponse> {
    const json = await this.postJson('v1/messages', body, headers, signal);
    return { ...mapAnthropicChatResponse(json, String(body.model), this.clock.now()), passthrough: json };
  }

  async stream(
    body: Record<string, unknown>,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<CanonicalChatChunk>> {
    const events = await this.http.postStream(
      joinUrl(this.conn.baseUrl, 'v1/messages'),
      nativeAnthropicHeaders(this.conn, headers),
      body.stream === true ? body : { ...body, stream: true },
      { timeoutMs: this.conn.timeoutMs, signal, mapError: mapAnthropicError },
    );
    return nativeAnthropicChunks(events, String(body.model), this.clock.now());
  }

  async countTokens(
    body: Record<string, unknown>,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<number> {
    const counted = asRecord(await this.postJson('v1/messages/count_tokens', body, headers, signal))?.input_tokens;
    if (typeof counted !== 'number') throw new ProviderError('upstream', 'Upstream returned no input_tokens count');
    return asCount(counted);
  }

  private async postJson(
    path: string,
    body: Record<string, unknown>,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const res = await this.http.postJson(
      joinUrl(this.conn.baseUrl, path),
      nativeAnthropicHeaders(this.conn, headers),
      body,
      {
        timeoutMs: this.conn.timeoutMs,
        signal,
        mapError: mapAnthropicError,
      },
    );
    return res.json;
  }
}
