import { Clock } from '@app/common';
import { ProviderHttpClient, UpstreamErrorMapper } from './http/provider-http.client';
import {
  CanonicalChatChunk,
  CanonicalChatRequest,
  CanonicalChatResponse,
  CanonicalEmbeddingRequest,
  CanonicalEmbeddingResponse,
  ChatAdapter,
  ProviderConnection,
} from './types';

/** What the chat layer calls: one per provider instance, provider-neutral. */
export interface ChatProvider {
  complete(req: CanonicalChatRequest, signal?: AbortSignal): Promise<CanonicalChatResponse>;
  /** Resolves once the upstream accepted the request (errors before the first byte reject here). */
  stream(req: CanonicalChatRequest, signal?: AbortSignal): Promise<AsyncIterable<CanonicalChatChunk>>;
  /** Present when the upstream speaks the Anthropic Messages API itself (bodies pass through natively). */
  readonly messagesApi?: MessagesApi;
}

/**
 * The Anthropic Messages API of an upstream that speaks it: the caller's body (with the upstream
 * model id) goes out as is; `headers` are the caller's `anthropic-version` / `anthropic-beta`.
 * Responses carry the upstream body (`passthrough`) beside its canonical reading; stream chunks
 * carry the upstream events.
 */
export interface MessagesApi {
  create(
    body: Record<string, unknown>,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<CanonicalChatResponse>;
  stream(
    body: Record<string, unknown>,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<CanonicalChatChunk>>;
  /** The provider's own count of the prompt's input tokens (free of charge upstream). */
  countTokens(body: Record<string, unknown>, headers: Record<string, string>, signal?: AbortSignal): Promise<number>;
}

export interface EmbeddingProvider {
  embed(req: CanonicalEmbeddingRequest, signal?: AbortSignal): Promise<CanonicalEmbeddingResponse>;
}

/** Glue between a pure adapter and the HTTP client. Contains no provider knowledge. */
export class HttpChatProvider implements ChatProvider {
  constructor(
    private readonly adapter: ChatAdapter,
    private readonly conn: ProviderConnection,
    private readonly http: ProviderHttpClient,
    private readonly clock: Clock,
  ) {}

  async complete(req: CanonicalChatRequest, signal?: AbortSignal): Promise<CanonicalChatResponse> {
    const { url, headers, body } = this.adapter.buildChatRequest({ ...req, stream: false }, this.conn);
    const res = await this.http.postJson(url, headers, body, {
      timeoutMs: this.conn.timeoutMs,
      signal,
      mapError: (s, b, h, now) => this.adapter.mapError(s, b, h, now),
    });
    return this.adapter.mapChatResponse(res.json, req.model, this.clock.now());
  }

  async stream(req: CanonicalChatRequest, signal?: AbortSignal): Promise<AsyncIterable<CanonicalChatChunk>> {
    const { url, headers, body } = this.adapter.buildChatRequest({ ...req, stream: true }, this.conn);
    const events = await this.http.postStream(url, headers, body, {
      timeoutMs: this.conn.timeoutMs,
      signal,
      mapError: (s, b, h, now) => this.adapter.mapError(s, b, h, now),
      framing: this.adapter.streamFraming,
    });
    const adapter = this.adapter;
    const nowMs = this.clock.now();
    return (async function* () {
      const state = adapter.createStreamState(req.model, nowMs);
      for await (const event of events) {
        for (const chunk of adapter.mapStreamEvent(event, state)) yield chunk;
      }
      if (adapter.flush) for (const chunk of adapter.flush(state)) yield chunk;
    })();
  }
}

/** Base of the one-shot JSON clients (embeddings, images): one POST with the family's error mapping. */
export abstract class JsonProviderCall {
  protected constructor(
    protected readonly conn: ProviderConnection,
    private readonly http: ProviderHttpClient,
    private readonly mapError: UpstreamErrorMapper,
  ) {}

  /** POSTs a built request; resolves to the upstream's JSON body (non-2xx → the mapped ProviderError). */
  protected async post(
    req: { url: string; headers: Record<string, string>; body: unknown },
    signal?: AbortSignal,
  ): Promise<unknown> {
    const res = await this.http.postJson(req.url, req.headers, req.body, {
      timeoutMs: this.conn.timeoutMs,
      signal,
      mapError: this.mapError,
    });
    return res.json;
  }
}
