import { Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';

/** The data policy a request ran under and what it did (request log: never the values). */
export interface DataProtectionNote {
  residency: string;
  pii: string;
  pii_scope: string;
  /** masked: placeholders went upstream; blocked: refused with pii_detected; none: nothing detected or not in scope */
  action: 'masked' | 'blocked' | 'none';
  /** occurrences detected, by entity type */
  entities: Record<string, number>;
}

/**
 * What one HTTP request did, filled while it runs and read once when it ends (access log line and
 * metrics). Created by the request observer; BillingService.meter adds the upstream time, the model,
 * the tokens and the cost of every charged operation; the exception filter adds the error code.
 * Team and key come from the authenticated caller on the request. Code that does not hold the
 * response (BillingService.meter: rate-limit headers) sets headers and per-request flags through it.
 */
export class RequestContext {
  /** performance.now() when the request arrived */
  readonly startedAt: number;
  model: string | null = null;
  promptTokens = 0;
  completionTokens = 0;
  costMicro = 0;
  /** time spent inside metered work (the provider call, the stream, the embeddings) */
  upstreamMs = 0;
  upstreamCalls = 0;
  /** upstream runs going on now, and performance.now() when the earliest of them began */
  private upstreamOpen = 0;
  private upstreamOpenSince = 0;
  /** the gateway's own time sent in `x-gateway-overhead-ms` (ms), once the headers went out */
  overheadMs: number | null = null;
  errorCode: string | null = null;
  /** the provider of the last upstream attempt (UpstreamRouter) */
  provider: string | null = null;
  /** upstream attempts made through UpstreamRouter, all candidates together (retries and fallbacks) */
  attempts = 0;
  /** catalog models tried, in order, each once (the fallback path; the last one served) */
  fallbackPath: string[] | null = null;
  cacheReadTokens = 0;
  cacheWriteTokens = 0;
  reasoningTokens = 0;
  /** the CBR rate (decimal string) and its date of the last charge of a USD-priced model */
  fx: { rate: string; date: string } | null = null;
  /** ms from arrival to the first byte of a streamed answer */
  ttftMs: number | null = null;
  /** another request in flight carries the same request id: nothing is attributed by id */
  shared = false;
  /** live requests registered under this context's id (the first one holds the registry slot) */
  holders = 1;

  /** the data policy applied (set by the chat pipeline and the other model calls under a policy) */
  dataProtection: DataProtectionNote | null = null;
  /** masks personal data in a stored request-log body as the upstream saw it (set when the request was masked) */
  bodyMasker: ((text: string) => string) | null = null;

  private flagSet: Set<string> | null = null;
  /** metered work running for this request (BillingService.meter), and who waits for it to end */
  private working = 0;
  private idle: (() => void)[] = [];

  constructor(
    readonly requestId: string,
    startedAt: number,
    private readonly res: ServerResponse | null = null,
  ) {
    this.startedAt = startedAt;
  }

  /** Per-request flags of the modules that need them (e.g. "counted against the rate limits"). */
  get flags(): Set<string> {
    return (this.flagSet ??= new Set());
  }

  /** Sets response headers unless they were already sent (a stream that started). */
  setHeaders(headers: Record<string, string>): void {
    const res = this.res;
    if (!res || res.headersSent) return;
    for (const k in headers) res.setHeader(k, headers[k]);
  }

  /**
   * Metered work starts (BillingService.meter); the returned function ends it. A request whose
   * client went away is recorded once its work has charged (see `whenIdle`).
   */
  beginWork(): () => void {
    this.working++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.working > 0) return;
      const waiting = this.idle;
      this.idle = [];
      for (const resolve of waiting) resolve();
    };
  }

  /** null when no metered work runs; else a promise that resolves once the last one ended. */
  whenIdle(): Promise<void> | null {
    if (this.working === 0) return null;
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Removes a header set earlier, unless the headers were already sent. */
  removeHeader(name: string): void {
    const res = this.res;
    if (res && !res.headersSent) res.removeHeader(name);
  }

  /** An upstream run (BillingService.meter) begins at `at` (performance.now()); `addUpstream` ends it. */
  beginUpstream(at: number): void {
    if (this.upstreamOpen++ === 0) this.upstreamOpenSince = at;
  }

  /** One upstream run (BillingService.meter), successful or not, begun with `beginUpstream` or not. */
  addUpstream(ms: number, begun = false): void {
    this.upstreamMs += ms;
    this.upstreamCalls++;
    if (begun && this.upstreamOpen > 0) this.upstreamOpen--;
  }

  /**
   * The gateway's own time up to `now` (performance.now()): time since arrival minus upstream runs,
   * the ones still going on counted up to `now` (a stream sending its headers). Never negative
   * (concurrent runs of one request may overlap).
   */
  overheadAt(now: number): number {
    const open = this.upstreamOpen > 0 ? now - this.upstreamOpenSince : 0;
    return Math.max(0, now - this.startedAt - this.upstreamMs - open);
  }

  /** One charge: tokens and cost add up; the model is the last one charged. */
  addCharge(
    model: string | null,
    promptTokens: number,
    completionTokens: number,
    costMicro: number,
    breakdown?: Record<string, unknown>,
  ): void {
    if (model) this.model = model;
    this.promptTokens += promptTokens;
    this.completionTokens += completionTokens;
    this.costMicro += costMicro;
    if (!breakdown) return;
    this.cacheReadTokens += count(breakdown.cache_read_tokens);
    this.cacheWriteTokens += count(breakdown.cache_write_tokens);
    this.reasoningTokens += count(breakdown.reasoning_tokens);
  }

  /** One upstream attempt of UpstreamRouter on catalog model `model` of `provider`. */
  addAttempt(model: string, provider: string): void {
    this.attempts++;
    this.provider = provider;
    const path = (this.fallbackPath ??= []);
    if (path[path.length - 1] !== model) path.push(model);
  }
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

const CONTEXT = Symbol.for('gateway.requestContext');

/** The context the observer attached to this response (or undefined outside the HTTP pipeline). */
export function requestContextOf(res: unknown): RequestContext | undefined {
  return (res as { [CONTEXT]?: RequestContext } | null | undefined)?.[CONTEXT];
}

export function attachRequestContext(res: object, ctx: RequestContext): void {
  (res as { [CONTEXT]?: RequestContext })[CONTEXT] = ctx;
}

/**
 * Request contexts of the requests in flight, by request id: services deep in a call only know the
 * request id (BillingService.meter's spec carries it), and a Map lookup is cheaper than an
 * AsyncLocalStorage context. A caller may send the same `x-request-id` on concurrent requests: while
 * more than one such request is live, `get` returns nothing for that id, so nothing is attributed to
 * the wrong request (their log lines then lack tokens and cost; the metrics are unaffected).
 */
@Injectable()
export class RequestContexts {
  private readonly live = new Map<string, RequestContext>();

  register(ctx: RequestContext): void {
    const existing = this.live.get(ctx.requestId);
    if (existing) {
      existing.holders++;
      existing.shared = true;
      ctx.shared = true;
      return;
    }
    this.live.set(ctx.requestId, ctx);
  }

  unregister(ctx: RequestContext): void {
    const slot = this.live.get(ctx.requestId);
    if (slot && --slot.holders === 0) this.live.delete(ctx.requestId);
  }

  /** The live context of this request id, unless the id is ambiguous or unknown (background work). */
  get(requestId: string): RequestContext | undefined {
    const ctx = this.live.get(requestId);
    return ctx && !ctx.shared ? ctx : undefined;
  }

  get size(): number {
    return this.live.size;
  }
}
