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

  /** Cosine similarity of the query with every row (rows are pre-normalised). */
  scores(query: Float32Array): Float32Array {
    const d = this.dimensions;
    let norm = 0;
    for (let j = 0; j < d; j++) norm += query[j] * query[j];
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const out = new Float32Array(this.ids.length);
    const m = this.matrix;
    for (let i = 0, o = 0; i < out.length; i++, o += d) {
      let dot = 0;
      for (let j = 0; j < d; j++) dot += m[o + j] * query[j];
      out[i] = dot * inv;
    }
    return out;
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
