/**
 * The playground: a signed-in member chats for a team named by x-team-id, charged to the team
 * exactly as an API key would be (tokens × price); CSRF is enforced, viewers and outsiders refused
 * before anything is sent upstream.
 */
import request from 'supertest';
import { FakeAnthropic } from '../fakes';
import { PRICES, UPSTREAM_KEYS, expectedCost, providerEnv, toMicro } from '../chat/chat-helpers';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, Browser, joinTeam } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';
type Role = 'viewer' | 'member' | 'admin' | 'owner';

describe(`accounts: chat with a session on ${backendKind()}`, () => {
  let t: TestApp;
  let anthropic: FakeAnthropic;
  let teamId: string;
  let seq = 0;
  const users: Partial<Record<Role, Browser>> = {};

  const join = (team: string, role: Role): Promise<Browser> =>
    joinTeam(t.url, team, `${role}${++seq}@acme.test`, role, PASSWORD);

  beforeAll(async () => {
    anthropic = await FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic });
    t = await createTestApp({ env: providerEnv({ anthropic }) });
    teamId = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'acme', balance_rub: 100 })).body.id;
    for (const r of ['viewer', 'member', 'admin', 'owner'] as const) users[r] = await join(teamId, r);
  }, 120_000);
  afterEach(() => anthropic.reset());
  afterAll(async () => {
    await t?.close();
    await anthropic?.close();
  });

  const balance = async () => (await admin(request(t.url).get(`/api/v1/teams/${teamId}`))).body.balance_rub as number;
  const charges = async () =>
    (await admin(request(t.url).get(`/api/v1/teams/${teamId}/ledger?limit=100`))).body.data.filter(
      (e: { kind: string }) => e.kind === 'charge',
    ) as Array<{ amount_rub: number; model: string; prompt_tokens: number; completion_tokens: number }>;

  it.each(['member', 'admin', 'owner'] as const)(
    'a %s chats on /api/v1/chat and the team is charged tokens × price',
    async (role) => {
      const before = await balance();
      const n = (await charges()).length;
      anthropic.enqueue({ text: 'Paris.', usage: { input: 120, output: 7 } });
      const res = await as(t.url, users[role]!)
        .post('/api/v1/chat')
        .set('x-team-id', teamId)
        .send({ model: 'claude-sonnet-4', user_id: 'playground', prompt: 'Capital of France?', max_tokens: 16 });
      expect(res.status).toBe(200);
      expect(res.body.response.text).toBe('Paris.');
      const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 120, completion: 7 });
      expect(res.body.cost.total_cost_rub).toBe(cost.total_cost_rub);
      expect(anthropic.requests).toHaveLength(1);
      const after = await charges();
      expect(after).toHaveLength(n + 1);
      expect(after[0]).toMatchObject({
        model: 'claude-sonnet-4',
        prompt_tokens: 120,
        completion_tokens: 7,
        amount_rub: -cost.total_cost_rub,
      });
      expect(toMicro(before) - toMicro(await balance())).toBe(toMicro(cost.total_cost_rub));
    },
  );

  it('a member uses /v1/chat/completions with a session; charged like a key', async () => {
    const before = await balance();
    anthropic.enqueue({ text: 'Hi!', usage: { input: 50, output: 3 } });
    const res = await as(t.url, users.member!)
      .post('/v1/chat/completions')
      .set('x-team-id', teamId)
      .send({ model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe('Hi!');
    const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 50, completion: 3 });
    expect(res.body.cost.total_cost_rub).toBe(cost.total_cost_rub);
    expect(toMicro(before) - toMicro(await balance())).toBe(toMicro(cost.total_cost_rub));
    expect((await charges())[0]).toMatchObject({ prompt_tokens: 50, completion_tokens: 3 });
  });

  const refusedBeforeUpstream = async (res: request.Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(anthropic.requests).toHaveLength(0);
  };

  it('a viewer is refused with 403 before any upstream call; nothing is charged', async () => {
    const before = await balance();
    const body = { model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 };
    await refusedBeforeUpstream(
      await as(t.url, users.viewer!).post('/v1/chat/completions').set('x-team-id', teamId).send(body),
      403,
      'insufficient_role',
    );
    await refusedBeforeUpstream(
      await as(t.url, users.viewer!)
        .post('/api/v1/chat')
        .set('x-team-id', teamId)
        .send({ model: 'claude-sonnet-4', user_id: 'u', prompt: 'Hi' }),
      403,
      'insufficient_role',
    );
    expect(await balance()).toBe(before);
  });

  it('without the CSRF header: 403 csrf_failed; without x-team-id: 400; another team: 404', async () => {
    const m = users.member!;
    const body = { model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 };
    await refusedBeforeUpstream(
      await request(t.url).post('/v1/chat/completions').set('cookie', m.cookie).set('x-team-id', teamId).send(body),
      403,
      'csrf_failed',
    );
    await refusedBeforeUpstream(await as(t.url, m).post('/v1/chat/completions').send(body), 400, 'team_required');
    const other = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'other', balance_rub: 10 }))
      .body.id;
    await refusedBeforeUpstream(
      await as(t.url, m).post('/v1/chat/completions').set('x-team-id', other).send(body),
      404,
      'team_not_found',
    );
  });

  it("the team's stored rate limit applies to a member's session as to a key", async () => {
    const team = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'limited', balance_rub: 10 }))
      .body.id;
    expect((await admin(request(t.url).patch(`/api/v1/admin/teams/${team}`)).send({ rpm_limit: 1 })).status).toBe(200);
    const m = await join(team, 'member');
    const body = { model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 };
    anthropic.enqueue({ text: 'one', usage: { input: 5, output: 1 } });
    const first = await as(t.url, m).post('/v1/chat/completions').set('x-team-id', team).send(body);
    expect(first.status).toBe(200);
    const second = await as(t.url, m).post('/v1/chat/completions').set('x-team-id', team).send(body);
    expect(second.status).toBe(429);
    expect(anthropic.requests).toHaveLength(1);
  });
});
