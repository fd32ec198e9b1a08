import { healthOf, percentile } from './provider-health';

describe('provider health from request-log samples', () => {
  const at = (status: number, latencyMs: number) => ({ provider: 'openai', status, latencyMs, createdAt: 0 });

  it('nearest-rank percentiles', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(sorted, 50), percentile(sorted, 95), percentile([7], 95), percentile([], 50)]).toEqual([
      50,
      95,
      7,
      null,
    ]);
  });

  it('counts 429 and 5xx as upstream failures, not a caller’s 4xx', () => {
    const h = healthOf([at(200, 100), at(400, 5), at(429, 20), at(502, 900), at(200, 300)]);
    expect(h).toEqual({ calls: 5, errors: 2, error_rate: 0.4, p50_ms: 100, p95_ms: 900 });
    expect(healthOf([])).toEqual({ calls: 0, errors: 0, error_rate: null, p50_ms: null, p95_ms: null });
  });
});
