/** Pure weighted choice among a model's deployments, skipping the cooling ones while another is available. */
export interface Weighted {
  id: string;
  weight: number;
}

/**
 * Picks by weight among the deployments not in `cooling`; when every one is cooling, among all of
 * them (a request is never refused only because every deployment failed recently).
 * `random` returns [0, 1).
 */
export function pickDeployment<T extends Weighted>(
  deployments: readonly T[],
  cooling: ReadonlySet<string>,
  random: () => number = Math.random,
): T {
  if (deployments.length === 0) throw new Error('pickDeployment: no deployments');
  const warm = deployments.filter((d) => !cooling.has(d.id));
  const pool = warm.length > 0 ? warm : deployments;
  if (pool.length === 1) return pool[0];
  const total = pool.reduce((s, d) => s + d.weight, 0);
  let x = Math.min(0.999999, Math.max(0, random())) * total;
  for (const d of pool) {
    x -= d.weight;
    if (x < 0) return d;
  }
  return pool[pool.length - 1];
}
