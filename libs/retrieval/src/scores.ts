import { cosineSimilarity } from '@app/providers/local/lexical-embedder';

/** Cosine similarity of two equal-length vectors; 0 when either is all zeros; clamped to [-1, 1] (the local embedder's). */
export const cosine = cosineSimilarity;

/** Score rounded to 4 decimals (negative zero → 0). */
export function roundScore(score: number): number {
  const rounded = Number(score.toFixed(4));
  return rounded === 0 ? 0 : rounded;
}

/** Score as a percentage with one decimal: 0.87349 → "87.3%". */
export function formatPercentage(score: number): string {
  const text = (score * 100).toFixed(1);
  return `${text === '-0.0' ? '0.0' : text}%`;
}
