import { decodeVector, encodeVector, EXACT_MAX_ROWS, VectorIndex, VectorIndexCache } from './vector-index';

const D = 1536;
const vec = (seed: number) =>
  Float32Array.from({ length: D }, (_, j) => Math.sin(seed * 13.7 + j * 0.37) + (j < 384 ? Math.cos(seed + j) : 0));
const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    documentId: `d${i % 7}`,
    contentHash: `h${i}`,
    embedding: encodeVector(vec(i)),
  }));
const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
};

describe('VectorIndex', () => {
  it('Float32 little-endian codec round-trips', () => {
    const v = Float32Array.from([0.5, -1.25, 3e-8, 42]);
    expect(Array.from(decodeVector(encodeVector(v)))).toEqual(Array.from(v));
  });

  it('small indexes are scored exactly: cosine of every row', () => {
    const idx = new VectorIndex(1, D, rows(50));
    const q = vec(1000);
    const s = idx.scores(q);
    for (let i = 0; i < 50; i++) expect(s[i]).toBeCloseTo(cosine(q, vec(i)), 4);
    const near = idx.nearest(q, 50);
    for (const { row, score } of near) expect(score).toBeCloseTo(cosine(q, vec(row)), 4);
    expect(idx.cosines(q, [3, 7]).map(([, c]) => c)).toEqual([
      expect.closeTo(cosine(q, vec(3)), 4),
      expect.closeTo(cosine(q, vec(7)), 4),
    ]);
  });

  it('large indexes: nearest carries exact cosines and returns the true best rows, in order', () => {
    const idx = new VectorIndex(1, D, rows(3000));
    const q = vec(17.5);
    const exact = Array.from({ length: 3000 }, (_, i) => cosine(q, vec(i)));
    const best = exact
      .map((v, i) => [v, i] as const)
      .sort((a, b) => b[0] - a[0])
      .slice(0, 50)
      .map(([, i]) => i);
    for (const exactRows of [0, EXACT_MAX_ROWS]) {
      const near = idx.nearest(q, 50, exactRows);
      expect(near.map((r) => r.row)).toEqual(best);
      for (const { row, score } of near) expect(score).toBeCloseTo(exact[row], 4);
    }
  });

  it('the coarse pass never loses a best row, even when the prefix dimensions point elsewhere', () => {
    // decoys agree with the query on the first dimension only; the targets agree on a late one
    const one = (parts: Array<[number, number]>) => {
      const v = new Float32Array(D);
      for (const [j, x] of parts) v[j] = x;
      return v;
    };
    const decoys = Array.from({ length: 2990 }, (_, i) =>
      one([
        [0, 1],
        [2, i / 3000],
      ]),
    );
    const targets = Array.from({ length: 10 }, (_, i) =>
      one([
        [500, 1],
        [1, 0.5 + i / 100],
      ]),
    );
    const all = [...decoys, ...targets];
    const idx = new VectorIndex(
      1,
      D,
      all.map((v, i) => ({ id: i + 1, documentId: 'd', contentHash: `h${i}`, embedding: encodeVector(v) })),
    );
    const q = one([
      [0, 1],
      [500, 3],
    ]);
    const want = Array.from({ length: 10 }, (_, i) => 2990 + i);
    expect(idx.nearest(q, 10, 0).map((r) => r.row)).toEqual(want);
    expect(idx.nearest(q, 10).map((r) => r.row)).toEqual(want);
  });

  it('the first k rows do not depend on k, with or without the coarse pass', () => {
    const idx = new VectorIndex(1, D, rows(3000));
    for (const seed of [3.3, 77.1]) {
      const q = vec(seed);
      for (const exactRows of [0, EXACT_MAX_ROWS]) {
        const top50 = idx.nearest(q, 50, exactRows);
        for (const k of [1, 5, 10, 20, 49]) expect(idx.nearest(q, k, exactRows)).toEqual(top50.slice(0, k));
      }
      expect(idx.nearest(q, 50, 0)).toEqual(idx.nearest(q, 50));
    }
  });

  it('topK returns the k best positions, best first, ties by position', () => {
    const s = Float32Array.from([0.1, 0.9, 0.5, 0.9, -1, 0.7]);
    expect(VectorIndex.topK(s, 3)).toEqual([1, 3, 5]);
    expect(VectorIndex.topK(s, 10)).toEqual([1, 3, 5, 2, 0, 4]);
  });

  it('the index cache is bounded in bytes and invalidated by a revision change', () => {
    const a = new VectorIndex(1, D, rows(10));
    const cache = new VectorIndexCache(a.bytes * 2 + 10);
    cache.set('kb1', a);
    cache.set('kb2', new VectorIndex(1, D, rows(10)));
    cache.set('kb3', new VectorIndex(1, D, rows(10)));
    expect(cache.heldBytes).toBeLessThanOrEqual(a.bytes * 2 + 10);
    expect(cache.get('kb1', 1)).toBeUndefined(); // least recently used went first
    expect(cache.get('kb3', 1)).toBeDefined();
    expect(cache.get('kb3', 2)).toBeUndefined(); // the knowledge base changed
  });
});
