/**
 * Plain node:http plumbing shared by the fake upstream servers (test-only).
 * Records every request, tracks client disconnects and plays scenarios (delays, faults, SSE).
 */
import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { ChatScenario, HttpFault, JsonObject, StreamErrorFault, UsageSpec, asObject } from './scenario';

export interface RecordedRequest {
  method: string;
  /** pathname only, e.g. '/v1/chat/completions' */
  path: string;
  /** pathname + query string as received */
  url: string;
  query: Record<string, string>;
  /** lower-cased header names, as node:http gives them */
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** parsed JSON body when it was a JSON object, else {} (see `jsonError`) */
  body: JsonObject;
  /** set when a non-empty body was not a JSON object */
  jsonError?: string;
  receivedAt: number;
  /** the scenario that answered (undefined for auth / validation / listing / 404 answers) */
  scenario?: ChatScenario;
  /** the usage the fake reported for this request, when it reported one */
  usage?: UsageSpec;
}

/** A complete (non-streamed) HTTP answer. */
export interface WireReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function jsonReply(status: number, body: unknown, headers: Record<string, string> = {}): WireReply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** One request/response pair in flight. */
export class Exchange {
  /** the response is over (finished, reset, or the client went away) */
  closed = false;
  /** the client closed the connection before the response was complete */
  clientGone = false;
  private serverAborted = false;
  private readonly closeListeners = new Set<() => void>();

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    onClientDisconnect: () => void,
  ) {
    res.on('error', () => undefined);
    req.on('error', () => undefined);
    res.on('close', () => {
      this.closed = true;
      if (!res.writableFinished && !this.serverAborted) {
        this.clientGone = true;
        onClientDisconnect();
      }
      for (const l of this.closeListeners) l();
      this.closeListeners.clear();
    });
  }

  /** Resolves after `ms`, or earlier when the exchange closes. */
  sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.closeListeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.closeListeners.add(done);
    });
  }

  /** Resolves when the exchange closes (client disconnect or server close). */
  untilClosed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => this.closeListeners.add(resolve));
  }

  send(reply: WireReply): void {
    if (this.closed) return;
    this.res.writeHead(reply.status, { ...reply.headers, 'content-length': String(Buffer.byteLength(reply.body)) });
    this.res.end(reply.body);
  }

  writeHead(status: number, headers: Record<string, string>): void {
    if (this.closed) return;
    this.res.writeHead(status, headers);
    this.res.flushHeaders();
  }

  write(chunk: string | Buffer): void {
    if (!this.closed) this.res.write(chunk);
  }

  end(chunk?: string | Buffer): void {
    if (this.closed) return;
    if (chunk === undefined) this.res.end();
    else this.res.end(chunk);
  }

  /** Server-side connection reset (not counted as a client disconnect). */
  destroy(): void {
    this.serverAborted = true;
    this.req.socket.destroy();
  }
}

interface Waiter {
  ready: () => boolean;
  resolve: () => void;
}

/** Listening, recording, disconnect tracking. */
export abstract class FakeHttpServer {
  readonly requests: RecordedRequest[] = [];
  private server?: Server;
  private address = '';
  private disconnectCount = 0;
  private readonly waiters = new Set<Waiter>();
  private readonly exchanges = new Set<Exchange>();

  /** e.g. 'http://127.0.0.1:43123' (no trailing slash) */
  get baseUrl(): string {
    return this.address;
  }

  /** how many times a client closed the connection before the response was complete */
  get disconnects(): number {
    return this.disconnectCount;
  }

  get lastRequest(): RecordedRequest | undefined {
    return this.requests[this.requests.length - 1];
  }

  /** Recorded requests whose pathname matches. */
  requestsTo(path: string | RegExp): RecordedRequest[] {
    return this.requests.filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path)));
  }

  /** Resolves once `disconnects >= count`; rejects after `timeoutMs`. */
  waitForDisconnect(count = 1, timeoutMs = 5000): Promise<void> {
    return this.waitUntil(
      () => this.disconnectCount >= count,
      timeoutMs,
      () => `${count} client disconnect(s), saw ${this.disconnectCount}`,
    );
  }

  /** Resolves once `requests.length >= count`; rejects after `timeoutMs`. */
  waitForRequests(count = 1, timeoutMs = 5000): Promise<void> {
    return this.waitUntil(
      () => this.requests.length >= count,
      timeoutMs,
      () => `${count} request(s), saw ${this.requests.length}`,
    );
  }

  /** Forget recorded requests and the disconnect counter. Subclasses also drop their scripts. */
  reset(): void {
    this.requests.length = 0;
    this.disconnectCount = 0;
  }

  /** Stops listening and destroys every open connection (hanging streams included). */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  protected async listen(): Promise<void> {
    const server = createServer((req, res) => {
      void this.dispatch(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    this.server = server;
    this.address = `http://127.0.0.1:${port}`;
  }

  /** Handle one recorded request. Exceptions become a plain 500 (a bug in the fake or the test). */
  protected abstract handle(rec: RecordedRequest, ex: Exchange): Promise<void>;

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      url: req.url ?? '/',
      query: Object.fromEntries(url.searchParams.entries()),
      headers: req.headers,
      rawBody,
      body: {},
      receivedAt: Date.now(),
    };
    if (rawBody.length > 0) {
      try {
        const parsed: unknown = JSON.parse(rawBody);
        const obj = asObject(parsed);
        if (obj) rec.body = obj;
        else rec.jsonError = 'body is JSON but not an object';
      } catch (e) {
        rec.jsonError = e instanceof Error ? e.message : String(e);
      }
    }
    const ex = new Exchange(req, res, () => {
      this.disconnectCount++;
      this.notify();
    });
    this.exchanges.add(ex);
    this.requests.push(rec);
    this.notify();
    try {
      await this.handle(rec, ex);
    } catch (e) {
      if (!res.headersSent && !ex.closed) {
        ex.send({
          status: 500,
          headers: { 'content-type': 'text/plain' },
          body: `fake server bug: ${e instanceof Error ? e.stack : String(e)}`,
        });
      } else if (!ex.closed) {
        ex.destroy();
      }
    } finally {
      this.exchanges.delete(ex);
    }
  }

  private notify(): void {
    for (const w of this.waiters) {
      if (w.ready()) {
        this.waiters.delete(w);
        w.resolve();
      }
    }
  }

  private waitUntil(ready: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        ready,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

// ---------------------------------------------------------------------------------------------

/** What a scripted answer looks like before faults/delays are applied. */
export type Plan =
  | { kind: 'json'; reply: WireReply }
  | {
      kind: 'sse';
      headers: Record<string, string>;
      frames: string[];
      /** index of the first terminal frame (finish / message_delta / last chunk) */ terminalFrom: number;
    };

/** How one provider spells its faults. */
export interface FaultDialect {
  errorReply(fault: HttpFault): WireReply;
  streamErrorFrame(fault: StreamErrorFault): string;
  /** default status for a stream-error fault */
  streamErrorStatus: number;
  malformedFrame(): string;
  invalidJsonBody(): string;
}

/** Adds the scenario queue and the scenario player. */
export abstract class ScriptedFake extends FakeHttpServer {
  private queue: ChatScenario[] = [];
  private fallback?: ChatScenario;
  private counter = 0;

  /** Queue scenarios for the next requests (FIFO; a scenario with `route` waits for a request of that route). */
  enqueue(...scenarios: ChatScenario[]): this {
    this.queue.push(...scenarios);
    return this;
  }

  /** Scenario used when the queue has nothing for a request (undefined: echo default). */
  setDefault(scenario?: ChatScenario): this {
    this.fallback = scenario;
    return this;
  }

  /** number of queued scenarios not yet consumed */
  get pending(): number {
    return this.queue.length;
  }

  override reset(): void {
    super.reset();
    this.queue = [];
    this.fallback = undefined;
  }

  protected take(route: 'chat' | 'embeddings' | 'images'): ChatScenario {
    const i = this.queue.findIndex((s) => s.route === undefined || s.route === route);
    if (i >= 0) return this.queue.splice(i, 1)[0];
    return this.fallback ?? {};
  }

  /** 'fake000001', 'fake000002', … (deterministic per server instance) */
  protected nextId(): string {
    this.counter++;
    return `fake${String(this.counter).padStart(6, '0')}`;
  }

  /** Play `plan` under the scenario's delays and faults. */
  protected async play(ex: Exchange, scenario: ChatScenario, plan: Plan, dialect: FaultDialect): Promise<void> {
    await ex.sleep(scenario.delayMs ?? 0);
    if (ex.closed) return;
    const fault = scenario.fault;

    if (fault?.kind === 'reset') return ex.destroy();
    if (fault?.kind === 'http') return ex.send(dialect.errorReply(fault));
    if (fault?.kind === 'invalid-json')
      return ex.send({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: fault.raw ?? dialect.invalidJsonBody(),
      });

    if (plan.kind === 'json') {
      if (scenario.hang) return ex.untilClosed();
      if (fault?.kind === 'malformed-sse')
        return ex.send({
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: fault.raw ?? dialect.invalidJsonBody(),
        });
      if (fault?.kind === 'stream-error') {
        return ex.send(
          dialect.errorReply({
            kind: 'http',
            status: fault.status ?? dialect.streamErrorStatus,
            errorType: fault.errorType,
            message: fault.message,
          }),
        );
      }
      const reply = { ...plan.reply, headers: { ...plan.reply.headers, ...scenario.headers } };
      if (fault?.kind === 'reset-mid-stream') {
        const bytes = Buffer.from(reply.body);
        ex.writeHead(reply.status, { ...reply.headers, 'content-length': String(bytes.length) });
        ex.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
        await ex.sleep(20);
        return ex.destroy();
      }
      return ex.send(reply);
    }

    ex.writeHead(200, { ...plan.headers, ...scenario.headers });
    await ex.sleep(scenario.firstChunkDelayMs ?? 0);

    let count = plan.frames.length;
    if (fault?.kind === 'reset-mid-stream') count = fault.afterChunks ?? Math.min(2, plan.frames.length);
    else if (fault?.kind === 'malformed-sse' || fault?.kind === 'stream-error')
      count = fault.afterChunks ?? Math.min(1, plan.frames.length);
    else if (scenario.hang) count = typeof scenario.hang === 'object' ? scenario.hang.afterChunks : plan.terminalFrom;
    count = Math.max(0, Math.min(count, plan.frames.length));

    for (let i = 0; i < count; i++) {
      if (i > 0) await ex.sleep(scenario.chunkDelayMs ?? 0);
      if (ex.closed) return;
      ex.write(plan.frames[i]);
    }
    if (ex.closed) return;

    switch (fault?.kind) {
      case 'reset-mid-stream':
        await ex.sleep(20); // let the written events reach the client first
        return ex.destroy();
      case 'malformed-sse':
        await ex.sleep(scenario.chunkDelayMs ?? 0);
        return ex.end(fault.raw ?? dialect.malformedFrame());
      case 'stream-error':
        await ex.sleep(scenario.chunkDelayMs ?? 0);
        return ex.end(dialect.streamErrorFrame(fault));
      default:
        if (scenario.hang) return ex.untilClosed();
        return ex.end();
    }
  }
}

/** `retry-after` header value for an HTTP fault (429 defaults to '1'). */
export function retryAfterHeader(fault: HttpFault): Record<string, string> {
  const value = fault.retryAfter === undefined ? (fault.status === 429 ? 1 : null) : fault.retryAfter;
  return value === null ? {} : { 'retry-after': String(value) };
}
