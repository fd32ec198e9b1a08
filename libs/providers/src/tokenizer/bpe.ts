/**
 * Byte-pair encoder over js-tiktoken's rank data.
 *
 * Why not call `Tiktoken#encode` from js-tiktoken directly? Its merge loop rebuilds a joined string
 * for every adjacent pair on every step, which is quadratic per pre-tokenised piece: 20,000
 * repeated characters (one piece) take about 22 s, and 1 MB of such text would never finish.
 * User input can contain that (base64 blobs, long whitespace runs, "=====" separators), so this
 * module re-implements the same algorithm (identical output, checked against js-tiktoken in the
 * unit tests) with:
 *   - rank keys as "binary" strings (one char per UTF-8 byte) instead of `bytes.join(',')`;
 *   - a linked-list + min-heap merge for long pieces (O(n log n)), a simple scan for short ones;
 *   - a bounded cache of already merged pieces (words repeat a lot in real text).
 *
 * The token table itself lives outside the JavaScript heap (./rank-table).
 *
 * Behavioural choice: special tokens (e.g. `<|endoftext|>`) in the input are encoded as ordinary
 * text (tiktoken's `encode_ordinary`), never rejected and never turned into the special id. That
 * is what counting user-supplied text needs.
 */

import { RankTable } from './rank-table';

/** Rank data in js-tiktoken's format (`TiktokenBPE`). */
export interface BpeRankData {
  pat_str: string;
  special_tokens: Record<string, number>;
  bpe_ranks: string;
}

/** Pieces up to this many UTF-8 bytes are merged with the simple scan, longer ones with the heap. */
const SIMPLE_MERGE_MAX_BYTES = 256;
/** Merged pieces up to this length are cached. */
const CACHE_MAX_PIECE_LENGTH = 64;
/** Cache entries before the cache is cleared (cheap, bounded memory). */
const CACHE_MAX_ENTRIES = 100_000;

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}

/** UTF-8 bytes of `text` as a binary (latin1) string: one char per byte. */
function toBinary(text: string): string {
  return isAscii(text) ? text : Buffer.from(text, 'utf8').toString('latin1');
}

/** Removes an incomplete UTF-8 sequence from the end of a byte buffer (after truncating at a token boundary). */
export function trimIncompleteUtf8(bytes: Buffer): Buffer {
  const n = bytes.length;
  // Walk back over at most 3 continuation bytes to the lead byte of the last sequence.
  let i = n - 1;
  let continuation = 0;
  while (i >= 0 && continuation < 4 && (bytes[i] & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  if (i < 0) return bytes.subarray(0, 0);
  const lead = bytes[i];
  let expected: number;
  if (lead < 0x80) expected = 1;
  else if ((lead & 0xe0) === 0xc0) expected = 2;
  else if ((lead & 0xf0) === 0xe0) expected = 3;
  else if ((lead & 0xf8) === 0xf0) expected = 4;
  else return bytes; // invalid lead byte: leave as is, the decoder replaces it
  return continuation + 1 < expected ? bytes.subarray(0, i) : bytes;
}

export class BytePairEncoder {
  /** UTF-8 byte sequence → rank, and back (outside the JavaScript heap: RankTable) */
  private readonly table: RankTable;
  /** special tokens' bytes by rank, so that decode handles them */
  private readonly specialBytes = new Map<number, Buffer>();
  private readonly pattern: RegExp;
  /** piece (UTF-16 text) → its tokens, for pieces that needed a merge or a UTF-8 conversion */
  private readonly cache = new Map<string, readonly number[]>();

  constructor(data: BpeRankData) {
    this.pattern = new RegExp(data.pat_str, 'gu');
    const tokens: Buffer[] = [];
    const ranks: number[] = [];
    for (const line of data.bpe_ranks.split('\n')) {
      if (line.length === 0) continue;
      const fields = line.split(' ');
      // fields[0] is a marker ("!"), fields[1] the rank of the first token on the line
      const offset = Number.parseInt(fields[1], 10);
      for (let i = 2; i < fields.length; i++) {
        tokens.push(Buffer.from(fields[i], 'base64'));
        ranks.push(offset + i - 2);
      }
    }
    this.table = new RankTable(tokens, ranks);
    for (const [text, rank] of Object.entries(data.special_tokens)) {
      this.specialBytes.set(rank, Buffer.from(text, 'utf8'));
    }
  }

  /** Token ids of `text` (ordinary encoding). */
  encode(text: string): number[] {
    const out: number[] = [];
    this.run(text, out, Number.POSITIVE_INFINITY);
    return out;
  }

  /**
   * Token ids of `text`, stopping after the first piece that brings the total above `limit`
   * (so the result has at least `limit + 1` tokens whenever the text has more than `limit`).
   */
  encodeUpTo(text: string, limit: number): number[] {
    const out: number[] = [];
    this.run(text, out, limit);
    return out;
  }

  /** Number of tokens of `text`, without materialising the token array. */
  count(text: string): number {
    return this.run(text, null, Number.POSITIVE_INFINITY);
  }

  /** UTF-8 bytes of the given tokens. Throws RangeError on an unknown token id. */
  decodeBytes(tokens: readonly number[]): Buffer {
    let total = 0;
    for (let i = 0; i < tokens.length; i++) {
      const n = this.table.byteLength(tokens[i]) || this.specialBytes.get(tokens[i])?.length;
      if (n === undefined) throw new RangeError(`Unknown token id ${tokens[i]}`);
      total += n;
    }
    const out = Buffer.allocUnsafe(total);
    let at = 0;
    for (let i = 0; i < tokens.length; i++) {
      const n = this.table.byteLength(tokens[i]);
      if (n > 0) {
        this.table.copyTo(tokens[i], out, at);
        at += n;
      } else at += this.specialBytes.get(tokens[i])!.copy(out, at);
    }
    return out;
  }

  decode(tokens: readonly number[]): string {
    return this.decodeBytes(tokens).toString('utf8');
  }

  /** Splits with the encoding's pattern and encodes piece by piece; returns the token count. */
  private run(text: string, out: number[] | null, limit: number): number {
    const re = this.pattern;
    re.lastIndex = 0;
    let total = 0;
    let match: RegExpExecArray | null;
    while ((match = re.exec(text)) !== null) {
      const piece = match[0];
      if (piece.length === 0) {
        // defensive: the tiktoken patterns never match the empty string
        re.lastIndex++;
        continue;
      }
      total += this.encodePiece(piece, out);
      if (total > limit) break;
    }
    re.lastIndex = 0;
    return total;
  }

  private encodePiece(piece: string, out: number[] | null): number {
    const ascii = isAscii(piece);
    if (ascii) {
      const direct = this.table.rank(piece, 0, piece.length);
      if (direct >= 0) {
        if (out !== null) out.push(direct);
        return 1;
      }
    }
    let tokens = this.cache.get(piece);
    if (tokens === undefined) {
      const bytes = ascii ? piece : toBinary(piece);
      const direct = ascii ? -1 : this.table.rank(bytes, 0, bytes.length);
      tokens = direct >= 0 ? [direct] : this.merge(bytes);
      if (piece.length <= CACHE_MAX_PIECE_LENGTH) {
        if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
        this.cache.set(piece, tokens);
      }
    }
    if (out !== null) {
      for (let i = 0; i < tokens.length; i++) out.push(tokens[i]);
    }
    return tokens.length;
  }

  /** Byte-pair merge of one piece (binary string): repeatedly merge the lowest-ranked adjacent pair, leftmost first. */
  private merge(bytes: string): number[] {
    if (bytes.length === 1) {
      const rank = this.table.rank(bytes, 0, 1);
      return rank < 0 ? [] : [rank];
    }
    return bytes.length <= SIMPLE_MERGE_MAX_BYTES ? this.mergeSimple(bytes) : this.mergeHeap(bytes);
  }

  private rankOf(bytes: string, start: number, end: number): number {
    const rank = this.table.rank(bytes, start, end);
    return rank < 0 ? Number.POSITIVE_INFINITY : rank;
  }

  /** O(n²) scan, fastest for the short pieces of ordinary text. */
  private mergeSimple(bytes: string): number[] {
    const n = bytes.length;
    // boundaries[i] = start of part i; boundaries[parts] = n
    const boundaries: number[] = new Array<number>(n + 1);
    for (let i = 0; i <= n; i++) boundaries[i] = i;
    // pairRanks[i] = rank of part i merged with part i + 1
    const pairRanks: number[] = new Array<number>(n - 1);
    for (let i = 0; i < n - 1; i++) pairRanks[i] = this.rankOf(bytes, i, i + 2);

    while (pairRanks.length > 0) {
      let best = Number.POSITIVE_INFINITY;
      let at = -1;
      for (let i = 0; i < pairRanks.length; i++) {
        if (pairRanks[i] < best) {
          best = pairRanks[i];
          at = i;
        }
      }
      if (at < 0) break;
      boundaries.splice(at + 1, 1);
      pairRanks.splice(at, 1);
      if (at < pairRanks.length) pairRanks[at] = this.rankOf(bytes, boundaries[at], boundaries[at + 2]);
      if (at > 0) pairRanks[at - 1] = this.rankOf(bytes, boundaries[at - 1], boundaries[at + 1]);
    }

    const tokens: number[] = [];
    for (let i = 0; i + 1 < boundaries.length; i++) {
      const rank = this.table.rank(bytes, boundaries[i], boundaries[i + 1]);
      if (rank >= 0) tokens.push(rank);
    }
    return tokens;
  }

  /**
   * O(n log n) merge for long pieces. Parts are identified by their start offset; `next[i]` is the
   * start of the following part (n = none), so part i spans [i, next[i]). Heap entries are
   * (rank, left start, pair end) ordered by rank then left start (= leftmost on ties, as tiktoken);
   * an entry is stale unless part i is still alive and its pair still ends at the stored end.
   */
  private mergeHeap(bytes: string): number[] {
    const n = bytes.length;
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    const alive = new Uint8Array(n).fill(1);
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    const heap = new PairHeap();
    for (let i = 0; i + 1 < n; i++) {
      const rank = this.table.rank(bytes, i, i + 2);
      if (rank >= 0) heap.push(rank, i, i + 2);
    }
    while (heap.size > 0) {
      const i = heap.topLeft();
      const end = heap.topEnd();
      heap.pop();
      if (alive[i] === 0) continue;
      const j = next[i];
      if (j >= n || next[j] !== end) continue;
      // part i absorbs part j
      alive[j] = 0;
      next[i] = end;
      if (end < n) prev[end] = i;
      if (end < n) {
        const pairEnd = next[end];
        const rank = this.table.rank(bytes, i, pairEnd);
        if (rank >= 0) heap.push(rank, i, pairEnd);
      }
      const p = prev[i];
      if (p >= 0) {
        const rank = this.table.rank(bytes, p, end);
        if (rank >= 0) heap.push(rank, p, end);
      }
    }
    const tokens: number[] = [];
    for (let i = 0; i < n; i = next[i]) {
      const rank = this.table.rank(bytes, i, next[i]);
      if (rank >= 0) tokens.push(rank);
    }
    return tokens;
  }
}

/** Binary min-heap of (rank, left, end) ordered by rank, then left. */
class PairHeap {
  private ranks: number[] = [];
  private lefts: number[] = [];
  private ends: number[] = [];

  get size(): number {
    return this.ranks.length;
  }

  topLeft(): number {
    return this.lefts[0];
  }

  topEnd(): number {
    return this.ends[0];
  }

  push(rank: number, left: number, end: number): void {
    let i = this.ranks.length;
    this.ranks.push(rank);
    this.lefts.push(left);
    this.ends.push(end);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): void {
    const last = this.ranks.length - 1;
    if (last > 0) this.swap(0, last);
    this.ranks.pop();
    this.lefts.pop();
    this.ends.pop();
    const size = this.ranks.length;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < size && this.less(l, smallest)) smallest = l;
      if (r < size && this.less(r, smallest)) smallest = r;
      if (smallest === i) break;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private less(a: number, b: number): boolean {
    return this.ranks[a] < this.ranks[b] || (this.ranks[a] === this.ranks[b] && this.lefts[a] < this.lefts[b]);
  }

  private swap(a: number, b: number): void {
    const r = this.ranks[a];
    this.ranks[a] = this.ranks[b];
    this.ranks[b] = r;
    const l = this.lefts[a];
    this.lefts[a] = this.lefts[b];
    this.lefts[b] = l;
    const e = this.ends[a];
    this.ends[a] = this.ends[b];
    this.ends[b] = e;
  }
}
