/**
 * Observability: GET /metrics in the Prometheus text format, parsed the way a Prometheus
 * server reads it. Each case scrapes before and after driving the gateway and checks that exactly
 * the right series moved by exactly the right amounts.
 */
import request from 'supertest';
import { faults, FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';
import { Scrape } from './prometheus-text';

const CHAT = { method: 'POST', route: '/v1/chat/completions' };

describe(`GET /metrics (${backendKind()})`, () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let apiKey: string;

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    // one attempt per call: the failure case counts a single failed attempt (retries and fallbacks: test/chat/resilience.e2e-spec.ts)
    t = await createTestApp({ env: { ...openAiEnv(fake), INGEST_CONCURRENCY: '0', OPENAI_MAX_RETRIES: '0' } });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100, 'metrics'));
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const chat = (body: Record<string, unknown> = {}) =>
    request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 32, ...body });

  it('is open without METRICS_TOKEN, in the Prometheus text format, with the process metrics and every gateway family', async () => {
    const res = await request(t.url).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const s = await Scrape.of(t.url);
    expect(s.family('process_cpu_user_seconds_total')?.type).toBe('COUNTER');
    expect(s.family('nodejs_eventloop_lag_seconds')).toBeDefined();
    for (const [name, type] of [
      ['gateway_http_requests_total', 'COUNTER'],
      ['gateway_request_duration_seconds', 'HISTOGRAM'],
      ['gateway_upstream_duration_seconds', 'HISTOGRAM'],
      ['gateway_overhead_duration_seconds', 'HISTOGRAM'],
      ['gateway_overhead_seconds', 'HISTOGRAM'],
      ['gateway_upstream_errors_total', 'COUNTER'],
      ['gateway_upstream_retries_total', 'COUNTER'],
      ['gateway_fallbacks_total', 'COUNTER'],
      ['gateway_tokens_total', 'COUNTER'],
      ['gateway_cost_rub_total', 'COUNTER'],
      ['gateway_rerank_cache_total', 'COUNTER'],
      ['gateway_rate_limited_total', 'COUNTER'],
      ['gateway_open_reservations', 'GAUGE'],
      ['gateway_ingestion_jobs', 'GAUGE'],
    ]) {
      expect({ name, type: s.family(name)?.type }).toEqual({ name, type });
    }
    // no hold open between requests; every ingestion state reported (read from the database)
    expect(s.value('gateway_open_reservations')).toBe(0);
    expect(
      s
        .family('gateway_ingestion_jobs')!
        .metrics.map((m) => m.labels?.state)
        .sort(),
    ).toEqual(['cancelled', 'completed', 'failed', 'in_progress', 'queued']);
  });

  it('a chat completion: one request on its route, its tokens and its RUB by model, total and upstream latency', async () => {
    fake.enqueue({ text: 'Hello there, friend', usage: { input: 17, output: 5 } });
    const before = await Scrape.of(t.url);
    const res = await chat();
    expect(res.status).toBe(200);
    const after = await Scrape.of(t.url);
    const delta = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);

    expect(delta('gateway_http_requests_total', { ...CHAT, status: '200' })).toBe(1);
    expect(delta('gateway_tokens_total', { model: 'gpt-4o-mini', type: 'prompt' })).toBe(17);
    expect(delta('gateway_tokens_total', { model: 'gpt-4o-mini', type: 'completion' })).toBe(5);
    const usage = await request(t.url).get('/api/v1/usage?limit=1').set('api-key', apiKey);
    const chargedRub = -usage.body.data[0].amount_rub;
    expect(chargedRub).toBeGreaterThan(0);
    expect(delta('gateway_cost_rub_total', { model: 'gpt-4o-mini' })).toBeCloseTo(chargedRub, 9);
    expect(Number(res.headers['x-gateway-cost-rub'])).toBeCloseTo(chargedRub, 9);

    const total = {
      after: after.histogram('gateway_request_duration_seconds', CHAT),
      before: before.histogram('gateway_request_duration_seconds', CHAT),
    };
    const up = {
      after: after.histogram('gateway_upstream_duration_seconds', { route: CHAT.route }),
      before: before.histogram('gateway_upstream_duration_seconds', { route: CHAT.route }),
    };
    const over = {
      after: after.histogram('gateway_overhead_duration_seconds', { route: CHAT.route }),
      before: before.histogram('gateway_overhead_duration_seconds', { route: CHAT.route }),
    };
    expect(total.after.count - total.before.count).toBe(1);
    expect(up.after.count - up.before.count).toBe(1);
    expect(over.after.count - over.before.count).toBe(1);
    const totalS = total.after.sum - total.before.sum;
    const upS = up.after.sum - up.before.sum;
    const overS = over.after.sum - over.before.sum;
    expect(upS).toBeGreaterThan(0);
    expect(upS).toBeLessThanOrEqual(totalS);
    expect(overS).toBeCloseTo(totalS - upS, 6);
    // the upstream failure counter did not move
    expect(after.value('gateway_upstream_errors_total') - before.value('gateway_upstream_errors_total')).toBe(0);
  });

  it('x-gateway-overhead-ms: the gateway time without the upstream call, the same value in gateway_overhead_seconds', async () => {
    const upstreamDelayMs = 150;
    fake.enqueue({ text: 'Hello', usage: { input: 5, output: 1 }, delayMs: upstreamDelayMs });
    const before = await Scrape.of(t.url);
    const started = performance.now();
    const res = await chat();
    const totalMs = performance.now() - started;
    expect(res.status).toBe(200);
    const overheadMs = Number(res.headers['x-gateway-overhead-ms']);
    expect(res.headers['x-gateway-overhead-ms']).toMatch(/^\d+\.\d{2}$/);
    expect(overheadMs).toBeGreaterThan(0);
    // the upstream's delay is not in it
    expect(overheadMs).toBeLessThanOrEqual(totalMs - upstreamDelayMs);
    const after = await Scrape.of(t.url);
    const sent = {
      after: after.histogram('gateway_overhead_seconds', { route: CHAT.route }),
      before: before.histogram('gateway_overhead_seconds', { route: CHAT.route }),
    };
    expect(sent.after.count - sent.before.count).toBe(1);
    expect((sent.after.sum - sent.before.sum) * 1000).toBeCloseTo(overheadMs, 1);
  });

  it('x-gateway-overhead-ms on a stream: set as the headers leave, the part before the upstream call', async () => {
    const upstreamDelayMs = 150;
    fake.enqueue({ text: 'Hello there', usage: { input: 5, output: 2 }, delayMs: upstreamDelayMs, chunkDelayMs: 20 });
    const before = await Scrape.of(t.url);
    const started = performance.now();
    const res = await chat({ stream: true });
    const totalMs = performance.now() - started;
    expect(res.status).toBe(200);
    expect(res.text).toContain('[DONE]');
    const overheadMs = Number(res.headers['x-gateway-overhead-ms']);
    expect(res.headers['x-gateway-overhead-ms']).toMatch(/^\d+\.\d{2}$/);
    expect(overheadMs).toBeGreaterThan(0);
    expect(overheadMs).toBeLessThanOrEqual(totalMs - upstreamDelayMs);
    const after = await Scrape.of(t.url);
    const sent = {
      after: after.histogram('gateway_overhead_seconds', { route: CHAT.route }),
      before: before.histogram('gateway_overhead_seconds', { route: CHAT.route }),
    };
    expect(sent.after.count - sent.before.count).toBe(1);
    expect((sent.after.sum - sent.before.sum) * 1000).toBeCloseTo(overheadMs, 1);
  });

  it('x-gateway-overhead-ms on an answer without upstream work (a 400 before any call): present, not in the histogram', async () => {
    const before = await Scrape.of(t.url);
    const started = performance.now();
    const res = await chat({ messages: 'not a list' });
    const totalMs = performance.now() - started;
    expect(res.status).toBe(400);
    expect(Number(res.headers['x-gateway-overhead-ms'])).toBeLessThanOrEqual(totalMs);
    const after = await Scrape.of(t.url);
    expect(
      after.histogram('gateway_overhead_seconds', { route: CHAT.route }).count -
        before.histogram('gateway_overhead_seconds', { route: CHAT.route }).count,
    ).toBe(0);
  });

  it('rerank: the first call is a cache miss, the same call again a hit', async () => {
    const body = {
      model: 'small',
      query: 'capital of France',
      documents: ['Paris is the capital of France.', 'Cats sleep a lot.'],
    };
    const before = await Scrape.of(t.url);
    const first = await request(t.url).post('/v1/rerank').set('authorization', `Bearer ${apiKey}`).send(body);
    expect(first.status).toBe(200);
    const mid = await Scrape.of(t.url);
    expect(
      mid.value('gateway_rerank_cache_total', { result: 'miss' }) -
        before.value('gateway_rerank_cache_total', { result: 'miss' }),
    ).toBe(1);
    expect(
      mid.value('gateway_rerank_cache_total', { result: 'hit' }) -
        before.value('gateway_rerank_cache_total', { result: 'hit' }),
    ).toBe(0);
    const second = await request(t.url).post('/v1/rerank').set('authorization', `Bearer ${apiKey}`).send(body);
    expect(second.status).toBe(200);
    const after = await Scrape.of(t.url);
    expect(
      after.value('gateway_rerank_cache_total', { result: 'hit' }) -
        mid.value('gateway_rerank_cache_total', { result: 'hit' }),
    ).toBe(1);
    expect(
      after.value('gateway_rerank_cache_total', { result: 'miss' }) -
        mid.value('gateway_rerank_cache_total', { result: 'miss' }),
    ).toBe(0);
    expect(
      after.value('gateway_http_requests_total', { method: 'POST', route: '/v1/rerank', status: '200' }) -
        before.value('gateway_http_requests_total', { method: 'POST', route: '/v1/rerank', status: '200' }),
    ).toBe(2);
    // a hit still embeds the query: tokens charged under the rerank model
    expect(after.value('gateway_tokens_total', { model: 'rerank-small', type: 'prompt' })).toBeGreaterThan(
      mid.value('gateway_tokens_total', { model: 'rerank-small', type: 'prompt' }),
    );
  });

  it('404s are counted by route template (or "unmatched"), never by raw path', async () => {
    const before = await Scrape.of(t.url);
    const missing = await request(t.url).get('/v1/files/file-doesnotexist123').set('authorization', `Bearer ${apiKey}`);
    expect(missing.status).toBe(404);
    const unknown = await request(t.url).get('/no/such/route-xyz987');
    expect(unknown.status).toBe(404);
    const after = await Scrape.of(t.url);
    const d = (labels: Record<string, string>) =>
      after.value('gateway_http_requests_total', labels) - before.value('gateway_http_requests_total', labels);
    expect(d({ method: 'GET', route: '/v1/files/:id', status: '404' })).toBe(1);
    expect(d({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(after.text).not.toContain('file-doesnotexist123');
    expect(after.text).not.toContain('route-xyz987');
  });

  it('a request refused before routing (401 before the body) is counted on its route template', async () => {
    const before = await Scrape.of(t.url);
    const res = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', 'Bearer sk-wrong-0000000000000000000')
      .send({ model: 'gpt-4o-mini', messages: [] });
    expect(res.status).toBe(401);
    const after = await Scrape.of(t.url);
    expect(
      after.value('gateway_http_requests_total', { ...CHAT, status: '401' }) -
        before.value('gateway_http_requests_total', { ...CHAT, status: '401' }),
    ).toBe(1);
  });

  it('an upstream failure: one upstream error by provider, model and kind; the 502 on the route; nothing charged', async () => {
    fake.enqueue({ fault: faults.http(500, { message: 'boom' }) });
    const before = await Scrape.of(t.url);
    const res = await chat();
    expect(res.status).toBe(502);
    const after = await Scrape.of(t.url);
    const err = { provider: 'openai', model: 'gpt-4o-mini', kind: 'upstream' };
    expect(after.value('gateway_upstream_errors_total', err) - before.value('gateway_upstream_errors_total', err)).toBe(
      1,
    );
    expect(after.value('gateway_upstream_errors_total') - before.value('gateway_upstream_errors_total')).toBe(1);
    expect(
      after.value('gateway_http_requests_total', { ...CHAT, status: '502' }) -
        before.value('gateway_http_requests_total', { ...CHAT, status: '502' }),
    ).toBe(1);
    expect(after.value('gateway_tokens_total', { model: 'gpt-4o-mini' })).toBe(
      before.value('gateway_tokens_total', { model: 'gpt-4o-mini' }),
    );
    expect(after.value('gateway_open_reservations')).toBe(0);
  });
});

describe(`GET /metrics with METRICS_TOKEN (${backendKind()})`, () => {
  const TOKEN = 'metrics-token-0123456789abcdef';
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => t?.close());

  it('401 in the error shape without the bearer token or with a wrong one; 200 with it', async () => {
    const none = await request(t.url).get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({
      error: {
        message: expect.stringMatching(/metrics token/),
        type: 'authentication_error',
        code: 'invalid_metrics_token',
        param: null,
      },
    });
    const wrong = await request(t.url).get('/metrics').set('authorization', `Bearer ${TOKEN}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('gateway_');
    const s = await Scrape.of(t.url, TOKEN);
    expect(s.family('gateway_http_requests_total')).toBeDefined();
    // the two refusals were counted
    expect(s.value('gateway_http_requests_total', { method: 'GET', route: '/metrics', status: '401' })).toBe(2);
  });
});
