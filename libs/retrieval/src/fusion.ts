/** Rank fusion for hybrid search (pure). */

/**
 * Weighted reciprocal-rank fusion (Cormack et al., k = 60): Σ weight / (k + rank) over the lists an id
 * appears in; a list without a weight counts 1.
 */
export function reciprocalRankFusion(
  lists: number[][],
  k = 60,
  weights: readonly number[] = [],
): Array<{ id: number; score: number }> {
  const scores = new Map<number, number>();
  lists.forEach((list, i) => {
    const weight = weights[i] ?? 1;
    list.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + weight / (k + rank + 1)));
  });
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}
