import request from 'supertest';
import { FakeOpenAI } from '../fakes';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, createUser, signIn } from '../accounts/accounts-helpers';

const PASSWORD = 'correct horse battery staple';

describe(`operator reports: every team's spend, a team's top-ups on ${backendKind()}`, () => {
  let openai: FakeOpenAI;
  let t: TestApp;
  const teams: Record<string, string> = {};
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    t = await createTestApp({ env: { ...providerEnv({ openai }), AUTH_CACHE_TTL_SECONDS: '0' } });
    for (const name of ['acme', 'globex']) {
      teams[name] = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name, balance_rub: 100 })).body.id;
      keys[name] = (
        await admin(request(t.url).post(`/api/v1/admin/teams/${teams[name]}/api-keys`)).send({})
      ).body.api_key;
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await openai?.close();
  });

  const chat = (key: string) =>
    request(t.url).post('/api/v1/chat').set('api-key', key).send({ model: 'gpt-4o-mini', user_id: 'u1', prompt: 'Hi' });

  it('spend per team per day and the top models equal each team’s own usage summary', async () => {
    for (const key of [keys.acme, keys.acme, keys.globex]) expect((await chat(key)).status).toBe(200);
    const res = await admin(request(t.url).get('/api/v1/admin/usage'));
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    for (const name of ['acme', 'globex']) {
      const own = await admin(request(t.url).get(`/api/v1/admin/teams/${teams[name]}/usage/summary?group_by=day`));
      const team = res.body.teams.find((x: { team_id: string }) => x.team_id === teams[name]);
      expect(team).toEqual({
        team_id: teams[name],
        team_name: name,
        requests: own.body.total.requests,
        amount_rub: own.body.total.amount_rub,
      });
      expect(res.body.days).toContainEqual({
        day: today,
        team_id: teams[name],
        team_name: name,
        requests: own.body.total.requests,
        amount_rub: own.body.total.amount_rub,
      });
    }
    expect(res.body.teams.map((x: { team_name: string }) => x.team_name)).toEqual(['acme', 'globex']); // highest first
    expect(res.body.top_models[0]).toMatchObject({ model: 'gpt-4o-mini', requests: 3 });
    expect(res.body.total_rub).toBeCloseTo(
      res.body.teams.reduce((a: number, x: { amount_rub: number }) => a + x.amount_rub, 0),
      6,
    );
    expect(res.body.total_rub).toBeGreaterThan(0);
    // a range without calls is empty; a reversed or too wide range is a 400; no admin credential → 401
    const empty = await admin(
      request(t.url).get('/api/v1/admin/usage?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z'),
    );
    expect([empty.body.days, empty.body.teams, empty.body.top_models, empty.body.total_rub]).toEqual([[], [], [], 0]);
    const reversed = await admin(
      request(t.url).get('/api/v1/admin/usage?from=2021-01-01T00:00:00Z&to=2020-01-01T00:00:00Z'),
    );
    expect([reversed.status, reversed.body.error.param]).toEqual([400, 'from']);
    expect((await request(t.url).get('/api/v1/admin/usage').set('api-key', keys.acme)).status).toBe(401);
  });

  it("a team's top-ups carry the note, the reference and who made them, newest first, in cursor pages", async () => {
    await createUser(t.url, 'ops@example.com', PASSWORD, true);
    const ops = await signIn(t.url, 'ops@example.com', PASSWORD);
    const byUser = await as(t.url, ops)
      .post(`/api/v1/admin/teams/${teams.globex}/top-ups`)
      .send({ amount_rub: 250, reference: 'inv-7', note: 'November invoice' });
    expect(byUser.status).toBe(200);
    await admin(request(t.url).post(`/api/v1/admin/teams/${teams.globex}/top-ups`)).send({
      amount_rub: 5,
      note: 'goodwill',
    });
    const page1 = await admin(request(t.url).get(`/api/v1/admin/teams/${teams.globex}/top-ups?limit=2`));
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((e: { amount_rub: number }) => e.amount_rub)).toEqual([5, 250]);
    expect(page1.body.data[0]).toMatchObject({
      note: 'goodwill',
      reference: null,
      actor: { type: 'operator_token', id: null, email: null },
    });
    expect(page1.body.data[1]).toMatchObject({
      note: 'November invoice',
      reference: 'inv-7',
      actor: { type: 'user', id: ops.userId, email: 'ops@example.com' },
      balance_after_rub: expect.any(Number),
    });
    expect(page1.body.has_more).toBe(true);
    const page2 = await admin(
      request(t.url).get(`/api/v1/admin/teams/${teams.globex}/top-ups?limit=2&before=${page1.body.next_before}`),
    );
    // the opening balance of the team: no note, no recorded actor
    expect(page2.body.data).toEqual([expect.objectContaining({ amount_rub: 100, note: null })]);
    expect(page2.body.has_more).toBe(false);
    expect(
      (await admin(request(t.url).get('/api/v1/admin/teams/00000000-0000-4000-8000-000000000000/top-ups'))).status,
    ).toBe(404);
  });
});
