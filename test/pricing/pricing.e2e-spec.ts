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
  let cbr: FakeCbr;
  let a: TestApp;
  let b: TestApp;
  let admin: AdminClient;
  let team: { teamId: string; apiKey: string };
  let other: { teamId: string; apiKey: string };

  const chat = (t: TestApp, apiKey: string, model: string, extra: Record<string, unknown> = {}) =>
    request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model, messages: [{ role: 'user', content: 'hi' }], ...extra });

  /** The newest charge of the key's team. */
  const lastCharge = async (t: TestApp, apiKey: string) => {
    const res = await request(t.url).get('/api/v1/usage?limit=5').set('api-key', apiKey);
    return (res.body.data as { kind: string; amount_rub: number; model: string; fx_rate: number | null; fx_date: string | null }[]).find(
      (e) => e.kind === 'charge',
    )!;
  };

  const catalogPrice = async (t: TestApp, apiKey: string, model: string) => {
    const res = await request(t.url).get('/api/v1/models').set('api-key', apiKey);
    return (res.body.data as { key: string; pricing: Record<string, number> | null; fx: unknown; available: boolean }[]).find(
      (m) => m.key === model,
    );
  };

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
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
    };
    a = await createTestApp({ env, clock });
    b = await createTestApp({ env, clock, shareBackendWith: a });
    admin = new AdminClient(a.url);
    team = await admin.teamWithKey(10, 'acme');
    other = await admin.teamWithKey(10, 'other');
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await openai?.close();
    await cbr?.close();
  });

  afterEach(() => openai.reset());

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
      const r = await op(request(a.url).get(`/api/v1/requests?team_id=${team.teamId}&model=gpt-4o`));
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
    expect(charges[0]).toMatchObject({ amount_rub: -(1000 * 231 + 100 * 924) / 1e6, fx_rate: 90.1, fx_date: '2026-11-29' });
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
});
