import type { RerankItem } from './content';
import { cosine, formatPercentage, rankResults, roundScore } from './scoring';

/** A unit vector in 2-D whose cosine with [1, 0] is exactly `score` (up to float32 precision). */
function vectorWithScore(score: number): Float32Array {
  return Float32Array.from([score, Math.sqrt(Math.max(0, 1 - score * score))]);
}

const QUERY = Float32Array.from([1, 0]);

function items(n: number): RerankItem[] {
  return Array.from({ length: n }, (_, i) => ({ id: `d${i}`, data: `doc ${i}`, metadata: { i } }));
}

describe('cosine', () => {
  it('computes the cosine of unnormalised vectors', () => {
    expect(cosine(Float32Array.from([3, 4]), Float32Array.from([6, 8]))).toBe(1);
    expect(cosine(Float32Array.from([1, 0]), Float32Array.from([0, 5]))).toBe(0);
    expect(cosine(Float32Array.from([1, 0]), Float32Array.from([-2, 0]))).toBe(-1);
    expect(cosine(Float32Array.from([1, 1]), Float32Array.from([1, 0]))).toBeCloseTo(Math.SQRT1_2, 7);
  });

  it('zero vectors give 0', () => {
    expect(cosine(new Float32Array(3), Float32Array.from([1, 2, 3]))).toBe(0);
    expect(cosine(new Float32Array(3), new Float32Array(3))).toBe(0);
  });

  it('clamps rounding drift into [-1, 1]', () => {
    const v = Float32Array.from([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
    const c = cosine(v, v);
    expect(c).toBeLessThanOrEqual(1);
    expect(c).toBeCloseTo(1, 6);
  });

  it('rejects different lengths', () => {
    expect(() => cosine(new Float32Array(2), new Float32Array(3))).toThrow(RangeError);
  });
});

describe('roundScore / formatPercentage', () => {
  it.each<[number, number, string]>([
    [0.87349, 0.8735, '87.3%'],
    [0.87351, 0.8735, '87.4%'],
    [1, 1, '100.0%'],
    [0, 0, '0.0%'],
    [0.00004, 0, '0.0%'],
    [-0.00004, 0, '0.0%'],
    [-0.12345, -0.1235, '-12.3%'],
    [0.5, 0.5, '50.0%'],
    [0.123456789, 0.1235, '12.3%'],
  ])('%p → %p and %p', (score, rounded, percentage) => {
    expect(roundScore(score)).toBe(rounded);
    expect(formatPercentage(score)).toBe(percentage);
  });

  it('never shows negative zero', () => {
    expect(Object.is(roundScore(-0.00001), -0)).toBe(false);
    expect(Object.is(roundScore(-0), -0)).toBe(false);
  });
});

describe('rankResults', () => {
  it('orders best first with ranks from 1 and fills every field', () => {
    const docs = items(3);
    const out = rankResults(docs, QUERY, [vectorWithScore(0.2), vectorWithScore(0.9), vectorWithScore(0.5)], {
      threshold: 0,
      topK: 10,
    });
    expect(out.results.map((r) => [r.rank, r.id])).toEqual([
      [1, 'd1'],
      [2, 'd2'],
      [3, 'd0'],
    ]);
    expect(out.results[0]).toEqual({
      rank: 1,
      id: 'd1',
      data: 'doc 1',
      metadata: { i: 1 },
      similarity_score: 0.9,
      similarity_percentage: '90.0%',
    });
    expect(out).toMatchObject({ total_documents: 3, filtered_documents: 3, returned_documents: 3 });
  });

  it('drops documents below the threshold (counted in total, not in filtered)', () => {
    const vectors = [0.1, 0.35, 0.3, 0.8, 0.29].map(vectorWithScore);
    const out = rankResults(items(5), QUERY, vectors, { threshold: 0.3, topK: 10 });
    expect(out.results.map((r) => r.id)).toEqual(['d3', 'd1', 'd2']);
    expect(out).toMatchObject({ total_documents: 5, filtered_documents: 3, returned_documents: 3 });
  });

  it('keeps score == threshold; default 0.0 drops negatives but keeps zero vectors', () => {
    const vectors = [
      Float32Array.from([-1, 0]),
      new Float32Array(2),
      Float32Array.from([0, 1]),
      Float32Array.from([1, 0]),
    ];
    const out = rankResults(items(4), QUERY, vectors, { threshold: 0, topK: 10 });
    expect(out.results.map((r) => [r.id, r.similarity_score])).toEqual([
      ['d3', 1],
      ['d1', 0],
      ['d2', 0],
    ]);
    expect(out.filtered_documents).toBe(3);
    const exact = rankResults(items(1), QUERY, [Float32Array.from([1, 0])], { threshold: 1, topK: 10 });
    expect(exact.filtered_documents).toBe(1);
  });

  it('reports negative scores as they are when the threshold allows them', () => {
    const out = rankResults(items(2), QUERY, [Float32Array.from([-1, 1]), Float32Array.from([1, 1])], {
      threshold: -1,
      topK: 10,
    });
    expect(out.results[1].similarity_score).toBe(-0.7071);
    expect(out.results[1].similarity_percentage).toBe('-70.7%');
  });

  it('returns at most top_k of the filtered documents', () => {
    const vectors = [0.9, 0.8, 0.7, 0.6, 0.5, 0.1].map(vectorWithScore);
    const out = rankResults(items(6), QUERY, vectors, { threshold: 0.4, topK: 2 });
    expect(out.results.map((r) => r.id)).toEqual(['d0', 'd1']);
    expect(out).toMatchObject({ total_documents: 6, filtered_documents: 5, returned_documents: 2 });
    expect(rankResults(items(6), QUERY, vectors, { threshold: 0, topK: 0 }).returned_documents).toBe(0);
    expect(rankResults(items(6), QUERY, vectors, { threshold: 0, topK: 100 }).returned_documents).toBe(6);
  });

  it('ties keep input order', () => {
    const same = vectorWithScore(0.5);
    const vectors = [vectorWithScore(0.1), same, vectorWithScore(0.9), same, same];
    const out = rankResults(items(5), QUERY, vectors, { threshold: 0, topK: 10 });
    expect(out.results.map((r) => r.id)).toEqual(['d2', 'd1', 'd3', 'd4', 'd0']);
  });

  it('rounds scores and formats percentages', () => {
    const docs = items(1);
    const query = Float32Array.from([1, 0]);
    const out = rankResults(docs, query, [vectorWithScore(0.87349)], { threshold: 0, topK: 1 });
    expect(out.results[0].similarity_score).toBe(0.8735);
    expect(out.results[0].similarity_percentage).toBe('87.3%');
  });

  it('handles no documents and rejects a vector count mismatch', () => {
    expect(rankResults([], QUERY, [], { threshold: 0, topK: 10 })).toEqual({
      results: [],
      total_documents: 0,
      filtered_documents: 0,
      returned_documents: 0,
    });
    expect(() => rankResults(items(2), QUERY, [QUERY], { threshold: 0, topK: 10 })).toThrow(RangeError);
  });

  it('a zero query vector scores every document 0', () => {
    const out = rankResults(items(2), new Float32Array(2), [QUERY, QUERY], { threshold: 0, topK: 10 });
    expect(out.results.map((r) => r.similarity_score)).toEqual([0, 0]);
  });
});
