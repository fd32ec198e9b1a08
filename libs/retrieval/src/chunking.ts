/**
 * Plain-text chunking for rerank: 1000 characters with 200 of overlap (docs/decisions/rerank-text-chunks.md).
 *
 * Windows of `size` characters start at 0, size − overlap, 2·(size − overlap), … (0, 800, 1600, …
 * by default) and chunking stops at the first window that reaches the end of the text, so the last
 * window may be shorter and no window is entirely contained in the previous one. A text of at most
 * `size` characters is a single chunk; the empty text has no chunks.
 *
 * "Characters" are Unicode code points, not UTF-16 code units, so a surrogate pair (emoji, rare
 * CJK) is never split; `start`/`end` are code-point offsets (end exclusive). For text without
 * astral characters the two coincide.
 */

export const CHUNK_SIZE = 1000;
export const CHUNK_OVERLAP = 200;

export interface TextChunk {
  /** 0-based position of the chunk */
  index: number;
  /** code-point offset of the first character (inclusive) */
  start: number;
  /** code-point offset after the last character (exclusive) */
  end: number;
  text: string;
}

export interface ChunkOptions {
  size?: number;
  overlap?: number;
}

/** Code-point windows [start, end) in order; see the module comment. */
export function chunkWindows(length: number, size = CHUNK_SIZE, overlap = CHUNK_OVERLAP): Array<[number, number]> {
  if (!Number.isInteger(size) || size <= 0) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new RangeError(`chunk overlap must be an integer in [0, size), got ${overlap}`);
  }
  const windows: Array<[number, number]> = [];
  if (length <= 0) return windows;
  const step = size - overlap;
  for (let start = 0; ; start += step) {
    const end = Math.min(start + size, length);
    windows.push([start, end]);
    if (end === length) break;
  }
  return windows;
}

export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
  const size = options.size ?? CHUNK_SIZE;
  const overlap = options.overlap ?? CHUNK_OVERLAP;
  // Fast path: no surrogate code units → code points are UTF-16 units, slice directly.
  if (!/[\uD800-\uDFFF]/.test(text)) {
    return chunkWindows(text.length, size, overlap).map(([start, end], index) => ({
      index,
      start,
      end,
      text: text.slice(start, end),
    }));
  }
  const points = Array.from(text);
  return chunkWindows(points.length, size, overlap).map(([start, end], index) => ({
    index,
    start,
    end,
    text: points.slice(start, end).join(''),
  }));
}
