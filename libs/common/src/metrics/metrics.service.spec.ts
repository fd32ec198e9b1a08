import { MetricsService } from './metrics.service';

async function series(
  m: MetricsService,
  name: string,
): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const all = await m.registry.getMetricsAsJSON();
  return (all.find((x) => x.name === name)?.values ?? []) as {
    labels: Record<string, string | number>;
    value: number;
  }[];
}

describe('MetricsService', () => {
  it('charged: tokens by model and type, RUB from micro-RUB', async () => {
    const m = new MetricsService();
    m.charged('gpt-4o-mini', 100, 20, 1_500_000);
    m.charged('gpt-4o-mini', 1, 0, 250_000);
    expect(await series(m, 'gateway_tokens_total')).toEqual(
      expect.arrayContaining([
        { labels: { model: 'gpt-4o-mini', type: 'prompt' }, value: 101 },
        { labels: { model: 'gpt-4o-mini', type: 'completion' }, value: 20 },
      ]),
    );
    expect(await series(m, 'gateway_cost_rub_total')).toEqual([{ labels: { model: 'gpt-4o-mini' }, value: 1.75 }]);
  });

  it('httpRequest: overhead = total − upstream, only for requests with upstream work', async () => {
    const m = new MetricsService();
    m.httpRequest({
      method: 'POST',
      route: '/v1/chat/completions',
      status: 200,
      totalSeconds: 1.25,
      upstreamSeconds: 1.2,
      hadUpstream: true,
      overheadSeconds: 0.04,
    });
    m.httpRequest({
      method: 'GET',
      route: '/api/v1/balance',
      status: 200,
      totalSeconds: 0.01,
      upstreamSeconds: 0,
      hadUpstream: false,
      overheadSeconds: 0.01,
    });
    const sum = async (name: string) =>
      (await series(m, name)).filter((s) => (s as { metricName?: string }).metricName === `${name}_sum`);
    const overhead = await sum('gateway_overhead_duration_seconds');
    expect(overhead).toHaveLength(1);
    expect(overhead[0].labels).toEqual({ route: '/v1/chat/completions' });
    expect(overhead[0].value).toBeCloseTo(0.05, 9);
    const sent = await sum('gateway_overhead_seconds');
    expect(sent).toHaveLength(1);
    expect(sent[0].value).toBeCloseTo(0.04, 9);
    expect((await sum('gateway_request_duration_seconds')).length).toBe(2);
    expect(await series(m, 'gateway_http_requests_total')).toEqual(
      expect.arrayContaining([{ labels: { method: 'GET', route: '/api/v1/balance', status: '200' }, value: 1 }]),
    );
  });

  it('the ingestion gauge reads its source at most once per cache period and survives a failing source', async () => {
    const m = new MetricsService();
    let calls = 0;
    m.observeIngestionJobs(async () => {
      calls++;
      return { queued: 3, failed: 1 };
    });
    await m.exposition();
    await m.exposition();
    expect(calls).toBe(1);
    expect(await series(m, 'gateway_ingestion_jobs')).toEqual(
      expect.arrayContaining([{ labels: { state: 'queued' }, value: 3 }]),
    );
    const failing = new MetricsService();
    failing.observeIngestionJobs(() => Promise.reject(new Error('database down')));
    const out = await failing.exposition();
    expect(out.body).toContain('gateway_ingestion_jobs');
  });

  it('open reservations come from the registered source at scrape time', async () => {
    const m = new MetricsService();
    let open = 2;
    m.observeOpenReservations(() => open);
    expect((await series(m, 'gateway_open_reservations'))[0].value).toBe(2);
    open = 0;
    expect((await series(m, 'gateway_open_reservations'))[0].value).toBe(0);
  });
});
