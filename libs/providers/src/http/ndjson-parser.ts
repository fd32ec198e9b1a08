/**
 * Incremental newline-delimited JSON framing (one JSON value per line), for upstreams that stream
 * that way instead of Server-Sent Events. Each non-blank line becomes one event whose `data` is the
 * line, so adapters read both framings alike. Bytes may be split anywhere, including inside a
 * multi-byte UTF-8 sequence; a final line without a newline is still delivered at the end.
 */
import { SseEvent } from '../types';

export class NdjsonParser {
  private readonly decoder = new TextDecoder('utf-8');
  private pending = '';

  /** Feed raw bytes (or already decoded text); returns the lines completed by this input. */
  push(chunk: Uint8Array | string): SseEvent[] {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    return toEvents(lines);
  }

  /** Signal end of input; returns the last line if one is still pending. */
  end(): SseEvent[] {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    return toEvents([rest]);
  }
}

function toEvents(lines: string[]): SseEvent[] {
  const out: SseEvent[] = [];
  for (const raw of lines) {
    const line = raw.replace(/^\uFEFF/, '').trim();
    if (line !== '') out.push({ data: line });
  }
  return out;
}

/** Parse a complete NDJSON transcript (e.g. a recorded fixture) in one go. */
export function parseNdjsonText(text: string): SseEvent[] {
  const parser = new NdjsonParser();
  return [...parser.push(text), ...parser.end()];
}
