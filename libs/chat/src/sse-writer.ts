import type { Response } from 'express';
import { OPEN_STREAM, StreamEvent } from './stream-events';

/** Server-Sent Events over an Express response, with back-pressure (waits for 'drain'). */
export class SseWriter {
  private started = false;

  constructor(private readonly res: Response) {}

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

  /** `event: <name>` + `data: <json>`. */
  event(name: string, payload: unknown): Promise<void> {
    return this.write(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
  }

  /** One event as the streaming services yield it. */
  send(e: StreamEvent): Promise<void> {
    return e.event === undefined ? this.data(e.data) : this.event(e.event, e.data);
  }

  /** Writes every event (headers with the first one) and ends the response. An error after the first event goes in-band via `inBandError`. */
  async pipe(events: AsyncIterable<StreamEvent>, inBandError: (err: unknown) => StreamEvent): Promise<void> {
    try {
      for await (const e of events) {
        this.start();
        if (e !== OPEN_STREAM) await this.send(e);
      }
    } catch (err) {
      if (!this.started) throw err;
      await this.send(inBandError(err));
    }
    this.end();
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
