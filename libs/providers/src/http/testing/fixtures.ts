/** Test-only helpers: read recorded wire examples from an adapter's `__fixtures__/` folder and replay them. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CanonicalChatChunk, ChatAdapter, ProviderError, SseEvent } from '../../types';
import { NdjsonParser } from '../ndjson-parser';
import { SseParser } from '../sse-parser';

export function readFixtureText(dir: string, name: string): string {
  return readFileSync(join(dir, '__fixtures__', name), 'utf8');
}

export function readJsonFixture(dir: string, name: string): unknown {
  return JSON.parse(readFixtureText(dir, name)) as unknown;
}

/** Parse an `.sse` transcript byte by byte in small slices, the way it would arrive off a socket. */
export function readSseFixture(dir: string, name: string, sliceBytes = 7): SseEvent[] {
  const bytes = readFileSync(join(dir, '__fixtures__', name));
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (let i = 0; i < bytes.length; i += sliceBytes) events.push(...parser.push(bytes.subarray(i, i + sliceBytes)));
  events.push(...parser.end());
  return events;
}

/** Parse an `.ndjson` transcript (one JSON object per line) in small byte slices, as it would arrive off a socket. */
export function readNdjsonFixture(dir: string, name: string, sliceBytes = 7): SseEvent[] {
  const bytes = readFileSync(join(dir, '__fixtures__', name));
  const parser = new NdjsonParser();
  const events: SseEvent[] = [];
  for (let i = 0; i < bytes.length; i += sliceBytes) events.push(...parser.push(bytes.subarray(i, i + sliceBytes)));
  events.push(...parser.end());
  return events;
}

/** Map every event of a transcript through an adapter, then flush: the chunks a client would see. */
export function replayStream<S>(
  adapter: ChatAdapter<S>,
  events: SseEvent[],
  requestedModel: string,
  nowMs: number,
): CanonicalChatChunk[] {
  const state = adapter.createStreamState(requestedModel, nowMs);
  const chunks = events.flatMap((event) => adapter.mapStreamEvent(event, state));
  return [...chunks, ...(adapter.flush ? adapter.flush(state) : [])];
}

export interface ProviderErrorFields {
  kind: string;
  message: string;
  upstreamStatus: number | undefined;
  retryAfterSeconds: number | undefined;
  param: string | null | undefined;
}

export function errorFields(error: unknown): ProviderErrorFields {
  if (!(error instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return {
    kind: error.kind,
    message: error.message,
    upstreamStatus: error.upstreamStatus,
    retryAfterSeconds: error.retryAfterSeconds,
    param: error.param,
  };
}

/** Run fn, expect it to throw a ProviderError, return its fields for an exact comparison. */
export function thrownFields(fn: () => unknown): ProviderErrorFields {
  try {
    fn();
  } catch (error) {
    return errorFields(error);
  }
  throw new Error('expected a ProviderError to be thrown');
}
