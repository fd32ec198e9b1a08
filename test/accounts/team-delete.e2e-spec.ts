import request from 'supertest';
import { FakeAnthropic } from '../fakes';
import { UPSTREAM_KEYS, providerEnv } from '../chat/chat-helpers';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, Browser, joinTeam } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';
type Role = 'viewer' | 'member' | 'admin' | 'owner';

describe(`accounts: deleting a team on ${backendKind()}`, () => {
  let t: TestApp;
  let seq = 0;

  let anthropic: FakeAnthropic;

  beforeAll(async () => {
    anthropic = await FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic });
    t = await createTestApp({ env: providerEnv({ anthropic }) });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await anthropic?.close();
  });

  const newTeam = async (balance = 0) =>
    (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: `t${++seq}`, balance_rub: balance })).body
      .id as string;

  /** A user who joined `teamId` with `role` through an invitation, signed in. */
  const join = (team: string, role: Role): Promise<Browser> =>
    joinTeam(t.url, team, `${role}${++seq}@acme.test`, role, PASSWORD);

  it('an owner deletes the team: keys stop working, members lose it, the team answers 404, audited', async () => {
    const team = await newTeam();
    const owner = await join(team, 'owner');
    const viewer = await join(team, 'viewer');
    const key = (await admin(request(t.url).post(`/api/v1/admin/teams/${team}/api-keys`)).send({})).body.api_key;
    expect((await request(t.url).get('/v1/models').set('api-key', key)).status).toBe(200);
    const pending = await as(t.url, owner).post(`/api/v1/teams/${team}/invitations`).send({
      email: 'later@acme.test',
      role: 'member',
    });
    expect(pending.status).toBe(201);

    const del = await as(t.url, owner).delete(`/api/v1/teams/${team}`);
    expect(del.status).toBe(204);

    expect((await request(t.url).get('/v1/models').set('api-key', key)).status).toBe(401);
    const gone = await admin(request(t.url).get(`/api/v1/teams/${team}`));
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('team_not_found');
    expect((await admin(request(t.url).get(`/api/v1/admin/teams/${team}`))).status).toBe(404);
    const mine = await as(t.url, viewer).get('/api/v1/teams');
    expect(mine.body.data).toEqual([]);
    expect((await as(t.url, viewer).get('/api/v1/auth/me')).body.memberships).toEqual([]);
    const listed = await admin(request(t.url).get('/api/v1/admin/teams?limit=100'));
    expect(listed.body.data.map((x: { id: string }) => x.id)).not.toContain(team);
    const accept = await request(t.url)
      .post(`/api/v1/invitations/${pending.body.token}/accept`)
      .send({ name: 'later', password: PASSWORD });
    expect(accept.status).toBe(410);
    expect((await as(t.url, owner).delete(`/api/v1/teams/${team}`)).status).toBe(404);

    const log = await admin(request(t.url).get(`/api/v1/audit-log?team_id=${team}&action=team.delete`));
    expect(log.body.data).toEqual([
      expect.objectContaining({
        action: 'team.delete',
        actor_type: 'user',
        actor_id: owner.userId,
        target_type: 'team',
        target_id: team,
        diff: { before: { name: expect.stringMatching(/^t\d+$/) }, after: null },
      }),
    ]);
  });

  it.each(['viewer', 'member', 'admin'] as const)('%s is refused with 403 and the team stays', async (role) => {
    const team = await newTeam();
    const who = await join(team, role);
    const res = await as(t.url, who).delete(`/api/v1/teams/${team}`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_role');
    expect((await admin(request(t.url).get(`/api/v1/teams/${team}`))).status).toBe(200);
  });

  it("another team's owner gets 404 and the team stays", async () => {
    const team = await newTeam();
    const stranger = await join(await newTeam(), 'owner');
    const res = await as(t.url, stranger).delete(`/api/v1/teams/${team}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('team_not_found');
    expect((await admin(request(t.url).get(`/api/v1/teams/${team}`))).status).toBe(200);
  });

  it('the operator token deletes a team; without credentials or CSRF the request is refused', async () => {
    const team = await newTeam();
    const owner = await join(team, 'owner');
    expect((await request(t.url).delete(`/api/v1/teams/${team}`)).status).toBe(401);
    const noCsrf = await request(t.url).delete(`/api/v1/teams/${team}`).set('cookie', owner.cookie);
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.code).toBe('csrf_failed');
    expect((await admin(request(t.url).delete(`/api/v1/teams/${team}`))).status).toBe(204);
    expect((await admin(request(t.url).get(`/api/v1/teams/${team}`))).status).toBe(404);
  });

  it('a team with a positive balance is refused with 409 team_has_balance and nothing changes', async () => {
    const team = await newTeam(5);
    const owner = await join(team, 'owner');
    const key = (await admin(request(t.url).post(`/api/v1/admin/teams/${team}/api-keys`)).send({})).body.api_key;
    const res = await as(t.url, owner).delete(`/api/v1/teams/${team}`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('team_has_balance');
    expect((await as(t.url, owner).get(`/api/v1/teams/${team}`)).body.balance_rub).toBe(5);
    expect((await request(t.url).get('/v1/models').set('api-key', key)).status).toBe(200);
    const log = await admin(request(t.url).get(`/api/v1/audit-log?team_id=${team}&action=team.delete`));
    expect(log.body.data).toEqual([]);
  });

  it('a team that just made a request (credit granted to this server, none in use) is refused for its balance, not for holds', async () => {
    const team = await newTeam(5);
    const owner = await join(team, 'owner');
    const key = (await admin(request(t.url).post(`/api/v1/admin/teams/${team}/api-keys`)).send({})).body.api_key;
    anthropic.enqueue({ text: 'done', usage: { input: 5, output: 1 } });
    const chat = await request(t.url)
      .post('/v1/chat/completions')
      .set('api-key', key)
      .send({ model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 });
    expect(chat.status).toBe(200);
    const res = await as(t.url, owner).delete(`/api/v1/teams/${team}`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('team_has_balance');
    // the credit given back left the balance whole: 5 RUB less exactly the charge, nothing held
    const view = (await as(t.url, owner).get(`/api/v1/teams/${team}`)).body;
    expect(view.balance_rub).toBeCloseTo(5 - Number(chat.headers['x-gateway-cost-rub']), 6);
    const balance = (await request(t.url).get('/api/v1/balance').set('api-key', key)).body;
    expect(balance.reserved_rub).toBe(0);
  });

  it('a team with a request in progress (an open hold) is refused with 409 team_has_holds', async () => {
    const team = await newTeam(5);
    const owner = await join(team, 'owner');
    const key = (await admin(request(t.url).post(`/api/v1/admin/teams/${team}/api-keys`)).send({})).body.api_key;
    anthropic.enqueue({ text: 'slow', usage: { input: 5, output: 1 }, delayMs: 1500 });
    // earlier tests' calls are still recorded: wait for this one's
    const earlier = anthropic.requests.length;
    const chat = request(t.url)
      .post('/v1/chat/completions')
      .set('api-key', key)
      .send({ model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 })
      .then((r) => r);
    // the hold exists once the request reached the upstream
    await anthropic.waitForRequests(earlier + 1);
    const res = await as(t.url, owner).delete(`/api/v1/teams/${team}`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('team_has_holds');
    expect((await chat).status).toBe(200);
    expect((await admin(request(t.url).get(`/api/v1/teams/${team}`))).status).toBe(200);
  });
});
