/** Rank fusion for hybrid search (pure). */

/** Reciprocal-rank fusion (Cormack et al., k = 60): Σ 1 / (k + rank) over the lists an id appears in. */
export function reciprocalRankFusion(lists: number[][], k = 60): Array<{ id: number; score: number }> {
  const scores = new Map<number, number>();
  for (const list of lists) list.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1)));
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}
