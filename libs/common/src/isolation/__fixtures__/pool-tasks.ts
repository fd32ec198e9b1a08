/** Tasks for the ParserPool tests, run inside its workers. */
import { getHeapStatistics } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { releaseWorkerMemory } from '../worker-memory';

export function echo(bytes: Buffer, hint: { n: number }) {
  return { threadId, isBuffer: Buffer.isBuffer(bytes), text: bytes.toString('utf8'), n: hint.n };
}

export function spin(): never {
  for (;;) {
    /* never yields */
  }
}

export function hog(): number {
  const keep: unknown[][] = [];
  for (;;) keep.push(new Array(100_000).fill(keep.length));
}

export function fail(): never {
  throw Object.assign(new Error('the format is wrong'), { name: 'FormatError', code: 'bad_format' });
}

export function recurse(n = 0): number {
  return recurse(n + 1) + 1;
}

export function exit(): never {
  process.exit(3);
}

export async function slow(ms: number): Promise<number> {
  await new Promise((r) => setTimeout(r, ms));
  return threadId;
}

/** Heap in use after dropping ~80 MB of garbage, without and with releaseWorkerMemory. */
export function garbage(): { before: number; left: number; released: number; hidden: boolean } {
  const used = () => getHeapStatistics().used_heap_size;
  const before = used();
  const drop = () => {
    let junk: number[][] | null = [];
    for (let i = 0; i < 100; i++) junk.push(Array.from({ length: 100_000 }, (_, j) => j + 0.5));
    junk = null;
    return junk;
  };
  drop();
  const left = used();
  releaseWorkerMemory();
  const released = used();
  return { before, left, released, hidden: typeof (globalThis as { gc?: unknown }).gc === 'undefined' };
}

/** Grows the heap past 128 MB with live data while it runs; answers its thread. */
export function grow(): number {
  const keep: number[][] = [];
  for (let i = 0; i < 250; i++) keep.push(Array.from({ length: 100_000 }, (_, j) => j + 0.5));
  return keep.length > 0 ? threadId : -1;
}

export function thread(): number {
  return threadId;
}

export function limited(): never {
  throw Object.assign(new Error('stopped for time'), { name: 'ExtractionError', code: 'limit', retryable: true });
}
