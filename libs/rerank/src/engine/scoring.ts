/**
 * Cosine scoring and result assembly for rerank (docs/decisions/rerank-scores.md).
 *
 * - Scores are raw cosine similarities in [-1, 1] (clamped against rounding drift); negative
 *   scores are reported as they are, never clamped to 0.
 * - Threshold: a document is kept iff score >= similarity_threshold, compared on the raw
 *   (unrounded) score. With the default 0.0 a negative-score document is therefore dropped, and a
 *   zero-vector document (score exactly 0) is kept. Dropped documents count in total_documents but
 *   not in filtered_documents.
 * - Order: best first; equal scores keep input order. rank starts at 1.
 * - top_k: at most top_k of the kept documents are returned (top_k <= 0 → none).
 * - similarity_score is the score rounded to 4 decimals (correctly rounded from the exact binary
 *   value, via toFixed); similarity_percentage is score·100 with one decimal and "%", computed from
 *   the raw score (0.87349 → 0.8735 and "87.3%"). Negative zero is shown as 0 / "0.0%".
 */
import { cosine, formatPercentage, roundScore } from '@app/retrieval';

export { cosine, formatPercentage, roundScore };
import type { RerankItem } from './content';

export interface RankOptions {
  threshold: number;
  topK: number;
}

export interface RankedResult {
  rank: number;
  id: string;
  data: string;
  metadata: Record<string, unknown>;
  similarity_score: number;
  similarity_percentage: string;
}

export interface RankedResults {
  results: RankedResult[];
  total_documents: number;
  filtered_documents: number;
  returned_documents: number;
}

export function rankResults(
  items: readonly RerankItem[],
  queryVector: Float32Array,
  documentVectors: readonly Float32Array[],
  options: RankOptions,
): RankedResults {
  if (documentVectors.length !== items.length) {
    throw new RangeError(`got ${documentVectors.length} vectors for ${items.length} documents`);
  }
  const kept: { index: number; score: number }[] = [];
  for (let i = 0; i < items.length; i++) {
    const score = cosine(queryVector, documentVectors[i]);
    if (score >= options.threshold) kept.push({ index: i, score });
  }
  kept.sort((a, b) => b.score - a.score || a.index - b.index);
  const limit = Math.max(0, Math.min(kept.length, Math.floor(options.topK)));
  const results: RankedResult[] = [];
  for (let r = 0; r < limit; r++) {
    const { index, score } = kept[r];
    const item = items[index];
    results.push({
      rank: r + 1,
      id: item.id,
      data: item.data,
      metadata: item.metadata,
      similarity_score: roundScore(score),
      similarity_percentage: formatPercentage(score),
    });
  }
  return {
    results,
    total_documents: items.length,
    filtered_documents: kept.length,
    returned_documents: results.length,
  };
}
