/**
 * Incremental Server-Sent Events parser (WHATWG "event stream interpretation"):
 * - bytes may be split anywhere, including inside a multi-byte UTF-8 sequence (a streaming
 *   TextDecoder keeps the partial sequence) and between the CR and LF of a CRLF;
 * - lines end with LF, CRLF or a lone CR;
 * - `:` lines are comments; `event`, `data` (multi-line, joined with "\n"), `id` are read;
 *   `retry` and unknown fields are ignored; one leading space after the colon is stripped;
 * - a blank line dispatches the event; an event without any `data` line is not dispatched.
 *
 * One deliberate leniency: at end of input a final event that was not followed by a blank line
 * is still dispatched (some OpenAI-compatible servers end with `data: [DONE]\n` only).
 */
import { SseEvent } from '../types';

const LF = 10;
const CR = 13;

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  /** text of the current, not yet terminated line */
  private line = '';
  /** the previous input ended with CR: a LF at the start of the next input belongs to it */
  private pendingCr = false;
  private started = false;
  private dataLines: string[] = [];
  private eventType: string | undefined;
  private eventId: string | undefined;

  /** Feed raw bytes (or already decoded text); returns the events completed by this input. */
  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    const events: SseEvent[] = [];
    this.consume(text, events);
    return events;
  }

  /** Signal end of input; returns the last event if one is still pending. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    this.consume(this.decoder.decode(), events);
    if (this.line !== '') {
      this.processLine(this.line, events);
      this.line = '';
    }
    this.dispatch(events);
    return events;
  }

  private consume(input: string, events: SseEvent[]): void {
    let text = input;
    if (text === '') return;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (this.pendingCr) {
      this.pendingCr = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== LF && code !== CR) continue;
      const line = this.line + text.slice(start, i);
      this.line = '';
      this.processLine(line, events);
      if (code === CR) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === LF) i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
    }
    this.line += text.slice(start);
  }

  private processLine(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.dispatch(events);
      return;
    }
    if (line.charCodeAt(0) === 0x3a /* ':' */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case 'data':
        this.dataLines.push(value);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\u0000')) this.eventId = value;
        break;
      default:
        break;
    }
  }

  private dispatch(events: SseEvent[]): void {
    if (this.dataLines.length > 0) {
      const event: SseEvent = { data: this.dataLines.join('\n') };
      if (this.eventType !== undefined && this.eventType !== '') event.event = this.eventType;
      if (this.eventId !== undefined) event.id = this.eventId;
      events.push(event);
    }
    this.dataLines = [];
    this.eventType = undefined;
    this.eventId = undefined;
  }
}

/** Parse a complete SSE transcript (e.g. a recorded fixture) in one go. */
export function parseSseText(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}
