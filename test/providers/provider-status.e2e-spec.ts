import request from 'supertest';
import { FakeAnthropic, FakeOpenAI, faults } from '../fakes';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin } from '../accounts/accounts-helpers';

type Provider = {
  name: string;
  configured: boolean;
  missing: string | null;
  base_url: string | null;
  custom_base_url: boolean;
  takes_ca_file: boolean;
  ca_file: string | null;
  test_model: string | null;
  health: Record<
    'last_hour' | 'last_day',
    { calls: number; errors: number; error_rate: number | null; p50_ms: number | null; p95_ms: number | null }
  >;
};

describe(`operator providers page: configuration, a test call, health from the request log on ${backendKind()}`, () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let t: TestApp;
  let key = '';

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    anthropic = await FakeAnthropic.start({ apiKey: 'sk-ant-the-real-one' }); // the gateway's key is refused
    t = await createTestApp({
      env: { ...providerEnv({ openai, anthropic }), OPENAI_MAX_RETRIES: '0', AUTH_CACHE_TTL_SECONDS: '0' },
    });
    const team = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'acme', balance_rub: 100 })).body
      .id;
    key = (await admin(request(t.url).post(`/api/v1/admin/teams/${team}/api-keys`)).send({})).body.api_key;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await openai?.close();
    await anthropic?.close();
  });

  const providers = async (): Promise<Record<string, Provider>> => {
    const res = await admin(request(t.url).get('/api/v1/admin/providers'));
    expect(res.status).toBe(200);
    return Object.fromEntries((res.body.data as Provider[]).map((p) => [p.name, p]));
  };

  it('lists each provider with its credential, base URL and CA file status', async () => {
    const p = await providers();
    expect(p.openai).toMatchObject({
      configured: true,
      missing: null,
      base_url: `${openai.baseUrl}/v1`,
      custom_base_url: true,
    });
    expect(p.deepseek).toMatchObject({ configured: false, missing: 'DEEPSEEK_API_KEY', custom_base_url: false });
    expect(p.gigachat).toMatchObject({ configured: false, takes_ca_file: true, ca_file: null });
    expect(p.local).toMatchObject({ configured: true, base_url: null, test_model: 'local' });
    expect(p.openai.health.last_day).toEqual({ calls: 0, errors: 0, error_rate: null, p50_ms: null, p95_ms: null });
    // operator only
    expect((await request(t.url).get('/api/v1/admin/providers').set('api-key', key)).status).toBe(401);
  });

  it('"Test" makes the smallest real request and reports latency or the error a caller would get', async () => {
    const { openai: o } = await providers();
    const ok = await admin(request(t.url).post('/api/v1/admin/providers/openai/test'));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ provider: 'openai', model: o.test_model, ok: true, error: null });
    expect(ok.body.latency_ms).toEqual(expect.any(Number));
    const sent = openai.lastRequest!.body as Record<string, unknown>;
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(1);
    expect(sent.messages).toEqual([{ role: 'user', content: 'ping' }]);

    const refused = await admin(request(t.url).post('/api/v1/admin/providers/anthropic/test'));
    expect(refused.body).toMatchObject({ ok: false, error: { status: 502, code: 'upstream_auth_error' } });
    expect(anthropic.requests.length).toBeGreaterThan(0);

    const absent = await admin(request(t.url).post('/api/v1/admin/providers/deepseek/test'));
    expect(absent.body).toMatchObject({
      ok: false,
      latency_ms: null,
      error: { status: 503, code: 'provider_not_configured' },
    });
    expect(absent.body.error.message).toContain('DEEPSEEK_API_KEY');
    expect((await admin(request(t.url).post('/api/v1/admin/providers/nope/test'))).status).toBe(404);
    expect((await request(t.url).post('/api/v1/admin/providers/openai/test').set('api-key', key)).status).toBe(401);
  });

  it('health: calls, upstream failures, error rate and p50/p95 from the request log (test calls not counted)', async () => {
    openai.enqueue({ text: 'one' }, { fault: faults.http(500) }, { text: 'three' });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++)
      codes.push(
        (
          await request(t.url)
            .post('/api/v1/chat')
            .set('api-key', key)
            .send({ model: 'gpt-4o-mini', user_id: 'u1', prompt: `call ${i}` })
        ).status,
      );
    expect(codes).toEqual([200, 502, 200]);
    let h: Provider['health'] | undefined;
    for (let i = 0; i < 100; i++) {
      h = (await providers()).openai.health;
      if (h.last_hour.calls >= 3) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(h!.last_hour).toMatchObject({ calls: 3, errors: 1 });
    expect(h!.last_hour.error_rate).toBeCloseTo(1 / 3, 6);
    expect(h!.last_hour.p50_ms).toEqual(expect.any(Number));
    expect(h!.last_hour.p95_ms!).toBeGreaterThanOrEqual(h!.last_hour.p50_ms!);
    expect(h!.last_day).toEqual(h!.last_hour);
  });
});
