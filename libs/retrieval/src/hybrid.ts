import { reciprocalRankFusion } from './fusion';
import type { VectorIndex } from './vector-index';

/**
 * Candidates each leg of a hybrid search contributes. Fixed (not derived from the result count) so
 * a search's first k results are the same whatever top_k asks for; ≥ 5 × the largest top_k (100).
 */
export const CANDIDATE_POOL = 500;

/**
 * The vector leg's weight in the fusion when the vectors come from the offline lexical embedders
 * (hashed stems: a weaker copy of the keyword leg, which at equal weight pulls the fused order below
 * the keyword leg's own). An embedding model that captures meaning weighs 1, like the keyword leg.
 * Chosen on the retrieval-quality bench (docs/decisions/hybrid-leg-weights.md).
 */
export const LEXICAL_VECTOR_WEIGHT = 0.2;

export interface HybridOptions {
  /** candidates per leg (default CANDIDATE_POOL) */
  pool?: number;
  /** the vector leg's weight against the keyword leg's 1 (default 1) */
  vectorWeight?: number;
}

/** A fused candidate: its index row, chunk id, fused (RRF) score and exact cosine to the query. */
export interface HybridCandidate {
  row: number;
  id: number;
  fused: number;
  score: number;
}

/**
 * Hybrid ranking of one index: the vector leg (rows by their best exact cosine to any query part)
 * and the keyword leg (`keywordIds`, best first) are fused by weighted reciprocal rank, and that fused order
 * is the result order (ties to the higher cosine). Every candidate — keyword-only ones too — carries its exact cosine (the best
 * over the query parts), which is what a similarity threshold is compared with.
 */
export function hybridRank(
  index: VectorIndex,
  queryVectors: readonly Float32Array[],
  keywordIds: readonly number[],
  { pool = CANDIDATE_POOL, vectorWeight = 1 }: HybridOptions = {},
): HybridCandidate[] {
  const best = new Map<number, number>();
  const take = (row: number, score: number) => {
    if (score > (best.get(row) ?? -Infinity)) best.set(row, score);
  };
  // a row in the top `pool` of the best-over-parts cosine is in the top `pool` of the part attaining it
  for (const qv of queryVectors) for (const { row, score } of index.nearest(qv, pool)) take(row, score);
  const keywordRows = keywordIds.map((id) => index.rowOf(id)).filter((row): row is number => row !== undefined);
  const pending = [...new Set([...best.keys(), ...keywordRows])];
  for (const qv of queryVectors) for (const [row, score] of index.cosines(qv, pending)) take(row, score);
  const vectorRows = [...best.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, pool);
  const vectorIds = vectorRows.map(([row]) => index.ids[row]);
  return reciprocalRankFusion([vectorIds, keywordRows.map((row) => index.ids[row])], undefined, [vectorWeight, 1])
    .map(({ id, score: fused }) => {
      const row = index.rowOf(id)!;
      return { row, id, fused, score: best.get(row)! };
    })
    .sort(byFusedThenCosine);
}

/**
 * Fused order; equal fused scores (one leg's first is the other's second, and so on) go to the
 * candidate closer in meaning (higher cosine), then to the lower id.
 */
function byFusedThenCosine(a: HybridCandidate, b: HybridCandidate): number {
  return b.fused - a.fused || b.score - a.score || a.id - b.id;
}
