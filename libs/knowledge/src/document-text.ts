/**
 * A document's full text rebuilt from its stored chunks. Chunks are token windows that overlap
 * (knowledge's default chunking: 800 tokens, 400 overlap) and never span pages, so consecutive
 * chunks of one page are merged by removing the longest suffix of the text so far that the next
 * chunk starts with; pages are joined by a blank line.
 */

export interface OrderedChunk {
  ordinal: number;
  page: number | null;
  text: string;
}

export interface DocumentText {
  text: string;
  pages: { page: number | null; text: string }[];
}

/** Overlaps shorter than this are treated as coincidence (a shared word), not as chunk overlap. */
export const MIN_OVERLAP_CHARS = 16;

/** Length of the longest suffix of `left` that is a prefix of `right` (KMP prefix function, O(n)). */
export function overlapLength(left: string, right: string): number {
  const n = Math.min(left.length, right.length);
  if (n === 0) return 0;
  const s = right.slice(0, n) + '\u0000' + left.slice(left.length - n);
  const pi = new Int32Array(s.length);
  for (let i = 1; i < s.length; i++) {
    let k = pi[i - 1];
    while (k > 0 && s[i] !== s[k]) k = pi[k - 1];
    if (s[i] === s[k]) k++;
    pi[i] = k;
  }
  return pi[s.length - 1];
}

export function mergeChunks(chunks: readonly OrderedChunk[]): DocumentText {
  const sorted = [...chunks].sort((a, b) => a.ordinal - b.ordinal);
  const pages: { page: number | null; text: string }[] = [];
  for (const c of sorted) {
    const last = pages[pages.length - 1];
    if (!last || last.page !== c.page) {
      pages.push({ page: c.page, text: c.text });
      continue;
    }
    const k = overlapLength(last.text, c.text);
    last.text = k >= MIN_OVERLAP_CHARS || k === c.text.length ? last.text + c.text.slice(k) : `${last.text}\n${c.text}`;
  }
  return { text: pages.map((p) => p.text).join('\n\n'), pages };
}
