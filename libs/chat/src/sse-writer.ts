import type { Response } from 'express';
import type { EventStream, SseEvent } from './event-stream';

/**
 * Server-Sent Events over an Express response, with back-pressure (waits for 'drain'). The one
 * place that writes SSE: controllers hand a service's EventStream to `SseWriter.pipe`.
 */
export class SseWriter {
  private started = false;

  constructor(private readonly res: Response) {}

  /**
   * Writes every event of `stream` (the status line and `stream.headers` with the first one), then
   * ends the response. An error before the first event propagates untouched (the exception filter
   * answers it as a plain HTTP error); after it the service already put its error in-band. When the
   * client goes away the iteration stops: the producer's cleanup aborts the upstream and bills what
   * was delivered (the caller's abort signal, from clientAbortSignal, fires as well).
   */
  static async pipe(res: Response, stream: EventStream<SseEvent>): Promise<void> {
    const sse = new SseWriter(res);
    try {
      for await (const e of stream.events) {
        if (res.destroyed || res.writableEnded) break;
        sse.start(stream.headers);
        await (e.event !== undefined ? sse.event(e.event, e.data) : sse.data(e.data));
      }
      // no event at all: nothing to say, but never leave the response open
      if (!res.destroyed) sse.start(stream.headers);
    } finally {
      if (sse.isStarted) sse.end();
    }
  }

  get isStarted(): boolean {
    return this.started;
  }

  start(extraHeaders: Record<string, string> = {}): void {
    if (this.started) return;
    this.started = true;
    this.res.status(200);
    this.res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('cache-control', 'no-cache, no-transform');
    this.res.setHeader('connection', 'keep-alive');
    this.res.setHeader('x-accel-buffering', 'no');
    for (const [k, v] of Object.entries(extraHeaders)) this.res.setHeader(k, v);
    this.res.flushHeaders();
  }

  /** `data: <json>` (OpenAI style, no event name). */
  data(payload: unknown): Promise<void> {
    return this.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
  }

  /** `event: <name>` + `data: <json>` (a string payload as is). */
  event(name: string, payload: unknown): Promise<void> {
    return this.write(`event: ${name}\ndata: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }

  private write(text: string): Promise<void> {
    if (this.res.writableEnded || this.res.destroyed) return Promise.resolve();
    if (this.res.write(text)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.once('drain', done);
      this.res.once('close', done);
    });
  }
}

/** An AbortSignal that fires when the client goes away before the response finished. */
export function clientAbortSignal(res: Response): AbortSignal {
  const ac = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  return ac.signal;
}
