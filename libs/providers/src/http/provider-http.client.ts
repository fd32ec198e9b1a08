/**
 * Thin HTTP client for provider calls: JSON POST and streaming POST (Server-Sent Events, or
 * newline-delimited JSON for upstreams that stream so) over one keep-alive undici pool.
 * It knows nothing about providers: non-2xx answers are handed to the adapter's `mapError`.
 *
 * Failure contract (every rejection is one of these):
 * - `ProviderError` from `mapError` for a non-2xx answer;
 * - `ProviderError('timeout')` when the deadline passes (postJson: whole exchange; postStream:
 *   time to response headers, then each idle gap while waiting for the next body chunk);
 * - `ProviderError('upstream')` for refused / reset connections, an unparsable JSON body or a
 *   stream that breaks mid-way;
 * - `ProviderAbortError` (name "AbortError") when the caller's signal aborts; the upstream request
 *   is cancelled at once.
 */
import { EventEmitter } from 'node:events';
import { Clock } from '@app/common';
import { Agent, Dispatcher, request } from 'undici';
import { ProviderError, SseEvent } from '../types';
import { NdjsonParser } from './ndjson-parser';
import { SseParser } from './sse-parser';
import { errorKindForStatus, fallbackErrorMessage } from './upstream-errors';
import { parseJson } from './wire-json';

/** `nowMs`: the gateway's clock when the answer arrived (for an HTTP-date Retry-After). */
export type UpstreamErrorMapper = (
  status: number,
  body: string,
  headers: Record<string, string>,
  nowMs: number,
) => ProviderError;

export interface ProviderRequestOptions {
  /** see the failure contract above for what the deadline covers; 0 or Infinity disables it */
  timeoutMs: number;
  /** caller cancellation (client disconnected, request aborted) */
  signal?: AbortSignal;
  /** the adapter's `mapError`; a generic status-based mapping when omitted */
  mapError?: UpstreamErrorMapper;
  /** postStream: how the body is framed — Server-Sent Events (default) or one JSON value per line */
  framing?: StreamFraming;
}

export type StreamFraming = 'sse' | 'ndjson';

export interface ProviderJsonResponse {
  status: number;
  headers: Record<string, string>;
  json: unknown;
}

/** The caller aborted. Deliberately not a ProviderError, so it can never be mistaken for a timeout. */
export class ProviderAbortError extends Error {
  constructor(cause?: unknown) {
    super('The upstream request was aborted by the caller', { cause });
    this.name = 'AbortError';
  }
}

export function isProviderAbortError(error: unknown): error is ProviderAbortError {
  return error instanceof ProviderAbortError;
}

/**
 * The connection failed (refused, reset, closed, connect timeout) rather than the provider
 * answering with an error: safe to retry as long as nothing was forwarded to the client.
 */
export class ProviderConnectionError extends ProviderError {}

/** Keep-alive pool used when no agent is passed in. */
export function createProviderAgent(): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 600_000,
    connections: 128,
    connect: { timeout: 10_000 },
  });
}

const MAX_ERROR_BODY_CHARS = 64 * 1024;

/**
 * The one HTTP client of the provider adapters (a Nest provider built by ProvidersModule's factory;
 * its connection pool is closed at application shutdown).
 */
export class ProviderHttpClient {
  /** The client owns `agent`: close() closes it. */
  constructor(
    private readonly agent: Agent = createProviderAgent(),
    private readonly clock: Clock = new Clock(),
  ) {}

  async postJson(
    url: string,
    headers: Record<string, string>,
    body: unknown,
    options: ProviderRequestOptions,
  ): Promise<ProviderJsonResponse> {
    const guard = new RequestGuard(options.timeoutMs, options.signal);
    try {
      guard.arm('response');
      const response = await this.send(url, headers, body, guard, 'application/json');
      const responseHeaders = flattenHeaders(response.headers);
      const text = await response.body.text();
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw mapNonSuccess(options, response.statusCode, text, responseHeaders, this.clock.now());
      }
      const parsed = parseJson(text);
      if (!parsed.ok) {
        throw new ProviderError('upstream', 'Upstream returned an unparsable JSON body', response.statusCode);
      }
      return { status: response.statusCode, headers: responseHeaders, json: parsed.value };
    } catch (error) {
      throw guard.translate(error, 'Upstream request failed');
    } finally {
      guard.dispose();
    }
  }

  /**
   * POST and, once the upstream answered 2xx, return the event stream. Non-2xx answers are mapped
   * and thrown here, before anything is iterated, so the caller can still answer with an error
   * status. The caller must iterate the result to the end, break out of it, or abort its signal:
   * any of these releases the connection.
   */
  async postStream(
    url: string,
    headers: Record<string, string>,
    body: unknown,
    options: ProviderRequestOptions,
  ): Promise<AsyncIterable<SseEvent>> {
    const guard = new RequestGuard(options.timeoutMs, options.signal);
    let response: Dispatcher.ResponseData;
    try {
      guard.arm('response headers');
      const ndjson = options.framing === 'ndjson';
      response = await this.send(url, headers, body, guard, ndjson ? 'application/json' : 'text/event-stream');
      if (response.statusCode < 200 || response.statusCode > 299) {
        const responseHeaders = flattenHeaders(response.headers);
        const text = await response.body.text();
        throw mapNonSuccess(options, response.statusCode, text, responseHeaders, this.clock.now());
      }
      guard.disarm();
    } catch (error) {
      guard.dispose();
      throw guard.translate(error, 'Upstream request failed');
    }
    // The body may be destroyed (caller abort) before anyone iterates it: keep that from becoming
    // an unhandled 'error' event. The iterator below still sees the error.
    response.body.on('error', ignoreError);
    return readEvents(response.body, guard, options.framing === 'ndjson' ? new NdjsonParser() : new SseParser());
  }

  close(): Promise<void> {
    const others = [...this.dependents].map((d) => d.close());
    this.dependents.clear();
    return Promise.all([this.agent.close(), ...others]).then(() => undefined);
  }

  private readonly dependents = new Set<{ close(): Promise<void> }>();

  /** Something with its own connections (an adapter's own client) that is closed with this one. */
  adopt(dependent: { close(): Promise<void> }): void {
    this.dependents.add(dependent);
  }

  /** Nest lifecycle hook. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private send(
    url: string,
    headers: Record<string, string>,
    body: unknown,
    guard: RequestGuard,
    accept: string,
  ): Promise<Dispatcher.ResponseData> {
    return request(url, {
      method: 'POST',
      dispatcher: this.agent,
      headers: { 'content-type': 'application/json', accept, ...headers },
      body: JSON.stringify(body),
      signal: guard.signal,
      // our own timers are the only deadline (undici's would also fire while the consumer is slow)
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }
}

async function* readEvents(
  body: Dispatcher.ResponseData['body'],
  guard: RequestGuard,
  parser: { push(chunk: Uint8Array): SseEvent[]; end(): SseEvent[] },
): AsyncGenerator<SseEvent> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  let finished = false;
  try {
    for (;;) {
      guard.arm('idle stream');
      const next = await chunks.next();
      guard.disarm();
      if (next.done) break;
      for (const event of parser.push(next.value)) yield event;
    }
    finished = true;
    for (const event of parser.end()) yield event;
  } catch (error) {
    throw guard.translate(error, 'Upstream stream broke');
  } finally {
    guard.dispose();
    if (!finished && !body.destroyed) body.destroy();
  }
}

function ignoreError(): void {
  // intentionally empty
}

function mapNonSuccess(
  options: ProviderRequestOptions,
  status: number,
  text: string,
  headers: Record<string, string>,
  nowMs: number,
): ProviderError {
  const bodyText = text.length > MAX_ERROR_BODY_CHARS ? text.slice(0, MAX_ERROR_BODY_CHARS) : text;
  if (options.mapError) return options.mapError(status, bodyText, headers, nowMs);
  return new ProviderError(errorKindForStatus(status), fallbackErrorMessage(status, bodyText), status);
}

export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const UNDICI_TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The abort signal undici gets for one upstream request: an EventEmitter with `aborted` and `reason`,
 * which undici takes as it takes an AbortSignal (its `signal` option is an AbortSignal or an
 * EventEmitter; it reads `aborted` and `reason` of either). Not an AbortController's signal: on
 * Node 20 every AbortSignal outlives young-generation collections, and with it what its listeners
 * reach — undici's request, its handler and the call's state — so one signal per upstream call put
 * all of that in the old generation (docs/performance.md, "What Express's prototype swap cost").
 */
class UpstreamAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** Owns the upstream request's abort signal, the deadline timer and the caller-signal listener of one request. */
class RequestGuard {
  private readonly upstream = new UpstreamAbort();
  private timer: NodeJS.Timeout | undefined;
  private phase = 'response';
  private abortedBy: 'caller' | 'timeout' | undefined;
  private readonly onCallerAbort = (): void => this.abort('caller');

  constructor(
    private readonly timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    if (callerSignal?.aborted) this.abort('caller');
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): UpstreamAbort {
    return this.upstream;
  }

  arm(phase: string): void {
    this.disarm();
    this.phase = phase;
    // a non-positive or non-finite timeout means "no deadline"
    if (this.abortedBy !== undefined || !(this.timeoutMs > 0) || !Number.isFinite(this.timeoutMs)) return;
    this.timer = setTimeout(() => this.abort('timeout'), this.timeoutMs);
  }

  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.disarm();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }

  /** Turn whatever the request threw into the contract's error types. */
  translate(error: unknown, context: string): Error {
    if (this.abortedBy === 'caller') return new ProviderAbortError(this.callerSignal?.reason);
    if (this.abortedBy === 'timeout') {
      return new ProviderError(
        'timeout',
        `Upstream did not answer within ${this.timeoutMs} ms (waiting for ${this.phase})`,
      );
    }
    if (error instanceof ProviderError) return error;
    const code = errorCode(error);
    if (code === 'UND_ERR_CONNECT_TIMEOUT')
      return new ProviderConnectionError('timeout', `Upstream timed out (${code})`);
    if (code !== undefined && UNDICI_TIMEOUT_CODES.has(code)) {
      return new ProviderError('timeout', `Upstream timed out (${code})`);
    }
    const detail = error instanceof Error ? error.message : String(error);
    // the client learns that the connection failed, not where it went (addresses stay in the logs)
    return new ProviderConnectionError(
      'upstream',
      `${context}: the provider could not be reached${code !== undefined ? ` (${code})` : ''}`,
      undefined,
      undefined,
      undefined,
      `${context}: ${code ?? ''} ${detail}`.trim(),
    );
  }

  private abort(by: 'caller' | 'timeout'): void {
    if (this.abortedBy !== undefined) return;
    this.abortedBy = by;
    this.disarm();
    this.upstream.abort(by === 'caller' ? this.callerSignal?.reason : new Error('upstream deadline exceeded'));
  }
}
