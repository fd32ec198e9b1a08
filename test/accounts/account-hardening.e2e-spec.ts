/**
 * Accounts under hostile use: an ex-member's keys stop spending, a burst of sign-ins cannot outrun
 * the throttle (two replicas on Postgres, with Redis or without it: then the database holds the
 * counters), an invitation is bound to its e-mail, and weak
 * passwords are refused with the reason.
 */
import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, Browser, createUser, joinTeam, signIn } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';
const LIMIT = 10;

interface AuditEntry {
  action: string;
  target_id: string | null;
  team_id: string | null;
  diff: { before?: unknown; after?: Record<string, unknown> } | null;
}

describe(`accounts: hardening on ${backendKind()}`, () => {
  let a: TestApp;
  /** a second replica on the same database (and Redis when TEST_REDIS_URL is set); Postgres only */
  let b: TestApp;
  const shared = backendKind() === 'postgres';

  beforeAll(async () => {
    const env = {
      LOGIN_MAX_FAILURES_PER_ACCOUNT: String(LIMIT),
      LOGIN_MAX_FAILURES_PER_IP: '1000',
      AUTH_CACHE_TTL_SECONDS: '5',
    };
    a = await createTestApp({ env });
    b = shared ? await createTestApp({ env, shareBackendWith: a }) : a;
  }, 60_000);
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
  });

  const newTeam = async (name: string): Promise<string> =>
    (await admin(request(a.url).post('/api/v1/admin/teams')).send({ name, balance_rub: 10 })).body.id as string;
  const audit = async (query: string): Promise<AuditEntry[]> =>
    (await admin(request(a.url).get(`/api/v1/audit-log?limit=1000&${query}`))).body.data as AuditEntry[];
  const models = (url: string, key: string) => request(url).get('/v1/models').set('api-key', key);

  it(`a burst of concurrent sign-ins ${shared ? 'on two replicas ' : ''}evaluates at most the limit; the rest answer 429 unevaluated`, async () => {
    await createUser(a.url, 'burst@example.com', PASSWORD);
    const attempt = (i: number) =>
      request(i % 2 === 0 ? a.url : b.url)
        .post('/api/v1/auth/login')
        .send({ email: 'burst@example.com', password: i === 17 ? PASSWORD : `wrong guess number ${i}` });
    const statuses = (await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(i)))).map((r) => r.status);
    const evaluated = statuses.filter((s) => s !== 429);
    const wrong = statuses.filter((s) => s === 401).length;
    // at most LIMIT wrong passwords are evaluated; the right one, when evaluated, frees its own slot
    expect(wrong).toBeLessThanOrEqual(LIMIT);
    expect(evaluated.length).toBeLessThanOrEqual(LIMIT + 1);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(30 - LIMIT - 1);
    for (const s of evaluated) expect([200, 401]).toContain(s);
    // what the audit log saw agrees: no more failed evaluations than the limit
    const failed = (await audit('action=auth.login_failed')).length;
    expect(failed).toBeLessThanOrEqual(LIMIT);
    expect(failed).toBe(wrong);
  });

  it('a member removed from the team (or leaving it) loses the keys they created there, with an audit record each; other keys keep working', async () => {
    const teamId = await newTeam('keys-of-leavers');
    const owner = await joinTeam(a.url, teamId, 'owner-k@example.com', 'owner', PASSWORD);
    const member = await joinTeam(a.url, teamId, 'member-k@example.com', 'member', PASSWORD);
    const leaver = await joinTeam(a.url, teamId, 'leaver-k@example.com', 'member', PASSWORD);
    const mk = async (br: Browser, name: string) => {
      const r = await as(a.url, br).post(`/api/v1/teams/${teamId}/api-keys`).send({ name });
      expect(r.status).toBe(201);
      return r.body as { id: string; api_key: string };
    };
    const memberKey = await mk(member, 'member key');
    const leaverKey = await mk(leaver, 'leaver key');
    const ownerKey = await mk(owner, 'owner key');
    for (const k of [memberKey, leaverKey, ownerKey]) expect((await models(b.url, k.api_key)).status).toBe(200);

    expect((await as(a.url, owner).delete(`/api/v1/teams/${teamId}/members/${member.userId}`)).status).toBe(204);
    expect((await as(a.url, leaver).delete(`/api/v1/teams/${teamId}/members/${leaver.userId}`)).status).toBe(204);
    // refused at once, on the other replica too
    for (const url of [a.url, b.url]) {
      expect((await models(url, memberKey.api_key)).status).toBe(401);
      expect((await models(url, leaverKey.api_key)).status).toBe(401);
      expect((await models(url, ownerKey.api_key)).status).toBe(200);
    }
    const listed = (await as(a.url, owner).get(`/api/v1/teams/${teamId}/api-keys`)).body.data as {
      id: string;
      revoked: boolean;
    }[];
    expect(Object.fromEntries(listed.map((k) => [k.id, k.revoked]))).toEqual({
      [memberKey.id]: true,
      [leaverKey.id]: true,
      [ownerKey.id]: false,
    });
    const revokes = await audit(`team_id=${teamId}&action=api_key.revoke`);
    expect(revokes.map((e) => e.target_id).sort()).toEqual([memberKey.id, leaverKey.id].sort());
    for (const e of revokes) expect(e.diff?.after).toMatchObject({ revoked: true, reason: 'member_removed' });
  });

  it("a disabled user's keys are revoked in every team, with an audit record each", async () => {
    const t1 = await newTeam('disabled-1');
    const t2 = await newTeam('disabled-2');
    const m1 = await joinTeam(a.url, t1, 'gone@example.com', 'member', PASSWORD);
    const inv = await admin(request(a.url).post(`/api/v1/teams/${t2}/invitations`)).send({
      email: 'gone@example.com',
      role: 'admin',
    });
    expect((await as(a.url, m1).post(`/api/v1/invitations/${inv.body.token}/accept`).send({})).status).toBe(200);
    const k1 = (await as(a.url, m1).post(`/api/v1/teams/${t1}/api-keys`).send({ name: 'one' })).body.api_key as string;
    const k2 = (await as(a.url, m1).post(`/api/v1/teams/${t2}/api-keys`).send({ name: 'two' })).body.api_key as string;
    const adminKey = (await admin(request(a.url).post(`/api/v1/admin/teams/${t1}/api-keys`)).send({ name: 'ops' })).body
      .api_key as string;
    for (const k of [k1, k2, adminKey]) expect((await models(b.url, k)).status).toBe(200);

    const off = await admin(request(a.url).patch(`/api/v1/admin/users/${m1.userId}`)).send({ disabled: true });
    expect(off.status).toBe(200);
    for (const url of [a.url, b.url]) {
      expect((await models(url, k1)).status).toBe(401);
      expect((await models(url, k2)).status).toBe(401);
      expect((await models(url, adminKey)).status).toBe(200);
    }
    const revokes = (await audit('action=api_key.revoke')).filter((e) => e.diff?.after?.reason === 'user_disabled');
    expect(revokes.map((e) => e.team_id).sort()).toEqual([t1, t2].sort());
  });

  it("an invitation is accepted only by the invited e-mail's account; an operator may override, which the audit log records", async () => {
    const teamId = await newTeam('invited-only');
    await createUser(a.url, 'invited@example.com', PASSWORD);
    await createUser(a.url, 'intruder@example.com', PASSWORD);
    await createUser(a.url, 'ops@example.com', PASSWORD, true);
    const invite = async (email: string) =>
      (await admin(request(a.url).post(`/api/v1/teams/${teamId}/invitations`)).send({ email, role: 'admin' })).body
        .token as string;
    const token = await invite('Invited@Example.com');
    const intruder = await signIn(a.url, 'intruder@example.com', PASSWORD);
    const refused = await as(a.url, intruder).post(`/api/v1/invitations/${token}/accept`).send({});
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('invitation_email_mismatch');
    expect((await as(a.url, intruder).get('/api/v1/auth/me')).body.memberships).toEqual([]);

    const invited = await signIn(a.url, 'invited@example.com', PASSWORD);
    const ok = await as(a.url, invited).post(`/api/v1/invitations/${token}/accept`).send({});
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ team_id: teamId, role: 'admin', user_id: invited.userId });

    const ops = await signIn(a.url, 'ops@example.com', PASSWORD);
    const forOther = await invite('someone-else@example.com');
    const overridden = await as(a.url, ops).post(`/api/v1/invitations/${forOther}/accept`).send({});
    expect(overridden.status).toBe(200);
    expect(overridden.body.user_id).toBe(ops.userId);
    const accepts = await audit(`team_id=${teamId}&action=invitation.accept`);
    const marked = accepts.filter((e) => e.diff?.after?.email_override !== undefined);
    expect(marked).toHaveLength(1);
    expect(marked[0].diff?.after?.email_override).toEqual({
      invited: 'someone-else@example.com',
      accepted_by: 'ops@example.com',
    });
  });

  it('weak and common passwords are refused with the reason wherever a password is set', async () => {
    const created = (password: string) =>
      admin(request(a.url).post('/api/v1/admin/users')).send({ email: `pw${password.length}@example.com`, password });
    const repeated = await created('aaaaaaaaaaaa');
    expect(repeated.status).toBe(400);
    expect(repeated.body.error).toMatchObject({ code: 'password_weak', param: 'password' });
    expect(repeated.body.error.message).toMatch(/Repeated characters/);
    const common = await created('qwerty123456');
    expect(common.status).toBe(400);
    expect(common.body.error.code).toBe('password_common');
    const ownName = await admin(request(a.url).post('/api/v1/admin/users')).send({
      email: 'margaretthatcher@example.com',
      password: 'margaretthatcher1',
    });
    expect(ownName.status).toBe(400);
    expect(ownName.body.error.code).toBe('password_weak');

    const teamId = await newTeam('strong-passwords');
    const inv = await admin(request(a.url).post(`/api/v1/teams/${teamId}/invitations`)).send({
      email: 'newbie@example.com',
      role: 'member',
    });
    const weakJoin = await request(a.url)
      .post(`/api/v1/invitations/${inv.body.token}/accept`)
      .send({ name: 'Newbie', password: 'password1234' });
    expect(weakJoin.status).toBe(400);
    expect(weakJoin.body.error).toMatchObject({ code: 'password_common', param: 'password' });
    const strongJoin = await request(a.url)
      .post(`/api/v1/invitations/${inv.body.token}/accept`)
      .send({ name: 'Newbie', password: PASSWORD });
    expect(strongJoin.status).toBe(200);

    const br = await signIn(a.url, 'newbie@example.com', PASSWORD);
    const weakChange = await as(a.url, br)
      .post('/api/v1/auth/password')
      .send({ current_password: PASSWORD, new_password: 'abcabcabcabc' });
    expect(weakChange.status).toBe(400);
    expect(weakChange.body.error).toMatchObject({ code: 'password_weak', param: 'new_password' });
    expect(
      (
        await as(a.url, br)
          .post('/api/v1/auth/password')
          .send({ current_password: PASSWORD, new_password: 'violet tractor midnight harbor' })
      ).status,
    ).toBe(204);
  });
});
