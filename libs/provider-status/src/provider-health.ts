import type { CallSample } from './provider-health.repository';
import type { ProviderHealthWindowDto } from './provider-status.dto';

/** An upstream failure for the health view: the provider rate limited or failed (429, 5xx). */
export const isUpstreamFailure = (status: number) => status === 429 || status >= 500;

/** Nearest-rank percentile of sorted values (p in 0..100). */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Calls, upstream failures, their rate and p50/p95 latency of the samples. */
export function healthOf(samples: CallSample[]): ProviderHealthWindowDto {
  const latencies = samples.map((s) => s.latencyMs).sort((a, b) => a - b);
  const errors = samples.filter((s) => isUpstreamFailure(s.status)).length;
  return {
    calls: samples.length,
    errors,
    error_rate: samples.length ? errors / samples.length : null,
    p50_ms: percentile(latencies, 50),
    p95_ms: percentile(latencies, 95),
  };
}
