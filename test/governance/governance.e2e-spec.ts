import request from 'supertest';
import { DataSource } from 'typeorm';
import { RateLimitEvents } from '@app/governance';
import { AdminClient } from '../support/admin-client';
import { ManualClock } from '../support/manual-clock';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { Scrape } from '../observability/prometheus-text';

const admin = (r: request.Test) => r.set('authorization', `Bearer ${ADMIN_TOKEN}`);
/** a fixed instant in the middle of a UTC day, so day and month budgets do not roll over mid-test */
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

const embed = (url: string, apiKey: string, input: string | string[] = 'red apple') =>
  request(url).post('/v1/embeddings').set('api-key', apiKey).send({ model: 'local-embedding-small', input });

type LedgerRow = {
  apiKeyId: string | null;
  model: string | null;
  endpoint: string | null;
  kind: string;
  amountMicro: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  createdAt: number;
};

/** Rate limits, key budgets, the admin API for them and the usage summary. */
describe(`governance on ${backendKind()}`, () => {
  const clock = new ManualClock(T0);
  let a: TestApp;
  /** a second replica on the same database and Redis (Postgres + Redis only: the embedded limiter is per process) */
  let b: TestApp;
  let client: AdminClient;
  const shared = backendKind() === 'postgres';

  beforeAll(async () => {
    a = await createTestApp({ clock, env: { LOG_LEVEL: process.env.GOV_LOG ?? 'silent' } });
    b = shared ? await createTestApp({ clock, shareBackendWith: a }) : a;
    client = new AdminClient(a.url);
  }, 60_000);
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
  });

  const patchKey = (id: string, body: Record<string, unknown>) =>
    admin(request(a.url).patch(`/api/v1/admin/api-keys/${id}`)).send(body);
  const ledger = async (teamId: string): Promise<LedgerRow[]> =>
    (await a
      .get(DataSource)
      .getRepository<LedgerRow & { teamId: string }>('LedgerEntryEntity')
      .find({ where: { teamId } })) as LedgerRow[];

  it(`a key limited to 60 RPM gets exactly 60 of 100 requests within the minute (${shared ? 'two replicas, Redis' : 'in-process'}), then refills`, async () => {
    clock.advance(0);
    const { keyId, apiKey } = await client.teamWithKey(1000, 'rpm');
    expect((await patchKey(keyId, { rpm_limit: 60 })).status).toBe(200);
    const rejectedBefore =
      a.get(RateLimitEvents).counts().requests + (b !== a ? b.get(RateLimitEvents).counts().requests : 0);
    const replicas = b !== a ? [a, b] : [a];
    const scrapeRejected = async () => {
      let n = 0;
      for (const r of replicas)
        n += (await Scrape.of(r.url)).value('gateway_rate_limited_total', { scope: 'key', kind: 'requests' });
      return n;
    };
    const metricBefore = await scrapeRejected();

    const results: request.Response[] = [];
    for (let batch = 0; batch < 10; batch++) {
      results.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, i) => embed((batch * 10 + i) % 2 === 0 ? a.url : b.url, apiKey)),
        )),
      );
    }
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(60);
    expect(limited).toHaveLength(40);
    if (shared) {
      // both replicas admitted some: the count is shared
      expect(results.filter((r, i) => i % 2 === 0 && r.status === 200).length).toBeGreaterThan(0);
      expect(results.filter((r, i) => i % 2 === 1 && r.status === 200).length).toBeGreaterThan(0);
    }
    // successful answers carry OpenAI's headers
    for (const r of ok) {
      expect(r.headers['x-ratelimit-limit-requests']).toBe('60');
      expect(Number(r.headers['x-ratelimit-remaining-requests'])).toBeGreaterThanOrEqual(0);
      expect(r.headers['x-ratelimit-reset-requests']).toMatch(/^\d+(\.\d+)?s$/);
    }
    expect(ok.map((r) => Number(r.headers['x-ratelimit-remaining-requests'])).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    // the 429: OpenAI's shape, Retry-After and headers
    const r429 = limited[0];
    expect(r429.body).toEqual({
      error: {
        message: expect.stringMatching(
          /^Rate limit reached for API key .* on requests per min \(RPM\): Limit 60, Remaining 0, Requested 1\. Please try again in 1s\.$/,
        ),
        type: 'requests',
        code: 'rate_limit_exceeded',
        param: null,
      },
    });
    expect(r429.headers['retry-after']).toBe('1');
    expect(r429.headers['x-ratelimit-limit-requests']).toBe('60');
    expect(r429.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(r429.headers['x-ratelimit-reset-requests']).toBe('60s');
    // the observability hook saw every rejection
    const rejectedAfter =
      a.get(RateLimitEvents).counts().requests + (b !== a ? b.get(RateLimitEvents).counts().requests : 0);
    expect(rejectedAfter - rejectedBefore).toBe(40);
    // and /metrics counts them (summed over the replicas, as Prometheus would)
    expect((await scrapeRejected()) - metricBefore).toBe(40);

    // nothing was charged for the refused ones
    expect(
      (await ledger((await admin(request(a.url).get(`/api/v1/admin/api-keys/${keyId}`))).body.team_id)).filter(
        (e) => e.kind === 'charge',
      ),
    ).toHaveLength(60);

    // one second later exactly one more request fits (a sliding window, not a fixed minute)
    clock.advance(1000);
    expect((await embed(b.url, apiKey)).status).toBe(200);
    expect((await embed(a.url, apiKey)).status).toBe(429);
    // removing the limit (null) lifts it
    expect((await patchKey(keyId, { rpm_limit: null })).body.rpm_limit).toBeNull();
    await new Promise((r) => setTimeout(r, 10));
    clock.advance(6000); // other replica's cached lookup (AUTH_CACHE_TTL_SECONDS = 5) expires
    const after = await Promise.all([embed(a.url, apiKey), embed(b.url, apiKey)]);
    expect(after.map((r) => r.status)).toEqual([200, 200]);
    expect(after[0].headers['x-ratelimit-limit-requests']).toBeUndefined();
  }, 60_000);

  it('tokens per minute: the prompt counts at admission, the rest at settle; 429 type "tokens"', async () => {
    const { keyId, apiKey } = await client.teamWithKey(1000, 'tpm');
    expect((await patchKey(keyId, { tpm_limit: 40 })).status).toBe(200);
    const input = Array.from({ length: 12 }, (_, i) => `word${i}`).join(' ');
    const first = await embed(a.url, apiKey, input);
    expect(first.status).toBe(200);
    const used = first.body.usage.total_tokens as number;
    expect(used).toBeGreaterThan(20);
    expect(first.headers['x-ratelimit-limit-tokens']).toBe('40');
    expect(Number(first.headers['x-ratelimit-remaining-tokens'])).toBe(40 - used);
    const second = await embed(b.url, apiKey, input);
    expect(second.status).toBe(429);
    expect(second.body.error).toMatchObject({ type: 'tokens', code: 'rate_limit_exceeded' });
    expect(second.body.error.message).toMatch(/on tokens per min \(TPM\): Limit 40/);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    clock.advance(60_000);
    expect((await embed(b.url, apiKey, input)).status).toBe(200);
  });

  it('knowledge-base ingestion calls (charged later, off the request) count against RPM; searches through the meter', async () => {
    const { keyId, apiKey } = await client.teamWithKey(1000, 'kb');
    expect((await patchKey(keyId, { rpm_limit: 3 })).status).toBe(200);
    // creating a knowledge base is not charged: not counted
    const kb = await request(a.url).post('/api/v1/knowledge-bases').set('api-key', apiKey).send({ name: 'limited' });
    expect(kb.status).toBe(201);
    const add = (url: string, n: number) =>
      request(url)
        .post(`/api/v1/knowledge-bases/${kb.body.id}/documents`)
        .set('api-key', apiKey)
        .send({ name: `doc${n}`, text: `Document number ${n}.` });
    const d1 = await add(a.url, 1);
    expect(d1.status).toBe(202);
    expect(d1.headers['x-ratelimit-remaining-requests']).toBe('2');
    expect((await add(b.url, 2)).status).toBe(202);
    const search = await request(a.url)
      .post(`/api/v1/knowledge-bases/${kb.body.id}/search`)
      .set('api-key', apiKey)
      .send({ query: 'document' });
    expect(search.status).toBe(200);
    expect(search.headers['x-ratelimit-remaining-requests']).toBe('0');
    const refused = await add(b.url, 3);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect(refused.headers['retry-after']).toBe('20');
    clock.advance(60_000);
  });

  it('a team limit applies to all its keys together', async () => {
    const team = await client.createTeam('team-rpm', 1000);
    const k1 = await client.createKey(team.id);
    const k2 = await client.createKey(team.id);
    const patched = await admin(request(a.url).patch(`/api/v1/admin/teams/${team.id}`)).send({ rpm_limit: 3 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: team.id, rpm_limit: 3, tpm_limit: null });
    const statuses = [];
    for (const [url, key] of [
      [a.url, k1.api_key],
      [b.url, k2.api_key],
      [a.url, k2.api_key],
      [b.url, k1.api_key],
      [a.url, k1.api_key],
    ])
      statuses.push((await embed(url, key)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    clock.advance(60_000);
  });

  it(`a key budget holds under 200 concurrent requests (spent ≤ cap); 402 key_budget_exceeded names spent, cap and reset`, async () => {
    const { teamId, keyId, apiKey } = await client.teamWithKey(1000, 'budget');
    // local-embedding-small: 200 RUB per 1M tokens; "red apple" costs a few hundred µRUB
    const cap = 0.02;
    const set = await patchKey(keyId, { budget_rub_per_day: cap });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ budget_rub_per_day: cap, budget_rub_per_month: null, spent_rub_today: 0 });
    const budgetRefusals = async () => {
      let n = 0;
      for (const r of b !== a ? [a, b] : [a])
        n += (await Scrape.of(r.url)).value('gateway_rate_limited_total', { scope: 'key', kind: 'budget_day' });
      return n;
    };
    const refusalsBefore = await budgetRefusals();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => embed(i % 2 === 0 ? a.url : b.url, apiKey)),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok.length + refused.length).toBe(200);
    expect(ok.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    const charges = (await ledger(teamId)).filter((e) => e.kind === 'charge');
    const spentMicro = charges.reduce((s, e) => s - Number(e.amountMicro), 0);
    expect(charges).toHaveLength(ok.length);
    expect(spentMicro).toBeLessThanOrEqual(cap * 1e6);
    expect(refused[0].body.error).toMatchObject({
      type: 'insufficient_quota',
      code: 'key_budget_exceeded',
      param: null,
    });
    expect((await budgetRefusals()) - refusalsBefore).toBe(refused.length);
    expect(refused[0].body.error.message).toMatch(
      /^API key budget exceeded: spent [\d.]+ RUB of the 0\.02 RUB daily budget.*this request requires up to [\d.]+ RUB\. The budget resets at 2026-11-24T00:00:00\.000Z \(UTC\)\.$/,
    );
    // the team balance is untouched by the refusals; the key's spend is reported
    const view = await admin(request(a.url).get(`/api/v1/admin/api-keys/${keyId}`));
    expect(view.body.spent_rub_today).toBeCloseTo(spentMicro / 1e6, 6);
    // the next UTC day the budget is fresh
    clock.advance(12 * 3600_000);
    expect((await embed(a.url, apiKey)).status).toBe(200);
    // removing the cap lifts it
    clock.advance(-12 * 3600_000);
    expect((await patchKey(keyId, { budget_rub_per_day: null })).body.budget_rub_per_day).toBeNull();
    clock.advance(6000);
    expect((await embed(b.url, apiKey)).status).toBe(200);
  }, 60_000);

  it('a monthly budget refuses once the month is spent', async () => {
    const { keyId, apiKey } = await client.teamWithKey(1000, 'month');
    const first = await embed(a.url, apiKey);
    expect(first.status).toBe(200);
    const cost = first.body.cost.total_cost_rub as number;
    // the cap below what is already spent this month (counted from the ledger when the budget is set)
    expect((await patchKey(keyId, { budget_rub_per_month: cost / 2 })).body.spent_rub_this_month).toBeCloseTo(cost, 6);
    const refused = await embed(b.url, apiKey);
    expect(refused.status).toBe(402);
    expect(refused.body.error.message).toMatch(/monthly budget.*resets at 2026-12-01T00:00:00\.000Z/);
  });

  it('usage summary equals the ledger for every group_by', async () => {
    const team = await client.createTeam('summary', 1000);
    const k1 = await client.createKey(team.id, 'one');
    const k2 = await client.createKey(team.id, 'two');
    await embed(a.url, k1.api_key, 'alpha beta');
    await request(a.url)
      .post('/api/v1/chat')
      .set('api-key', k1.api_key)
      .send({
        model: 'local',
        user_id: 'u1',
        prompt: 'What is the capital of France?',
        system_prompt: 'Paris is the capital of France.',
      })
      .expect(200);
    clock.advance(86_400_000);
    await embed(b.url, k2.api_key, ['gamma', 'delta epsilon']);
    await request(b.url)
      .post('/v1/embeddings')
      .set('api-key', k2.api_key)
      .send({ model: 'local-embedding-large', input: 'zeta' })
      .expect(200);
    const rows = (await ledger(team.id)).filter((e) => e.kind === 'charge');
    expect(rows.length).toBe(4);
    const keyOf = {
      model: (e: LedgerRow) => e.model,
      endpoint: (e: LedgerRow) => e.endpoint,
      key: (e: LedgerRow) => e.apiKeyId,
      day: (e: LedgerRow) => new Date(Number(e.createdAt)).toISOString().slice(0, 10),
    };
    const from = new Date(T0 - 10 * 86_400_000).toISOString();
    const to = new Date(clock.now() + 1000).toISOString();
    for (const groupBy of ['model', 'day', 'key', 'endpoint'] as const) {
      const expected = new Map<
        string | null,
        { requests: number; prompt_tokens: number; completion_tokens: number; total_tokens: number; micro: number }
      >();
      for (const e of rows) {
        const g = keyOf[groupBy](e);
        const cur = expected.get(g) ?? {
          requests: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
          total_tokens: 0,
          micro: 0,
        };
        cur.requests++;
        cur.prompt_tokens += e.promptTokens;
        cur.completion_tokens += e.completionTokens;
        cur.total_tokens += e.totalTokens;
        cur.micro -= Number(e.amountMicro);
        expected.set(g, cur);
      }
      for (const res of [
        await request(a.url)
          .get('/api/v1/usage/summary')
          .set('api-key', k1.api_key)
          .query({ from, to, group_by: groupBy }),
        await admin(request(b.url).get(`/api/v1/admin/teams/${team.id}/usage/summary`)).query({
          from,
          to,
          group_by: groupBy,
        }),
      ]) {
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ object: 'usage.summary', team_id: team.id, group_by: groupBy, from, to });
        const got = new Map(
          (res.body.data as Array<Record<string, unknown>>).map((d) => [d.group as string | null, d]),
        );
        expect(got.size).toBe(expected.size);
        for (const [g, exp] of expected) {
          expect(got.get(g)).toEqual({
            group: g,
            requests: exp.requests,
            prompt_tokens: exp.prompt_tokens,
            completion_tokens: exp.completion_tokens,
            total_tokens: exp.total_tokens,
            amount_rub: exp.micro / 1e6,
            // per key, the key's name and prefix come along (created with the admin token: no creator e-mail)
            ...(groupBy === 'key'
              ? {
                  key_name: g === k1.id ? 'one' : 'two',
                  key_prefix: (g === k1.id ? k1 : k2).prefix,
                  key_created_by_email: null,
                }
              : {}),
          });
        }
        expect(res.body.total.requests).toBe(4);
      }
    }
    expect(new Set(rows.map((r) => r.apiKeyId))).toEqual(new Set([k1.id, k2.id]));
    // a range that excludes the second day
    const firstDay = await request(a.url)
      .get('/api/v1/usage/summary')
      .set('api-key', k2.api_key)
      .query({ from, to: new Date(T0 + 86_400_000 - 1).toISOString(), group_by: 'key' });
    expect(firstDay.body.data.map((d: { group: string }) => d.group)).toEqual([k1.id]);
  });

  it('usage summary validates its parameters', async () => {
    const { apiKey } = await client.teamWithKey(1, 'validate');
    const q = (query: Record<string, string>) =>
      request(a.url).get('/api/v1/usage/summary').set('api-key', apiKey).query(query);
    const bad = [
      [{ from: 'yesterday' }, 'from'],
      [{ to: '2026-13-45' }, 'to'],
      [{ from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' }, 'from'],
      [{ from: '2025-01-01T00:00:00Z', to: '2026-11-01T00:00:00Z' }, 'to'],
      [{ group_by: 'colour' }, 'group_by'],
    ] as const;
    for (const [query, param] of bad) {
      const res = await q(query);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
    }
    const ok = await q({});
    expect(ok.status).toBe(200);
    expect(Date.parse(ok.body.to) - Date.parse(ok.body.from)).toBe(30 * 86_400_000);
    expect(ok.body.data).toEqual([]);
    expect((await request(a.url).get('/api/v1/usage/summary')).status).toBe(401);
  });

  it('admin: list teams (paged), list keys, patch keys and teams (null removes), errors', async () => {
    const team = await client.createTeam('listing', 5);
    const k = await client.createKey(team.id, 'first');
    await client.createKey(team.id);
    // pages of one team cover every team exactly once
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 100; i++) {
      const page: request.Response = await admin(request(a.url).get('/api/v1/admin/teams')).query({
        limit: 1,
        ...(after ? { after } : {}),
      });
      expect(page.status).toBe(200);
      expect(page.body.data).toHaveLength(1);
      seen.push(page.body.data[0].id);
      if (!page.body.has_more) break;
      after = page.body.next_after;
    }
    const all = await admin(request(a.url).get('/api/v1/admin/teams')).query({ limit: 500 });
    expect(seen).toEqual(all.body.data.map((t: { id: string }) => t.id));
    expect(all.body.data.find((t: { id: string }) => t.id === team.id)).toEqual({
      id: team.id,
      name: 'listing',
      balance_rub: 5,
      reserved_rub: 0,
      created_at: expect.any(String),
      rpm_limit: null,
      tpm_limit: null,
      request_log_bodies: 'metadata',
      request_log_retention_days: null,
      request_log_body_retention_days: null,
      mcp_adhoc_servers: false,
    });

    const patched = await patchKey(k.id, {
      name: 'renamed',
      rpm_limit: 10,
      tpm_limit: 1000,
      budget_rub_per_day: 1.5,
      budget_rub_per_month: 20,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      id: k.id,
      team_id: team.id,
      prefix: k.prefix,
      name: 'renamed',
      created_at: expect.any(String),
      last_used_at: null,
      revoked: false,
      revoked_at: null,
      rpm_limit: 10,
      tpm_limit: 1000,
      budget_rub_per_day: 1.5,
      budget_rub_per_month: 20,
      spent_rub_today: 0,
      spent_rub_this_month: 0,
      created_by: null,
      expires_at: null,
      allowed_models: [],
      allowed_mcp_tools: [],
      data_policy: null,
    });
    // absent fields stay, null removes
    const cleared = await patchKey(k.id, { tpm_limit: null, budget_rub_per_month: null });
    expect(cleared.body).toMatchObject({
      name: 'renamed',
      rpm_limit: 10,
      tpm_limit: null,
      budget_rub_per_day: 1.5,
      budget_rub_per_month: null,
    });
    await embed(a.url, k.api_key).expect(200);
    await admin(request(a.url).delete(`/api/v1/admin/api-keys/${k.id}`)).expect(204);
    const keys = await admin(request(a.url).get(`/api/v1/admin/teams/${team.id}/api-keys`));
    expect(keys.status).toBe(200);
    expect(keys.body.data).toHaveLength(2);
    const listed = keys.body.data.find((x: { id: string }) => x.id === k.id);
    expect(listed).toMatchObject({
      name: 'renamed',
      rpm_limit: 10,
      revoked: true,
      revoked_at: expect.any(String),
      last_used_at: new Date(clock.now()).toISOString(),
    });
    expect(listed.spent_rub_today).toBeGreaterThan(0);
    expect(JSON.stringify(keys.body)).not.toContain('key_hash');

    const t1 = await admin(request(a.url).patch(`/api/v1/admin/teams/${team.id}`)).send({
      name: 'renamed-team',
      rpm_limit: 100,
      tpm_limit: 5000,
    });
    expect(t1.body).toMatchObject({ name: 'renamed-team', rpm_limit: 100, tpm_limit: 5000 });
    const t2 = await admin(request(a.url).patch(`/api/v1/admin/teams/${team.id}`)).send({ rpm_limit: null });
    expect(t2.body).toMatchObject({ name: 'renamed-team', rpm_limit: null, tpm_limit: 5000 });
    expect((await admin(request(a.url).get(`/api/v1/admin/teams/${team.id}`))).body).toMatchObject({
      rpm_limit: null,
      tpm_limit: 5000,
    });

    for (const body of [
      { rpm_limit: 0 },
      { tpm_limit: 1.5 },
      { budget_rub_per_day: -1 },
      { budget_rub_per_month: 'ten' },
      { rpm_limit: '60' },
    ]) {
      const res = await patchKey(k.id, body);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(Object.keys(body)[0]);
    }
    expect((await admin(request(a.url).patch(`/api/v1/admin/teams/${team.id}`)).send({ name: null })).status).toBe(400);
    expect((await patchKey('6f1c1c53-8b0c-4c37-9d43-6a3e3f0f8e11', { rpm_limit: 5 })).status).toBe(404);
    expect(
      (await admin(request(a.url).get('/api/v1/admin/teams/6f1c1c53-8b0c-4c37-9d43-6a3e3f0f8e11/api-keys'))).status,
    ).toBe(404);
    expect((await request(a.url).patch(`/api/v1/admin/api-keys/${k.id}`).send({ rpm_limit: 5 })).status).toBe(401);
  });
});
