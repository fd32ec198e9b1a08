/**
 * A database outage, and the durable billing spool: Postgres restarts under the service (a private
 * server, never the shared one). Requests during the outage answer 503 `service_unavailable` with
 * Retry-After; a charge whose settle hit the outage is spooled to disk and applied once the
 * database is back (nothing free, nothing twice); a hold whose release hit the outage is released
 * when it returns.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { BillingService } from '@app/billing';
import { FakeOpenAI, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { PrivatePostgres } from '../support/private-postgres';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { PRICES, UPSTREAM_KEYS, expectedCost, providerEnv } from '../chat/chat-helpers';

const run = backendKind() === 'postgres' && PrivatePostgres.available() ? describe : describe.skip;

/** A private Postgres that can be stopped, a fake OpenAI and the gateway on them. */
interface Outage {
  pg: PrivatePostgres;
  t: TestApp;
  openai: FakeOpenAI;
  admin: AdminClient;
  close(): Promise<void>;
}

async function startOutage(creditGrants: boolean): Promise<Outage> {
  const pg = await PrivatePostgres.start();
  const openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-outage-'));
  const t = await createTestApp({
    env: {
      ...providerEnv({ openai }),
      OPENAI_MAX_RETRIES: '0',
      DATABASE_URL: pg.url,
      DATABASE_SCHEMA: '',
      DATA_DIR: dataDir,
      AUTH_CACHE_TTL_SECONDS: '5',
      BILLING_CREDIT_GRANTS: String(creditGrants),
    },
  });
  return {
    pg,
    t,
    openai,
    admin: new AdminClient(t.url),
    close: async () => {
      await t.close().catch(() => undefined);
      await openai.close();
      await pg.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

run('database outage (private Postgres)', () => {
  let outage: Outage;
  let pg: PrivatePostgres;
  let t: TestApp;
  let openai: FakeOpenAI;
  let admin: AdminClient;
  let apiKey: string;
  const toMicro = (rub: number): number => Math.round(rub * 1e6);

  beforeAll(async () => {
    // every request holds with a write of its own here (credit grants: the suite below)
    outage = await startOutage(false);
    ({ pg, t, openai, admin } = outage);
    ({ apiKey } = await admin.teamWithKey(10, 'outage'));
  }, 60_000);
  afterAll(() => outage?.close());
  afterEach(() => openai.reset());

  const ask = (stream = false) =>
    request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({ model: 'gpt-4o-mini', user_id: 'u', prompt: 'hello there', max_tokens: 50, stream });

  it('requests while the database is down answer 503 service_unavailable with Retry-After, never 500', async () => {
    expect((await ask()).status).toBe(200); // warms the key cache
    await pg.down();
    try {
      const res = await ask();
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({
        error: {
          message: expect.stringMatching(/database/),
          type: 'api_error',
          code: 'service_unavailable',
          param: null,
        },
      });
      const balance = await request(t.url).get('/api/v1/balance').set('api-key', apiKey);
      expect(balance.status).toBe(503);
      expect(openai.requests).toHaveLength(1);
    } finally {
      await pg.up();
    }
  }, 60_000);

  it('a settle that hits the outage is spooled and applied when the database returns: charged exactly once', async () => {
    const billing = t.get(BillingService);
    const before = await admin.balance(apiKey);
    const charges = async () =>
      (await request(t.url).get('/api/v1/usage?limit=100').set('api-key', apiKey)).body.data.filter(
        (e: { kind: string }) => e.kind === 'charge',
      ).length;
    const chargesBefore = await charges();
    // the answer arrives only after the database went down
    openai.enqueue({ text: 'a late answer', usage: { input: 9, output: 4 }, delayMs: 1_500 });
    const pending = ask().then((r) => r); // supertest sends on then()
    await openai.waitForRequests(1, 10_000); // reserved, and the provider is working on it
    await pg.down();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.response.text).toBe('a late answer');
    expect(billing.stats().spoolPending).toBe(1);
    await pg.up();
    await billing.replaySpool();
    expect(billing.stats().spoolPending).toBe(0);
    const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 9, completion: 4 });
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(toMicro(cost.total_cost_rub));
    expect(await charges()).toBe(chargesBefore + 1);
    await billing.replaySpool();
    expect(await charges()).toBe(chargesBefore + 1);
    const bal = await request(t.url).get('/api/v1/balance').set('api-key', apiKey);
    expect(bal.body.reserved_rub).toBe(0);
  }, 60_000);

  it('a hold whose release hit the outage is released when the database returns', async () => {
    const billing = t.get(BillingService);
    openai.enqueue({ fault: faults.http(500), delayMs: 1_500 });
    const pending = ask().then((r) => r); // supertest sends on then()
    await openai.waitForRequests(1, 10_000); // reserved, and the provider is working on it
    await pg.down();
    const res = await pending;
    expect(res.status).toBe(502);
    await pg.up();
    await billing.replaySpool();
    const bal = await request(t.url).get('/api/v1/balance').set('api-key', apiKey);
    expect(bal.status).toBe(200);
    expect(bal.body.reserved_rub).toBe(0);
  }, 60_000);
});

run('database outage with credit grants (private Postgres)', () => {
  let outage: Outage;
  let pg: PrivatePostgres;
  let t: TestApp;
  let openai: FakeOpenAI;
  let admin: AdminClient;
  const toMicro = (rub: number): number => Math.round(rub * 1e6);

  beforeAll(async () => {
    outage = await startOutage(true);
    ({ pg, t, openai, admin } = outage);
  }, 60_000);
  afterAll(() => outage?.close());

  const ask = (apiKey: string) =>
    request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({ model: 'gpt-4o-mini', user_id: 'u', prompt: 'hello there', max_tokens: 50 });

  it('credit already granted to the replica serves requests during the outage; their charges are spooled and applied once; a team with no credit here gets 503', async () => {
    const billing = t.get(BillingService);
    const { apiKey } = await admin.teamWithKey(10, 'granted');
    const { apiKey: cold } = await admin.teamWithKey(10, 'cold');
    expect((await ask(cold)).status).toBe(200); // warms the key cache (its grant is returned when idle)
    await new Promise((r) => setTimeout(r, 3_500));
    expect((await ask(apiKey)).status).toBe(200); // takes a grant and warms the key cache
    const before = await admin.balance(apiKey);
    await pg.down();
    try {
      openai.enqueue({ text: 'served from credit', usage: { input: 9, output: 4 } });
      const res = await ask(apiKey);
      expect(res.status).toBe(200);
      expect(res.body.response.text).toBe('served from credit');
      expect(billing.stats().spoolPending).toBe(1);
      const refused = await ask(cold);
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('service_unavailable');
    } finally {
      await pg.up();
    }
    await billing.replaySpool();
    await billing.replaySpool(); // a second replay applies nothing more
    expect(billing.stats().spoolPending).toBe(0);
    const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 9, completion: 4 });
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(toMicro(cost.total_cost_rub));
    const usage = await request(t.url).get('/api/v1/usage?limit=100').set('api-key', apiKey);
    expect(usage.body.data.filter((e: { kind: string }) => e.kind === 'charge')).toHaveLength(2);
  }, 60_000);
});
