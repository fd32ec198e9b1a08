/**
 * Prices over HTTP on two replicas of one database: the operators' catalog editor (prices, disable,
 * aliases, validation, permissions, audit), USD-priced models at the CBR rate served by an in-test
 * CBR endpoint (Windows-1251, decimal comma) with the markup and the rate recorded per charge, the
 * rate of a new day for new charges only, a CBR outage (last rate kept, then the stale alert), no
 * rate at all (503 before any upstream call), and per-team prices applied to the hold, the charge
 * and the team's /api/v1/models.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { FxService } from '@app/fx';
import { FakeCbr, FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ManualClock } from '../support/manual-clock';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { as, joinTeam } from '../accounts/accounts-helpers';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';

jest.setTimeout(90_000);

const op = (r: request.Test) => r.set('authorization', `Bearer ${ADMIN_TOKEN}`);
const DAY = 86_400_000;
const HOUR = 3_600_000;

/** gpt-4o priced in USD through MODELS_FILE (the price fields are read in the entry's currency). */
const MODELS_YAML = `models:
  - key: gpt-4o
    currency: USD
    pricing:
      input_rub_per_1m: 2.5
      output_rub_per_1m: 10
      cache_read_rub_per_1m: 1.25
      image_rub: 0.001
`;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe(`pricing on ${backendKind()}`, () => {
  const clock = new ManualClock(Date.parse('2026-11-28T09:00:00Z')); // 12:00 in Moscow
  let openai: FakeOpenAI;
  /** a second OpenAI-compatible deployment, named by environment variables only */
  let eu: FakeOpenAI;
  let cbr: FakeCbr;
  let a: TestApp;
  let b: TestApp;
  let admin: AdminClient;
  let team: { teamId: string; apiKey: string };

  const chat = (t: TestApp, apiKey: string, model: string, extra: Record<string, unknown> = {}) =>
    request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model, messages: [{ role: 'user', content: 'hi' }], ...extra });

  /** The newest charge of the key's team. */
  const lastCharge = async (t: TestApp, apiKey: string) => {
    const res = await request(t.url).get('/api/v1/usage?limit=5').set('api-key', apiKey);
    return (
      res.body.data as {
        kind: string;
        amount_rub: number;
        model: string;
        fx_rate: number | null;
        fx_date: string | null;
      }[]
    ).find((e) => e.kind === 'charge')!;
  };

  const catalogPrice = async (t: TestApp, apiKey: string, model: string) => {
    const res = await request(t.url).get('/api/v1/models').set('api-key', apiKey);
    return (
      res.body.data as { key: string; pricing: Record<string, number> | null; fx: unknown; available: boolean }[]
    ).find((m) => m.key === model);
  };

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    eu = await FakeOpenAI.start({ apiKey: 'sk-eu-deployment' });
    cbr = await FakeCbr.start();
    cbr.fail(503); // the CBR is down when the gateway starts: no rate at all
    const dir = mkdtempSync(join(tmpdir(), 'gw-pricing-'));
    writeFileSync(join(dir, 'models.yaml'), MODELS_YAML);
    const env = {
      ...providerEnv({ openai }),
      BILLING_CREDIT_GRANTS: 'false',
      MODELS_FILE: join(dir, 'models.yaml'),
      FX_RATES_URL: cbr.url,
      FX_MARKUP_PERCENT: '2.5',
      FX_STALE_HOURS: '48',
      CATALOG_REFRESH_MS: '200',
      OPENAI_EU_BASE_URL: `${eu.baseUrl}/v1`,
      OPENAI_EU_API_KEY: 'sk-eu-deployment',
    };
    a = await createTestApp({ env, clock });
    b = await createTestApp({ env, clock, shareBackendWith: a });
    admin = new AdminClient(a.url);
    team = await admin.teamWithKey(10, 'acme');
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await openai?.close();
    await eu?.close();
    await cbr?.close();
  });

  afterEach(() => {
    openai.reset();
    eu.reset();
  });

  it('with no CBR rate at all, a USD-priced model answers 503 fx_rate_unavailable before any upstream call', async () => {
    await waitFor('the failed start fetch', async () =>
      (await request(a.url).get('/api/v1/fx-rates').set('api-key', team.apiKey)).body.last_error ? true : undefined,
    );
    const rates = await request(a.url).get('/api/v1/fx-rates').set('api-key', team.apiKey);
    expect(rates.status).toBe(200);
    expect(rates.body).toMatchObject({ currency: 'USD', rate: null, date: null, markup_percent: 2.5, alert: null });
    const res = await chat(a, team.apiKey, 'gpt-4o');
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'fx_rate_unavailable' });
    expect(openai.requests).toHaveLength(0);
    expect(await lastCharge(a, team.apiKey)).toBeUndefined();
    // listed without a price; RUB-priced models are unaffected
    expect(await catalogPrice(a, team.apiKey, 'gpt-4o')).toMatchObject({ pricing: null, available: false });
    expect((await chat(a, team.apiKey, 'gpt-4o-mini')).status).toBe(200);
  });

  it('charges a USD-priced model at the CBR rate × (1 + markup), whole µRUB per token, and records the rate', async () => {
    cbr.recover();
    cbr.setRates('28.11.2026', '81,5345');
    await a.get(FxService).refresh();
    await b.get(FxService).refresh();
    const rates = (await request(b.url).get('/api/v1/fx-rates').set('api-key', team.apiKey)).body;
    expect(rates).toMatchObject({ rate: 81.5345, date: '2026-11-28', stale: false, last_error: null });
    // 2.5 × 81.5345 × 1.025 = 208.93 → 209 µRUB per input token; 10 × … = 835.73 → 836 per output token
    expect((await catalogPrice(a, team.apiKey, 'gpt-4o'))?.pricing).toMatchObject({
      input_rub_per_1m: 209,
      output_rub_per_1m: 836,
      cache_read_rub_per_1m: 104, // 1.25 × 81.5345 × 1.025 = 104.47
    });
    openai.enqueue({ text: 'ok', usage: { input: 1000, output: 100 } });
    const res = await chat(a, team.apiKey, 'gpt-4o');
    expect(res.status).toBe(200);
    const charge = await lastCharge(a, team.apiKey);
    expect(charge).toMatchObject({ model: 'gpt-4o', amount_rub: -0.2926, fx_rate: 81.5345, fx_date: '2026-11-28' });
    const logged = await waitFor('the request-log record', async () => {
      const r = await op(request(a.url).get(`/api/v1/requests?team_id=${team.teamId}&model=gpt-4o&status=ok`));
      return (r.body.data as { fx_rate: number | null; fx_date: string | null; cost_rub: number }[] | undefined)?.[0];
    });
    expect(logged).toMatchObject({ fx_rate: 81.5345, fx_date: '2026-11-28', cost_rub: 0.2926 });
  });

  it('a new day’s rate changes new charges only', async () => {
    clock.advance(DAY);
    cbr.setRates('29.11.2026', '90,1');
    await a.get(FxService).refresh();
    openai.enqueue({ text: 'ok', usage: { input: 1000, output: 100 } });
    expect((await chat(a, team.apiKey, 'gpt-4o')).status).toBe(200);
    // 2.5 × 90.1 × 1.025 = 230.88 → 231; 10 × 90.1 × 1.025 = 923.525 → 924
    const charges = (await request(a.url).get('/api/v1/usage?limit=10').set('api-key', team.apiKey)).body.data.filter(
      (e: { model: string }) => e.model === 'gpt-4o',
    );
    expect(charges[0]).toMatchObject({
      amount_rub: -(1000 * 231 + 100 * 924) / 1e6,
      fx_rate: 90.1,
      fx_date: '2026-11-29',
    });
    expect(charges[1]).toMatchObject({ amount_rub: -0.2926, fx_rate: 81.5345, fx_date: '2026-11-28' });
  });

  it('CBR down: the last rate stays in use, then the stale alert after FX_STALE_HOURS', async () => {
    cbr.fail(500);
    clock.advance(25 * HOUR);
    await a.get(FxService).refresh();
    let rates = (await request(a.url).get('/api/v1/fx-rates').set('api-key', team.apiKey)).body;
    expect(rates).toMatchObject({ rate: 90.1, date: '2026-11-29', stale: false, alert: null });
    expect(rates.last_error).toMatch(/HTTP 500/);
    openai.enqueue({ text: 'ok', usage: { input: 1000, output: 0 } });
    expect((await chat(a, team.apiKey, 'gpt-4o')).status).toBe(200);
    expect(await lastCharge(a, team.apiKey)).toMatchObject({ amount_rub: -0.231, fx_rate: 90.1 });

    clock.advance(24 * HOUR); // 49 h since the last successful fetch
    await a.get(FxService).tick();
    rates = (await request(a.url).get('/api/v1/fx-rates').set('api-key', team.apiKey)).body;
    expect(rates).toMatchObject({ rate: 90.1, stale: true });
    expect(rates.alert).toMatchObject({ raised_at: new Date(clock.now()).toISOString() });
    expect(rates.alert.message).toMatch(/more than 48 h/);
    const metrics = await request(a.url).get('/metrics');
    expect(metrics.text).toMatch(/^gateway_fx_rate_stale 1$/m);
    // raised once: another replica's check does not raise it again
    await b.get(FxService).checkStale();
    expect((await request(b.url).get('/api/v1/fx-rates').set('api-key', team.apiKey)).body.alert.raised_at).toBe(
      rates.alert.raised_at,
    );
    // the next successful fetch clears it
    cbr.recover();
    cbr.setRates('01.12.2026', '90,1');
    await a.get(FxService).refresh();
    expect((await request(a.url).get('/api/v1/fx-rates').set('api-key', team.apiKey)).body).toMatchObject({
      stale: false,
      alert: null,
      date: '2026-12-01',
    });
  });

  describe('the operators’ catalog editor', () => {
    const put = (t: TestApp, model: string, body: unknown) =>
      op(request(t.url).put(`/api/v1/admin/models/${model}`)).send(body as object);
    const adminEntry = async (t: TestApp, model: string) =>
      ((await op(request(t.url).get('/api/v1/admin/models'))).body.data as { key: string }[]).find(
        (m) => m.key === model,
      ) as Record<string, unknown> | undefined;

    it('lists the effective catalog with where each price comes from', async () => {
      expect(await adminEntry(a, 'gpt-4o')).toMatchObject({
        source: 'file',
        currency: 'USD',
        enabled: true,
        prices: { input_rub_per_1m: 2.5, output_rub_per_1m: 10 },
        rub_prices: { input_rub_per_1m: 231, output_rub_per_1m: 924 },
        fx: { rate: 90.1, date: '2026-12-01', markup_percent: 2.5 },
      });
      const usd = (await op(request(a.url).get('/api/v1/admin/models?currency=USD&enabled=true'))).body.data;
      expect(usd.map((m: { key: string }) => m.key)).toEqual(['gpt-4o']);
      const search = (await op(request(a.url).get('/api/v1/admin/models?q=MINI&kind=chat'))).body.data;
      expect(search.map((m: { key: string }) => m.key)).toContain('gpt-4o-mini');
      expect(search.every((m: { key: string; kind: string }) => m.kind === 'chat' && /mini/.test(m.key))).toBe(true);
      expect(await adminEntry(a, 'gpt-4o-mini')).toMatchObject({
        source: 'builtin',
        currency: 'RUB',
        prices: { input_rub_per_1m: 15, output_rub_per_1m: 60 },
        fx: null,
      });
    });

    it('refuses invalid prices with 400 and unknown models with 404, storing nothing', async () => {
      const negative = await put(a, 'gpt-4o-mini', { prices: { input_per_1m: -1 } });
      expect(negative.status).toBe(400);
      expect(negative.body.error).toMatchObject({ code: 'invalid_model_prices', param: 'prices.input_per_1m' });
      const missing = await put(a, 'gpt-4o-mini', { prices: { input_per_1m: null } });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatchObject({ param: 'prices.input_per_1m' });
      const text = await put(a, 'gpt-4o-mini', { prices: { output_per_1m: 'ten' } });
      expect(text.status).toBe(400);
      const fallback = await put(a, 'gpt-4o-mini', { fallbacks: ['no-such-model'] });
      expect(fallback.status).toBe(400);
      expect(fallback.body.error.message).toMatch(/no-such-model/);
      expect((await put(a, 'gpt-4o-mini', { currency: 'EUR' })).status).toBe(400);
      expect((await put(a, 'gpt-4o-mini', { price: 1 })).body.error).toMatchObject({ code: 'unknown_parameter' });
      expect((await put(a, 'gpt-4o-mini', { aliases: ['gpt-4o'] })).status).toBe(400);
      const unknown = await put(a, 'no-such-model', { prices: { input_per_1m: 1 } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 'model_not_found' });
      expect(await adminEntry(a, 'gpt-4o-mini')).toMatchObject({ source: 'builtin' });
    });

    it('only operators: a team admin’s session gets 403, an API key 401', async () => {
      const member = await joinTeam(a.url, team.teamId, 'boss@acme.test', 'admin', 'correct horse battery');
      expect((await as(a.url, member).get('/api/v1/admin/models')).status).toBe(403);
      expect((await as(a.url, member).put('/api/v1/admin/models/gpt-4o-mini').send({ enabled: false })).status).toBe(
        403,
      );
      expect((await as(a.url, member).get(`/api/v1/admin/teams/${team.teamId}/pricing`)).status).toBe(403);
      expect(
        (await as(a.url, member).put(`/api/v1/admin/teams/${team.teamId}/pricing`).send({ discount_percent: 100 }))
          .status,
      ).toBe(403);
      expect((await request(a.url).get('/api/v1/admin/models').set('api-key', team.apiKey)).status).toBe(401);
      // any authenticated caller reads the rate
      expect((await as(a.url, member).get('/api/v1/fx-rates').set('x-team-id', team.teamId)).status).toBe(200);
    });

    it('a price edit applies to the next request, on this replica at once and on the other within the poll', async () => {
      const res = await put(a, 'gpt-4o-mini', { prices: { input_per_1m: 30, output_per_1m: 90 } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ source: 'database', prices: { input_rub_per_1m: 30, output_rub_per_1m: 90 } });
      openai.enqueue({ text: 'ok', usage: { input: 1000, output: 100 } });
      expect((await chat(a, team.apiKey, 'gpt-4o-mini')).status).toBe(200);
      expect(await lastCharge(a, team.apiKey)).toMatchObject({ model: 'gpt-4o-mini', amount_rub: -0.039 });
      await waitFor('the edit on the other replica', async () =>
        (await catalogPrice(b, team.apiKey, 'gpt-4o-mini'))?.pricing?.input_rub_per_1m === 30 ? true : undefined,
      );
      openai.enqueue({ text: 'ok', usage: { input: 1000, output: 100 } });
      expect((await chat(b, team.apiKey, 'gpt-4o-mini')).status).toBe(200);
      expect(await lastCharge(b, team.apiKey)).toMatchObject({ model: 'gpt-4o-mini', amount_rub: -0.039 });
      const audit = await op(request(a.url).get('/api/v1/audit-log?action=catalog.model.update&target=gpt-4o-mini'));
      expect(audit.body.data.length).toBeGreaterThanOrEqual(1);
      expect(audit.body.data[0]).toMatchObject({ actor_type: 'operator_token', action: 'catalog.model.update' });
    });

    it('a model priced in USD through the admin API is charged at the rate', async () => {
      const res = await put(a, 'gpt-4o-mini', {
        currency: 'USD',
        prices: { input_per_1m: 0.15, output_per_1m: 0.6, cache_read_per_1m: null },
      });
      expect(res.status).toBe(200);
      // 0.15 × 90.1 × 1.025 = 13.85 → 14; 0.6 × 90.1 × 1.025 = 55.41 → 55
      expect(res.body.rub_prices).toMatchObject({ input_rub_per_1m: 14, output_rub_per_1m: 55 });
      openai.enqueue({ text: 'ok', usage: { input: 1000, output: 100 } });
      expect((await chat(a, team.apiKey, 'gpt-4o-mini')).status).toBe(200);
      expect(await lastCharge(a, team.apiKey)).toMatchObject({ amount_rub: -0.0195, fx_rate: 90.1 });
    });

    it('aliases answer for the model; a disabled model answers 404 like an unknown one, on both replicas', async () => {
      expect((await put(a, 'gpt-4o-mini', { aliases: ['mini-alias'] })).status).toBe(200);
      openai.enqueue({ text: 'ok', usage: { input: 10, output: 1 } });
      expect((await chat(a, team.apiKey, 'mini-alias')).status).toBe(200);
      expect(openai.lastRequest?.body).toMatchObject({ model: 'gpt-4o-mini' });

      const off = await put(a, 'gpt-4o-mini', { enabled: false });
      expect(off.body).toMatchObject({ enabled: false, source: 'database' });
      const res = await chat(a, team.apiKey, 'gpt-4o-mini');
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'model_not_found' });
      expect((await chat(a, team.apiKey, 'mini-alias')).status).toBe(404);
      const listed = (await request(a.url).get('/v1/models').set('api-key', team.apiKey)).body.data.map(
        (m: { id: string }) => m.id,
      );
      expect(listed).not.toContain('gpt-4o-mini');
      await waitFor('the disable on the other replica', async () =>
        (await catalogPrice(b, team.apiKey, 'gpt-4o-mini')) === undefined ? true : undefined,
      );
      expect((await chat(b, team.apiKey, 'gpt-4o-mini')).status).toBe(404);
      expect(openai.requests.filter((r) => r.body.model === 'gpt-4o-mini')).toHaveLength(1);
    });

    it('DELETE drops the override: back to the built-in entry', async () => {
      const res = await op(request(a.url).delete('/api/v1/admin/models/gpt-4o-mini'));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        source: 'builtin',
        enabled: true,
        currency: 'RUB',
        prices: { input_rub_per_1m: 15 },
      });
      expect((await op(request(a.url).delete('/api/v1/admin/models/gpt-4o-mini'))).status).toBe(404);
      openai.enqueue({ text: 'ok', usage: { input: 1000, output: 100 } });
      expect((await chat(a, team.apiKey, 'gpt-4o-mini')).status).toBe(200);
      expect(await lastCharge(a, team.apiKey)).toMatchObject({ amount_rub: -0.021 });
      await waitFor('the reset on the other replica', async () =>
        (await catalogPrice(b, team.apiKey, 'gpt-4o-mini'))?.pricing?.input_rub_per_1m === 15 ? true : undefined,
      );
    });

    it('a fee per request is charged with the token prices of every call, and shown as overridden', async () => {
      expect((await put(a, 'gpt-4.1-mini', { prices: { request: -0.5 } })).body.error).toMatchObject({
        code: 'invalid_model_prices',
        param: 'prices.request',
      });
      const res = await put(a, 'gpt-4.1-mini', { prices: { request: 0.5 } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        source: 'database',
        prices: { input_rub_per_1m: 40, output_rub_per_1m: 160, request_rub: 0.5 },
        rub_prices: { request_rub: 0.5 },
        overridden_fields: ['prices.request'],
      });
      expect((await adminEntry(a, 'gpt-4.1')) as Record<string, unknown>).toMatchObject({
        overridden_fields: [],
        prices: { request_rub: null },
      });
      openai.enqueue({ text: 'ok', usage: { input: 1000, output: 100 } });
      expect((await chat(a, team.apiKey, 'gpt-4.1-mini')).status).toBe(200);
      // 1000 × 40 / 1M + 100 × 160 / 1M + 0.5
      expect(await lastCharge(a, team.apiKey)).toMatchObject({ model: 'gpt-4.1-mini', amount_rub: -0.556 });
      // the team's catalog shows the fee
      expect((await catalogPrice(a, team.apiKey, 'gpt-4.1-mini'))?.pricing).toMatchObject({ request_rub: 0.5 });
      expect((await op(request(a.url).delete('/api/v1/admin/models/gpt-4.1-mini'))).status).toBe(200);
    });

    it('deployments: only URLs and keys of the environment, routed at once; null goes back to the provider', async () => {
      const refused = async (deployments: unknown, param: string) => {
        const r = await put(a, 'gpt-4.1-mini', { deployments });
        expect(r.status).toBe(400);
        expect(r.body.error).toMatchObject({ code: 'invalid_model_prices', param });
      };
      // a new URL would receive the provider's key: the editor takes environment variables instead
      await refused([{ base_url: 'https://elsewhere.test/v1' }], 'deployments[0].base_url');
      await refused(
        [{ base_url_env: 'OPENAI_EU_BASE_URL', api_key_env: 'DATABASE_URL' }],
        'deployments[0].api_key_env',
      );
      await refused([{ base_url_env: 'HOME' }], 'deployments[0].base_url_env');
      await refused([{ base_url_env: 'OPENAI_EU_BASE_URL', weight: 0 }], 'deployments[0].weight');
      await refused([], 'deployments');
      const dup = await put(a, 'gpt-4.1-mini', {
        deployments: [
          { id: 'x', base_url_env: 'OPENAI_EU_BASE_URL' },
          { id: 'x', base_url_env: 'OPENAI_EU_BASE_URL' },
        ],
      });
      expect(dup.status).toBe(400);
      expect(dup.body.error.message).toMatch(/duplicate id "x"/);
      expect(await adminEntry(a, 'gpt-4.1-mini')).toMatchObject({ source: 'builtin', deployments: null });

      const res = await put(a, 'gpt-4.1-mini', {
        deployments: [{ id: 'eu', base_url_env: 'OPENAI_EU_BASE_URL', api_key_env: 'OPENAI_EU_API_KEY', weight: 2 }],
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        deployments: [
          { id: 'eu', base_url: null, base_url_env: 'OPENAI_EU_BASE_URL', api_key_env: 'OPENAI_EU_API_KEY', weight: 2 },
        ],
        overridden_fields: ['deployments'],
        available: true,
      });
      eu.enqueue({ text: 'from eu', usage: { input: 10, output: 1 } });
      const viaEu = await chat(a, team.apiKey, 'gpt-4.1-mini');
      expect(viaEu.status).toBe(200);
      expect(viaEu.body.choices[0].message.content).toBe('from eu');
      expect(eu.requests).toHaveLength(1);
      expect(eu.lastRequest?.body).toMatchObject({ model: 'gpt-4.1-mini' });
      expect(openai.requests).toHaveLength(0);
      // the other replica routes there too once its poll saw the change
      await waitFor('the deployments on the other replica', async () => {
        eu.enqueue({ text: 'from eu', usage: { input: 10, output: 1 } });
        openai.enqueue({ text: 'ok', usage: { input: 10, output: 1 } });
        const r = await chat(b, team.apiKey, 'gpt-4.1-mini');
        return r.body.choices?.[0]?.message?.content === 'from eu' ? true : undefined;
      });
      eu.reset();
      openai.reset();

      expect((await put(a, 'gpt-4.1-mini', { deployments: null })).body).toMatchObject({ deployments: null });
      openai.enqueue({ text: 'from openai', usage: { input: 10, output: 1 } });
      expect((await chat(a, team.apiKey, 'gpt-4.1-mini')).body.choices[0].message.content).toBe('from openai');
      expect(eu.requests).toHaveLength(0);
      expect((await op(request(a.url).delete('/api/v1/admin/models/gpt-4.1-mini'))).status).toBe(200);
    });
  });

  describe('per-team prices', () => {
    let small: { teamId: string; apiKey: string };
    let plain: { teamId: string; apiKey: string };
    const putTeam = (teamId: string, body: unknown) =>
      op(request(a.url).put(`/api/v1/admin/teams/${teamId}/pricing`)).send(body as object);

    beforeAll(async () => {
      small = await admin.teamWithKey(0.5, 'small');
      plain = await admin.teamWithKey(0.5, 'plain');
    });

    it('validates the discount, the models and their prices', async () => {
      expect((await putTeam(small.teamId, { discount_percent: 150 })).status).toBe(400);
      expect((await putTeam(small.teamId, { discount_percent: -1 })).status).toBe(400);
      const unknown = await putTeam(small.teamId, { models: { 'no-such-model': { input_per_1m_rub: 1 } } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({ param: 'models.no-such-model' });
      const negative = await putTeam(small.teamId, { models: { 'gpt-4o-mini': { input_per_1m_rub: -5 } } });
      expect(negative.status).toBe(400);
      expect(negative.body.error).toMatchObject({ param: 'models.gpt-4o-mini.input_per_1m_rub' });
      expect((await putTeam(small.teamId, { models: { 'gpt-4o-mini': { input: 5 } } })).status).toBe(400);
      expect(
        (await op(request(a.url).get('/api/v1/admin/teams/00000000-0000-4000-8000-000000000000/pricing'))).status,
      ).toBe(404);
    });

    it('a discount and own prices apply to the team’s hold, charge and /api/v1/models, and to no other team', async () => {
      // at catalog prices 10 000 output tokens of gpt-4o-mini hold 0.6 RUB: more than a 0.5 RUB balance
      const refused = await chat(a, plain.apiKey, 'gpt-4o-mini', { max_tokens: 10_000 });
      expect(refused.status).toBe(402);
      const res = await putTeam(small.teamId, {
        discount_percent: 20,
        models: { 'gpt-4o-mini': { input_per_1m_rub: 10, output_per_1m_rub: 20 } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ team_id: small.teamId, discount_percent: 20, markup_percent: 0 });
      const own = (res.body.prices as { model: string; pricing: Record<string, number> }[]).find(
        (p) => p.model === 'gpt-4o-mini',
      );
      expect(own?.pricing).toMatchObject({ input_rub_per_1m: 10, output_rub_per_1m: 20, cache_read_rub_per_1m: 6 });
      expect((await catalogPrice(a, small.apiKey, 'gpt-4o-mini'))?.pricing).toMatchObject({
        input_rub_per_1m: 10,
        output_rub_per_1m: 20,
      });
      // the discount on a USD-priced model: 231 × 0.8
      expect((await catalogPrice(a, small.apiKey, 'gpt-4o'))?.pricing).toMatchObject({ input_rub_per_1m: 184.8 });
      expect((await catalogPrice(a, plain.apiKey, 'gpt-4o-mini'))?.pricing).toMatchObject({ input_rub_per_1m: 15 });

      openai.enqueue({ text: 'ok', usage: { input: 1000, output: 100 } });
      const held = await chat(a, small.apiKey, 'gpt-4o-mini', { max_tokens: 10_000 });
      expect(held.status).toBe(200);
      expect(await lastCharge(a, small.apiKey)).toMatchObject({ amount_rub: -0.012 });
      openai.enqueue({ text: 'ok', usage: { input: 1000, output: 100 } });
      expect((await chat(a, small.apiKey, 'gpt-4o')).status).toBe(200);
      // (1000 × 231 + 100 × 924) × 0.8 µRUB
      expect(await lastCharge(a, small.apiKey)).toMatchObject({ amount_rub: -0.25872, fx_rate: 90.1 });

      await waitFor('the team prices on the other replica', async () =>
        (await catalogPrice(b, small.apiKey, 'gpt-4o-mini'))?.pricing?.input_rub_per_1m === 10 ? true : undefined,
      );
      expect((await op(request(b.url).get(`/api/v1/admin/teams/${small.teamId}/pricing`))).body).toMatchObject({
        discount_percent: 20,
        models: { 'gpt-4o-mini': { input_per_1m_rub: 10, output_per_1m_rub: 20 } },
      });
      const audit = await op(
        request(a.url).get(`/api/v1/audit-log?team_id=${small.teamId}&action=team.pricing.update`),
      );
      expect(audit.body.data[0]).toMatchObject({ action: 'team.pricing.update', team_id: small.teamId });
    });

    it('an image model’s prices per generated image are the team’s: listed at its markup, and charged so', async () => {
      type View = { model: string; per_image_rub: Record<string, Record<string, number>> | null };
      const imager = await admin.teamWithKey(1, 'imager');
      const res = await putTeam(imager.teamId, { markup_percent: 50 });
      expect(res.status).toBe(200);
      const view = res.body.prices as View[];
      const of = (rows: View[], model: string) => rows.find((p) => p.model === model)?.per_image_rub;
      expect(of(view, 'local-image')?.['256x256']).toEqual({ low: 0.015, medium: 0.03, high: 0.06 });
      expect(of(view, 'dall-e-3')?.['1024x1024']).toEqual({ standard: 6, hd: 12 });
      expect(of(view, 'gpt-4o-mini')).toBeNull();
      // a team with no prices of its own is shown the catalog's table
      const catalog = await op(request(a.url).get(`/api/v1/admin/teams/${plain.teamId}/pricing`));
      expect(of(catalog.body.prices as View[], 'local-image')?.['256x256']).toEqual({
        low: 0.01,
        medium: 0.02,
        high: 0.04,
      });

      const image = await request(a.url)
        .post('/v1/images/generations')
        .set('authorization', `Bearer ${imager.apiKey}`)
        .send({ model: 'local-image', prompt: 'a lighthouse', size: '256x256', quality: 'low' });
      expect(image.status).toBe(200);
      expect(await lastCharge(a, imager.apiKey)).toMatchObject({ model: 'local-image', amount_rub: -0.015 });
    });

    it('a team’s own fee per request is charged per call instead of the catalog’s; 0 is none; bad values 400', async () => {
      // the request log record of a call, once written (by its x-request-id)
      const logged = (id: string) =>
        waitFor(`the request log record ${id}`, async () => {
          const r = await op(request(a.url).get(`/api/v1/requests/${id}`));
          return r.status === 200 ? (r.body as { cost_rub: number; model: string }) : undefined;
        });
      const own = await admin.teamWithKey(5, 'own-fee');
      const free = await admin.teamWithKey(5, 'no-fee');
      const other = await admin.teamWithKey(5, 'catalog-fee');
      const fee = (v: unknown) => putTeam(own.teamId, { models: { 'gpt-4.1-mini': { request_rub: v } } });
      for (const bad of [-0.2, 0.1234567, '0.2', true]) {
        const r = await fee(bad);
        expect(r.status).toBe(400);
        expect(r.body.error).toMatchObject({ param: 'models.gpt-4.1-mini.request_rub' });
      }
      // null is the same as left out: the catalog's fee (there is none yet)
      const none = await fee(null);
      expect(none.status).toBe(200);
      expect(none.body.models).toEqual({ 'gpt-4.1-mini': {} });

      const catalog = await op(request(a.url).put('/api/v1/admin/models/gpt-4.1-mini')).send({
        prices: { request: 0.5 },
      });
      expect(catalog.status).toBe(200);
      const set = await fee(0.2);
      expect(set.status).toBe(200);
      expect(set.body.models).toEqual({ 'gpt-4.1-mini': { request_rub: 0.2 } });
      const view = (set.body.prices as { model: string; pricing: Record<string, number> }[]).find(
        (p) => p.model === 'gpt-4.1-mini',
      );
      expect(view?.pricing).toMatchObject({ input_rub_per_1m: 40, request_rub: 0.2 });
      expect((await putTeam(free.teamId, { models: { 'gpt-4.1-mini': { request_rub: 0 } } })).body.models).toEqual({
        'gpt-4.1-mini': { request_rub: 0 },
      });
      expect((await catalogPrice(a, own.apiKey, 'gpt-4.1-mini'))?.pricing).toMatchObject({ request_rub: 0.2 });
      expect((await catalogPrice(a, free.apiKey, 'gpt-4.1-mini'))?.pricing).toMatchObject({ request_rub: 0 });
      expect((await catalogPrice(a, other.apiKey, 'gpt-4.1-mini'))?.pricing).toMatchObject({ request_rub: 0.5 });

      // 1000 × 40 / 1M + 100 × 160 / 1M = 0.056 of tokens, and the fee of each team, once per call
      for (const [team, fee, total] of [
        [own, 0.2, 0.256],
        [free, null, 0.056],
        [other, 0.5, 0.556],
      ] as const) {
        for (let call = 0; call < 2; call++) {
          const before = await admin.balance(team.apiKey);
          openai.enqueue({ text: 'ok', usage: { input: 1000, output: 100 } });
          const res = await chat(a, team.apiKey, 'gpt-4.1-mini');
          expect(res.status).toBe(200);
          expect(res.body.cost.total_cost_rub).toBe(total);
          expect(res.body.cost.request_cost_rub).toBe(fee ?? undefined);
          expect(await lastCharge(a, team.apiKey)).toMatchObject({ model: 'gpt-4.1-mini', amount_rub: -total });
          expect((await logged(res.headers['x-request-id'] as string)).cost_rub).toBe(total);
          expect(Number((before - (await admin.balance(team.apiKey))).toFixed(6))).toBe(total);
        }
      }

      // every kind of call: an embeddings call of the team is charged its own fee on that model too
      expect(
        (
          await putTeam(own.teamId, {
            models: { 'gpt-4.1-mini': { request_rub: 0.2 }, 'text-embedding-3-small': { request_rub: 0.1 } },
          })
        ).status,
      ).toBe(200);
      const before = await admin.balance(own.apiKey);
      openai.enqueue({ route: 'embeddings', usage: { input: 1000, output: 0 } });
      const emb = await request(a.url)
        .post('/v1/embeddings')
        .set('authorization', `Bearer ${own.apiKey}`)
        .send({ model: 'text-embedding-3-small', input: 'hello' });
      expect(emb.status).toBe(200);
      // 1000 × 200 / 1M + 0.1
      expect(emb.body.cost).toMatchObject({ total_cost_rub: 0.3 });
      expect(await lastCharge(a, own.apiKey)).toMatchObject({ model: 'text-embedding-3-small', amount_rub: -0.3 });
      expect((await logged(emb.headers['x-request-id'] as string)).cost_rub).toBe(0.3);
      expect(Number((before - (await admin.balance(own.apiKey))).toFixed(6))).toBe(0.3);
      // another team pays no fee on that model: the catalog has none
      openai.enqueue({ route: 'embeddings', usage: { input: 1000, output: 0 } });
      const plainEmb = await request(a.url)
        .post('/v1/embeddings')
        .set('authorization', `Bearer ${other.apiKey}`)
        .send({ model: 'text-embedding-3-small', input: 'hello' });
      expect(plainEmb.body.cost).toMatchObject({ total_cost_rub: 0.2 });

      expect((await op(request(a.url).delete('/api/v1/admin/models/gpt-4.1-mini'))).status).toBe(200);
    });
  });
});
