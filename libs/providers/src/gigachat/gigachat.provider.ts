/** The gigachat adapter family: chat and embeddings over one GigaChatSession (token + TLS) per replica. */
import { Clock } from '@app/common';
import { ChatProvider, EmbeddingProvider } from '../chat-provider';
import { ProviderHttpClient } from '../http/provider-http.client';
import type { ProviderAdapters, ProviderFactoryContext } from '../provider-adapters';
import {
  CanonicalChatChunk,
  CanonicalChatRequest,
  CanonicalChatResponse,
  CanonicalEmbeddingRequest,
  CanonicalEmbeddingResponse,
} from '../types';
import { buildGigaChatEmbeddingRequest, mapGigaChatEmbeddingResponse } from './gigachat.embeddings';
import { mapGigaChatError } from './gigachat.errors';
import { buildGigaChatRequest, buildGigaChatBody } from './gigachat.request';
import { mapGigaChatChatResponse } from './gigachat.response';
import { GigaChatSession } from './gigachat.session';
import { createGigaChatStreamState, flushGigaChatStream, mapGigaChatStreamEvent } from './gigachat.stream';

export class GigaChatChatProvider implements ChatProvider {
  constructor(
    private readonly session: GigaChatSession,
    private readonly clock: Clock,
  ) {}

  async complete(req: CanonicalChatRequest, signal?: AbortSignal): Promise<CanonicalChatResponse> {
    buildGigaChatBody(req); // refuses what GigaChat cannot do before a token is fetched
    const { conn, http } = this.session;
    const json = await this.session.withToken(async (token) => {
      const r = buildGigaChatRequest({ ...req, stream: false }, conn.baseUrl, token);
      const res = await http.postJson(r.url, r.headers, r.body, {
        timeoutMs: conn.timeoutMs,
        signal,
        mapError: mapGigaChatError,
      });
      return res.json;
    });
    return mapGigaChatChatResponse(json, req.model, this.clock.now());
  }

  async stream(req: CanonicalChatRequest, signal?: AbortSignal): Promise<AsyncIterable<CanonicalChatChunk>> {
    buildGigaChatBody(req);
    const { conn, http } = this.session;
    const events = await this.session.withToken((token) => {
      const r = buildGigaChatRequest({ ...req, stream: true }, conn.baseUrl, token);
      return http.postStream(r.url, r.headers, r.body, {
        timeoutMs: conn.timeoutMs,
        signal,
        mapError: mapGigaChatError,
      });
    });
    const nowMs = this.clock.now();
    return (async function* () {
      const state = createGigaChatStreamState(req.model, nowMs);
      for await (const event of events) yield* mapGigaChatStreamEvent(event, state);
      yield* flushGigaChatStream(state);
    })();
  }
}

export class GigaChatEmbeddingProvider implements EmbeddingProvider {
  constructor(private readonly session: GigaChatSession) {}

  async embed(req: CanonicalEmbeddingRequest, signal?: AbortSignal): Promise<CanonicalEmbeddingResponse> {
    const { conn, http } = this.session;
    const json = await this.session.withToken(async (token) => {
      const r = buildGigaChatEmbeddingRequest(req, conn.baseUrl, token);
      return (
        await http.postJson(r.url, r.headers, r.body, { timeoutMs: conn.timeoutMs, signal, mapError: mapGigaChatError })
      ).json;
    });
    return mapGigaChatEmbeddingResponse(json);
  }
}

/**
 * Sessions by the app's shared HTTP client (one app, one set of sessions) and by connection
 * settings: chat and embeddings of one configuration share the token.
 */
const sessions = new WeakMap<ProviderHttpClient, Map<string, GigaChatSession>>();

export function gigaChatSession(ctx: ProviderFactoryContext): GigaChatSession {
  const conn = ctx.connection();
  let byConn = sessions.get(ctx.http);
  if (!byConn) sessions.set(ctx.http, (byConn = new Map()));
  const key = JSON.stringify([conn.baseUrl, conn.timeoutMs, conn.extra ?? {}]);
  let s = byConn.get(key);
  if (!s) {
    byConn.set(key, (s = new GigaChatSession(conn, ctx.clock)));
    ctx.http.adopt(s); // its connections close with the app's client
  }
  return s;
}

export const gigachatProvider: ProviderAdapters = {
  type: 'gigachat',
  chat: (ctx) => new GigaChatChatProvider(gigaChatSession(ctx), ctx.clock),
  embeddings: (ctx) => new GigaChatEmbeddingProvider(gigaChatSession(ctx)),
};
