/**
 * Vectors of one knowledge base, decoded once into one contiguous Float32Array (row-major,
 * L2-normalised) so a search is a single pass of dot products. Little-endian Float32 bytes are the
 * storage form (`bytea` / `blob`).
 */
export function encodeVector(v: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(v.length * 4);
  for (let i = 0; i < v.length; i++) out.writeFloatLE(v[i], i * 4);
  return out;
}

export function decodeVector(b: Buffer): Float32Array {
  const out = new Float32Array(b.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(i * 4);
  return out;
}

/** Dimensions of the coarse pass over large indexes (see VectorIndex.search). */
export const COARSE_DIMS = 384;

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
   * The `k` rows most similar to the query, best first (ties by position), with their exact cosine.
   * Large indexes take a coarse pass over the first COARSE_DIMS dimensions.
   */
  nearest(query: Float32Array, k: number): Array<{ row: number; score: number }> {
    const n = this.ids.length;
    if (n <= k * 4 || this.dimensions < COARSE_DIMS * 2) {
      const all = this.scores(query);
      return VectorIndex.topK(all, k).map((row) => ({ row, score: all[row] }));
    }
    const coarse = this.scores(query, COARSE_DIMS);
    return this.cosines(query, VectorIndex.topK(coarse, k * 4))
      .map(([row, score]) => ({ row, score }))
      .sort((a, b) => b.score - a.score || a.row - b.row)
      .slice(0, k);
  }

  /** Exact cosine of the query with the given rows (rows are pre-normalised). */
  cosines(query: Float32Array, rows: readonly number[]): Array<[number, number]> {
    const d = this.dimensions;
    let norm = 0;
    for (let j = 0; j < d; j++) norm += query[j] * query[j];
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    return rows.map((i) => {
      let dot = 0;
      const o = i * d;
      for (let j = 0; j < d; j++) dot += this.matrix[o + j] * query[j];
      return [i, Math.fround(dot * inv)];
    });
  }

  /** Cosine similarity of the query with every row (rows are pre-normalised); `dims` < all: a prefix dot product. */
  scores(query: Float32Array, dims = this.dimensions): Float32Array {
    const d = this.dimensions;
    const used = Math.min(dims, d);
    let norm = 0;
    for (let j = 0; j < used; j++) norm += query[j] * query[j];
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const out = new Float32Array(this.ids.length);
    const m = this.matrix;
    const q = query;
    const tail = used & 3;
    for (let i = 0, o = 0; i < out.length; i++, o += d) {
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
      out[i] = (a0 + a1 + a2 + a3) * inv;
    }
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
