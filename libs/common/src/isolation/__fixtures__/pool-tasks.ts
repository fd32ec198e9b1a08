/** Tasks for the ParserPool tests, run inside its workers. */
import { threadId } from 'node:worker_threads';

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
