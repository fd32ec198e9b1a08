/**
 * Vectors of one knowledge base, decoded once into one contiguous Float32Array (row-major,
 * L2-normalised) so a search is a single pass of dot products. Little-endian Float32 bytes are the
 * storage form (`bytea` / `blob`).
 */
import { endianness } from 'node:os';
/** Float32Array's own byte order is the platform's: on little-endian machines a copy of its bytes is the encoding. */
const LITTLE_ENDIAN = endianness() === 'LE';

export function encodeVector(v: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
  const out = Buffer.allocUnsafe(v.length * 4);
  for (let i = 0; i < v.length; i++) out.writeFloatLE(v[i], i * 4);
  return out;
}

export function decodeVector(b: Buffer): Float32Array {
  if (LITTLE_ENDIAN) return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
  const out = new Float32Array(b.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(i * 4);
  return out;
}

/** Dimensions of the coarse pass over large indexes (see VectorIndex.nearest). */
export const COARSE_DIMS = 384;

/**
 * Up to this many rows a search scores every row exactly in one pass (≈ 30 ms at 1536 dimensions);
 * the specification's 100 documents per knowledge base always are.
 */
export const EXACT_MAX_ROWS = 20_000;

export interface IndexedRow {
  id: number;
  documentId: string;
  contentHash: string;
  embedding: Buffer;
}

export class VectorIndex {
  readonly ids: number[];
  readonly documentIds: string[];
  readonly hashes: string[];
  private readonly matrix: Float32Array;
  private positions?: Map<number, number>;
  private tails?: Float32Array;

  constructor(
    readonly revision: number,
    readonly dimensions: number,
    rows: IndexedRow[],
  ) {
    this.ids = rows.map((r) => r.id);
    this.documentIds = rows.map((r) => r.documentId);
    this.hashes = rows.map((r) => r.contentHash);
    this.matrix = new Float32Array(rows.length * dimensions);
    rows.forEach((r, i) => {
      const v = decodeVector(r.embedding);
      if (v.length !== dimensions) throw new Error(`chunk ${r.id}: ${v.length} dimensions, expected ${dimensions}`);
      let norm = 0;
      for (let j = 0; j < dimensions; j++) norm += v[j] * v[j];
      const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      const o = i * dimensions;
      for (let j = 0; j < dimensions; j++) this.matrix[o + j] = v[j] * inv;
    });
  }

  get size(): number {
    return this.ids.length;
  }

  get bytes(): number {
    return this.matrix.byteLength + this.ids.length * 96;
  }

  /** Row position of a chunk id, or undefined when the index does not hold it. */
  rowOf(id: number): number | undefined {
    if (!this.positions) this.positions = new Map(this.ids.map((v, i) => [v, i]));
    return this.positions.get(id);
  }

  /**
   * The `k` rows most similar to the query, best first (ties by position), with their exact cosine —
   * the same answer whatever the index size, so the first k rows never depend on `k`. Up to
   * `exactRows` rows (EXACT_MAX_ROWS) every row is scored in one pass; above, see `pruned`.
   */
  nearest(query: Float32Array, k: number, exactRows = EXACT_MAX_ROWS): Array<{ row: number; score: number }> {
    if (this.ids.length <= exactRows || this.dimensions < COARSE_DIMS * 2) {
      const all = this.scores(query);
      return VectorIndex.topK(all, k).map((row) => ({ row, score: all[row] }));
    }
    return this.pruned(query, k);
  }

  /**
   * Exact top k in two passes that cannot lose a top row: a coarse pass over the first COARSE_DIMS
   * dimensions of every row gives an upper bound of its cosine (prefix dot product + the norms of the
   * row's and the query's remaining dimensions, Cauchy–Schwarz); rows are then scored exactly in
   * decreasing bound order until the k-th best exact cosine exceeds the next row's bound.
   */
  private pruned(query: Float32Array, k: number): Array<{ row: number; score: number }> {
    const n = this.ids.length;
    const d = this.dimensions;
    if (k <= 0) return [];
    let head = 0;
    let norm = 0;
    for (let j = 0; j < d; j++) {
      norm += query[j] * query[j];
      if (j === COARSE_DIMS - 1) head = norm;
    }
    const full = Math.sqrt(norm);
    if (full === 0) return VectorIndex.topK(new Float32Array(n), k).map((row) => ({ row, score: 0 }));
    const prefix = this.scores(query, COARSE_DIMS);
    const rest = this.tailNorms();
    const qTail = Math.sqrt(Math.max(0, norm - head));
    const bound = new Float64Array(n);
    // float32 prefix scores and rounding in the dot products: a margin far above their error
    for (let i = 0; i < n; i++) bound[i] = (prefix[i] * Math.sqrt(head) + rest[i] * qTail) / full + 1e-5;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => bound[b] - bound[a] || a - b);
    const scored: Array<{ row: number; score: number }> = [];
    const kth = new MinHeap(k);
    for (const row of order) {
      if (kth.full && kth.min > bound[row]) break;
      const score = this.exactRow(query, row, full);
      scored.push({ row, score });
      kth.push(score);
    }
    return scored.sort((a, b) => b.score - a.score || a.row - b.row).slice(0, k);
  }

  /** Norm of each (normalised) row's dimensions after the coarse prefix. */
  private tailNorms(): Float32Array {
    if (this.tails) return this.tails;
    const d = this.dimensions;
    const out = new Float32Array(this.ids.length);
    for (let i = 0, o = 0; i < out.length; i++, o += d) {
      let s = 0;
      for (let j = COARSE_DIMS; j < d; j++) s += this.matrix[o + j] * this.matrix[o + j];
      out[i] = Math.sqrt(s);
    }
    return (this.tails = out);
  }

  /** Exact cosine of the query with the given rows (rows are pre-normalised). */
  cosines(query: Float32Array, rows: readonly number[]): Array<[number, number]> {
    let norm = 0;
    for (let j = 0; j < this.dimensions; j++) norm += query[j] * query[j];
    return rows.map((row) => [row, this.exactRow(query, row, Math.sqrt(norm))]);
  }

  /** One row's cosine, summed and rounded exactly as `scores` does (so both give equal values). */
  private exactRow(query: Float32Array, row: number, queryNorm: number): number {
    const inv = queryNorm > 0 ? 1 / queryNorm : 0;
    return Math.fround(this.dot(query, row * this.dimensions, this.dimensions) * inv);
  }

  /** Dot product of the query's first `used` dimensions with the row at offset `o`. */
  private dot(q: Float32Array, o: number, used: number): number {
    const m = this.matrix;
    const tail = used & 3;
    // four accumulators: independent adds the JIT can pipeline
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let j = 0;
    for (; j < used - tail; j += 4) {
      a0 += m[o + j] * q[j];
      a1 += m[o + j + 1] * q[j + 1];
      a2 += m[o + j + 2] * q[j + 2];
      a3 += m[o + j + 3] * q[j + 3];
    }
    for (; j < used; j++) a0 += m[o + j] * q[j];
    return a0 + a1 + a2 + a3;
  }

  /** Cosine similarity of the query with every row (rows are pre-normalised); `dims` < all: a prefix dot product. */
  scores(query: Float32Array, dims = this.dimensions): Float32Array {
    const d = this.dimensions;
    const used = Math.min(dims, d);
    let norm = 0;
    for (let j = 0; j < used; j++) norm += query[j] * query[j];
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const out = new Float32Array(this.ids.length);
    for (let i = 0, o = 0; i < out.length; i++, o += d) out[i] = this.dot(query, o, used) * inv;
    return out;
  }

  /** Row positions of the `k` highest scores, best first (a bounded min-heap: O(n log k), no full sort). */
  static topK(scores: Float32Array, k: number): number[] {
    const heap: number[] = [];
    const less = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
    const up = (i: number) => {
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!less(heap[i], heap[p])) break;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    };
    const down = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l], heap[m])) m = l;
        if (r < heap.length && less(heap[r], heap[m])) m = r;
        if (m === i) return;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    };
    for (let i = 0; i < scores.length; i++) {
      if (heap.length < k) {
        heap.push(i);
        up(heap.length - 1);
      } else if (less(heap[0], i)) {
        heap[0] = i;
        down(0);
      }
    }
    return heap.sort((a, b) => scores[b] - scores[a] || a - b);
  }
}

/** The smallest of the (at most `size`) largest values pushed so far. */
class MinHeap {
  private readonly heap: number[] = [];

  constructor(private readonly size: number) {}

  get full(): boolean {
    return this.heap.length >= this.size;
  }

  get min(): number {
    return this.heap[0];
  }

  push(v: number): void {
    const h = this.heap;
    if (h.length < this.size) {
      h.push(v);
      for (let i = h.length - 1; i > 0;) {
        const p = (i - 1) >> 1;
        if (h[p] <= h[i]) break;
        [h[p], h[i]] = [h[i], h[p]];
        i = p;
      }
      return;
    }
    if (v <= h[0]) return;
    h[0] = v;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && h[l] < h[m]) m = l;
      if (r < h.length && h[r] < h[m]) m = r;
      if (m === i) return;
      [h[m], h[i]] = [h[i], h[m]];
      i = m;
    }
  }
}

/** Indexes kept per knowledge base, least recently used dropped first, bounded in bytes. */
export class VectorIndexCache {
  private readonly entries = new Map<string, VectorIndex>();
  private held = 0;

  constructor(private readonly maxBytes: number) {}

  get(storeId: string, revision: number): VectorIndex | undefined {
    const e = this.entries.get(storeId);
    if (!e) return undefined;
    this.entries.delete(storeId);
    if (e.revision !== revision) {
      this.held -= e.bytes;
      return undefined;
    }
    this.entries.set(storeId, e);
    return e;
  }

  set(storeId: string, index: VectorIndex): void {
    const old = this.entries.get(storeId);
    if (old) {
      this.entries.delete(storeId);
      this.held -= old.bytes;
    }
    if (index.bytes > this.maxBytes) return;
    this.entries.set(storeId, index);
    this.held += index.bytes;
    for (const [key, e] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(key);
      this.held -= e.bytes;
    }
  }

  get heldBytes(): number {
    return this.held;
  }
}
