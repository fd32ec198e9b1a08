/**
 * Incremental Server-Sent Events parsing on `eventsource-parser` (the WHATWG-conformant parser the
 * AI SDK uses; it gave identical events to the former hand-written parser on every recorded provider
 * stream, in 1-, 7- and 4096-byte slices — `sse-library.spec.ts`). This class adds what a socket
 * needs around it:
 * - bytes may be split anywhere, including inside a multi-byte UTF-8 sequence (a streaming
 *   TextDecoder keeps the partial sequence);
 * - one deliberate leniency: at end of input a final event that was not followed by a blank line
 *   is still dispatched (some OpenAI-compatible servers end with `data: [DONE]\n` only).
 */
import { createParser, EventSourceParser } from 'eventsource-parser';
import { SseEvent } from '../types';

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private ready: SseEvent[] = [];
  private started = false;
  private readonly parser: EventSourceParser = createParser({
    onEvent: (e) =>
      this.ready.push({ data: e.data, ...(e.event ? { event: e.event } : {}), ...(e.id ? { id: e.id } : {}) }),
  });

  /** Feed raw bytes (or already decoded text); returns the events completed by this input. */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a leading byte-order mark is not part of the stream
    }
    this.parser.feed(text);
    return this.take();
  }

  /** Signal end of input; returns the last event if one is still pending. */
  end(): SseEvent[] {
    this.parser.feed(this.decoder.decode());
    // terminate a final line and event the stream left open (the leniency above)
    this.parser.feed('\n\n');
    return this.take();
  }

  private take(): SseEvent[] {
    const out = this.ready;
    this.ready = [];
    return out;
  }
}

/** Parse a complete SSE transcript (e.g. a recorded fixture) in one go. */
export function parseSseText(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}
