import { CANDIDATE_POOL, hybridRank } from './hybrid';
import { encodeVector, VectorIndex } from './vector-index';

const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v, (x) => x / n);
};
/** A 2-D direction at `deg` degrees from the query's, padded to `d` dimensions: its cosine is cos(deg). */
const at = (deg: number, d = 4) => {
  const v = new Array<number>(d).fill(0);
  v[0] = Math.cos((deg * Math.PI) / 180);
  v[1] = Math.sin((deg * Math.PI) / 180);
  return Float32Array.from(v);
};
const index = (vectors: Float32Array[], dims = vectors[0].length) =>
  new VectorIndex(
    1,
    dims,
    vectors.map((v, i) => ({ id: 101 + i, documentId: `d${i}`, contentHash: `h${i}`, embedding: encodeVector(v) })),
  );

describe('hybridRank', () => {
  it('keeps the fused (reciprocal-rank) order instead of re-sorting by cosine', () => {
    // cosine order 101 > 102 > 103 > 104; the keyword leg ranks 103 then 102
    const idx = index([at(10), at(40), at(60), at(80)]);
    const ranked = hybridRank(idx, [at(0)], [103, 102]);
    // fused: 103 (3rd + 1st: 1/63 + 1/61), 102 (2nd + 2nd: 2/62), 101 (1st), 104 (4th)
    expect(ranked.map((c) => c.id)).toEqual([103, 102, 101, 104]);
    expect(ranked.map((c) => c.score)).toEqual(
      [60, 40, 10, 80].map((deg) => expect.closeTo(Math.cos((deg * Math.PI) / 180), 5)),
    );
    for (let i = 1; i < ranked.length; i++) expect(ranked[i].fused).toBeLessThanOrEqual(ranked[i - 1].fused);
  });

  it('a keyword-only candidate carries its exact cosine (not -Infinity), on a large index too', () => {
    const d = 1536;
    // 40 rows close to the query, one keyword hit far from it, in a 1536-dimension index
    const rows = [...Array.from({ length: 40 }, (_, i) => at(1 + i * 0.5, d)), at(70, d)];
    const idx = index(rows, d);
    const ranked = hybridRank(idx, [at(0, d)], [141], { pool: 2 });
    const keywordOnly = ranked.find((c) => c.id === 141)!;
    expect(keywordOnly.score).toBeCloseTo(Math.cos((70 * Math.PI) / 180), 5);
    expect(ranked.map((c) => c.id)).toEqual([101, 141, 102]); // equal fused scores: the higher cosine first
  });

  it('equal fused scores go to the candidate closer in meaning, not to the lower id', () => {
    // vector leg: 102 (10°) then 101 (30°); keyword leg: 101 then 102 → both 1/61 + 1/62
    const idx = index([at(30), at(10)]);
    const ranked = hybridRank(idx, [at(0)], [101, 102]);
    expect(ranked[0].fused).toBe(ranked[1].fused);
    expect(ranked.map((c) => c.id)).toEqual([102, 101]);
  });

  it('a multi-part query scores each chunk by its best part', () => {
    const idx = index([at(0), at(90), at(45)]);
    const ranked = hybridRank(idx, [at(0), at(90)], []);
    expect(ranked.map((c) => c.id)).toEqual([101, 102, 103]);
    expect(ranked[1].score).toBeCloseTo(1, 5);
    expect(ranked[2].score).toBeCloseTo(Math.SQRT1_2, 5);
  });

  it('a lighter vector leg lets the keyword order lead; cosine still breaks its ties and adds its own finds', () => {
    // vector leg: 101, 102, 103, 104; keyword leg: 103 then 102
    const idx = index([at(10), at(40), at(60), at(80)]);
    const equal = hybridRank(idx, [at(0)], [103, 102]);
    const light = hybridRank(idx, [at(0)], [103, 102], { vectorWeight: 0.2 });
    expect(equal.map((c) => c.id)).toEqual([103, 102, 101, 104]);
    // 103: 0.2/63 + 1/61, 102: 0.2/62 + 1/62, 101: 0.2/61, 104: 0.2/64
    expect(light.map((c) => c.id)).toEqual([103, 102, 101, 104]);
    expect(light[0].fused).toBeCloseTo(0.2 / 63 + 1 / 61, 12);
    // where the legs disagree on their first, the keyword leg's wins only when the vector leg weighs less
    const idx2 = index([at(10), at(50)]);
    expect(hybridRank(idx2, [at(0)], [102, 101]).map((c) => c.id)).toEqual([101, 102]); // equal: cosine breaks the tie
    expect(hybridRank(idx2, [at(0)], [102, 101], { vectorWeight: 0.2 }).map((c) => c.id)).toEqual([102, 101]);
  });

  it('ignores keyword ids the index does not hold; the pool is fixed', () => {
    const idx = index([unit([1, 0, 0, 1]), unit([0, 1, 1, 0])]);
    expect(hybridRank(idx, [unit([1, 0, 0, 0])], [999, 102]).map((c) => c.id)).toEqual([102, 101]);
    expect(CANDIDATE_POOL).toBeGreaterThanOrEqual(5 * 100);
  });
});
