import request from 'supertest';
import { SessionsService } from '@app/accounts/sessions.service';
import { FakeOpenAI } from '../fakes';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, Browser, createUser, signIn } from './accounts-helpers';
import { startSmtp } from '../support/smtp-server';

const PASSWORD = 'correct horse battery staple';
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const DAY = 86_400_000;

describe(`accounts: API key expiry and model allowlist, invitations, audit log on ${backendKind()}`, () => {
  const clock = new ManualClock(T0);
  let openai: FakeOpenAI;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let t: TestApp;
  let teamId: string;
  let owner: Browser;

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    smtp = await startSmtp();
    t = await createTestApp({
      clock,
      env: {
        ...providerEnv({ openai }),
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        MAIL_FROM: 'Gateway <gateway@example.com>',
        PUBLIC_BASE_URL: 'https://gw.example.com',
        AUTH_CACHE_TTL_SECONDS: '0',
        // the clock jumps days ahead: sessions must outlive it
        SESSION_IDLE_TIMEOUT_MINUTES: '525600',
        SESSION_MAX_AGE_HOURS: '8760',
      },
    });
    teamId = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'acme', balance_rub: 100 })).body.id;
    const inv = await admin(request(t.url).post(`/api/v1/teams/${teamId}/invitations`)).send({
      email: 'owner@acme.test',
      role: 'owner',
    });
    await request(t.url)
      .post(`/api/v1/invitations/${inv.body.token}/accept`)
      .send({ name: 'Owner', password: PASSWORD });
    owner = await signIn(t.url, 'owner@acme.test', PASSWORD);
  }, 60_000);
  afterEach(() => openai.reset());
  afterAll(async () => {
    await t?.close();
    await openai?.close();
    await smtp?.close();
  });

  const chat = (key: string, model: string) =>
    request(t.url).post('/api/v1/chat').set('api-key', key).send({ model, user_id: 'u1', prompt: 'Hello' });
  const balance = async () =>
    (await as(t.url, owner).get(`/api/v1/teams/${teamId}/balance`)).body.balance_rub as number;

  it('a key restricted to some models answers 403 model_not_allowed for the others before any upstream call; an expired key 401 key_expired', async () => {
    const created = await as(t.url, owner)
      .post(`/api/v1/teams/${teamId}/api-keys`)
      .send({ name: 'limited', expires_at: new Date(T0 + 2 * DAY).toISOString(), allowed_models: ['gpt-4o-mini'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      allowed_models: ['gpt-4o-mini'],
      expires_at: new Date(T0 + 2 * DAY).toISOString(),
    });
    const key = created.body.api_key as string;

    expect((await chat(key, 'gpt-4o-mini')).status).toBe(200);
    expect(openai.requests.length).toBeGreaterThan(0);
    openai.reset();
    const before = await balance();

    const refused = await chat(key, 'gpt-4o');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'model_not_allowed', param: 'model', type: 'permission_error' });
    const compat = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .send({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    expect(compat.status).toBe(403);
    expect(compat.body.error.code).toBe('model_not_allowed');
    const fallback = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .send({ model: 'gpt-4o-mini', fallbacks: ['gpt-4o'], messages: [{ role: 'user', content: 'hi' }] });
    expect(fallback.status).toBe(403);
    expect(fallback.body.error.param).toBe('fallbacks');
    const embed = await request(t.url)
      .post('/v1/embeddings')
      .set('api-key', key)
      .send({ model: 'text-embedding-3-small', input: 'x' });
    expect(embed.status).toBe(403);
    expect(openai.requests).toHaveLength(0);
    expect(await balance()).toBe(before);

    // lifting the restriction (admin) lets every model through
    const lifted = await as(t.url, owner)
      .patch(`/api/v1/teams/${teamId}/api-keys/${created.body.id}`)
      .send({ allowed_models: null });
    expect(lifted.body.allowed_models).toEqual([]);
    expect((await chat(key, 'gpt-4o')).status).toBe(200);
    openai.reset();

    clock.advance(2 * DAY);
    const expired = await chat(key, 'gpt-4o-mini');
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('key_expired');
    expect(openai.requests).toHaveLength(0);
    const past = await as(t.url, owner)
      .post(`/api/v1/teams/${teamId}/api-keys`)
      .send({ expires_at: new Date(T0).toISOString() });
    expect(past.status).toBe(400);
    expect(past.body.error.param).toBe('expires_at');
  });

  it('invitations: e-mailed through SMTP, accepted once by a new user (signed in at once), expired and revoked ones refused', async () => {
    const inv = await as(t.url, owner)
      .post(`/api/v1/teams/${teamId}/invitations`)
      .send({ email: 'New@Acme.test', role: 'member' });
    expect(inv.status).toBe(201);
    expect(inv.body.url).toBe(`https://gw.example.com/invitations/${inv.body.token}`);
    await waitFor(() => smtp.messages.some((m) => m.to.includes('new@acme.test')));
    const mail = smtp.messages.find((m) => m.to.includes('new@acme.test'))!;
    expect(mail.raw.replace(/=\r\n/g, '')).toContain(inv.body.token);
    expect(mail.raw).toContain('From: Gateway <gateway@example.com>');

    // the invitation page's preview: team, inviter, invited e-mail and the password rule, no credential
    const preview = await request(t.url).get(`/api/v1/invitations/${inv.body.token}`);
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      team_name: 'acme',
      email: 'new@acme.test',
      role: 'member',
      invited_by: 'Owner <owner@acme.test>',
      expires_at: inv.body.expires_at,
      account_exists: false,
      password_min_length: 12,
      password_max_length: 200,
    });
    expect((await request(t.url).get('/api/v1/invitations/inv_unknown')).status).toBe(404);

    const missing = await request(t.url).post(`/api/v1/invitations/${inv.body.token}/accept`).send({ name: 'New' });
    expect(missing.status).toBe(400);
    const accepted = await request(t.url)
      .post(`/api/v1/invitations/${inv.body.token}/accept`)
      .send({ name: 'New', password: PASSWORD });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ team_id: teamId, role: 'member' });
    const cookie = ([] as string[]).concat(accepted.headers['set-cookie'] ?? [])[0].split(';')[0];
    const me = await request(t.url).get('/api/v1/auth/me').set('cookie', cookie);
    expect(me.body.memberships).toEqual([{ team_id: teamId, team_name: 'acme', role: 'member' }]);
    const again = await request(t.url)
      .post(`/api/v1/invitations/${inv.body.token}/accept`)
      .send({ name: 'X', password: PASSWORD });
    expect(again.status).toBe(410);
    expect(again.body.error.code).toBe('invitation_invalid');
    const used = await request(t.url).get(`/api/v1/invitations/${inv.body.token}`);
    expect([used.status, used.body.error.code]).toEqual([410, 'invitation_invalid']);

    const late = await as(t.url, owner)
      .post(`/api/v1/teams/${teamId}/invitations`)
      .send({ email: 'late@acme.test', role: 'viewer' });
    expect((await request(t.url).get(`/api/v1/invitations/${late.body.token}`)).body.invited_by).toBe(
      'Owner <owner@acme.test>',
    );
    clock.advance(7 * DAY + 1);
    expect((await request(t.url).get(`/api/v1/invitations/${late.body.token}`)).status).toBe(410);
    const expired = await request(t.url)
      .post(`/api/v1/invitations/${late.body.token}/accept`)
      .send({ name: 'L', password: PASSWORD });
    expect(expired.status).toBe(410);

    const revoked = await as(t.url, owner)
      .post(`/api/v1/teams/${teamId}/invitations`)
      .send({ email: 'rev@acme.test', role: 'viewer' });
    expect((await as(t.url, owner).delete(`/api/v1/teams/${teamId}/invitations/${revoked.body.id}`)).status).toBe(204);
    const gone = await request(t.url)
      .post(`/api/v1/invitations/${revoked.body.token}/accept`)
      .send({ name: 'R', password: PASSWORD });
    expect(gone.status).toBe(410);
    const list = await as(t.url, owner).get(`/api/v1/teams/${teamId}/invitations`);
    const status = Object.fromEntries(
      list.body.data.map((i: { email: string; status: string }) => [i.email, i.status]),
    );
    expect(status).toMatchObject({
      'new@acme.test': 'accepted',
      'late@acme.test': 'expired',
      'rev@acme.test': 'revoked',
    });
    expect(JSON.stringify(list.body)).not.toContain(inv.body.token);

    // an existing user signs in, then accepts with the session
    await createUser(t.url, 'known@else.test', PASSWORD);
    const known = await as(t.url, owner)
      .post(`/api/v1/teams/${teamId}/invitations`)
      .send({ email: 'known@else.test', role: 'admin' });
    expect((await request(t.url).get(`/api/v1/invitations/${known.body.token}`)).body.account_exists).toBe(true);
    const anon = await request(t.url)
      .post(`/api/v1/invitations/${known.body.token}/accept`)
      .send({ name: 'K', password: PASSWORD });
    expect(anon.status).toBe(401);
    const k = await signIn(t.url, 'known@else.test', PASSWORD);
    const ok = await as(t.url, k).post(`/api/v1/invitations/${known.body.token}/accept`).send({});
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ team_id: teamId, role: 'admin', user_id: k.userId });
  });

  it('audit log: one record per change with actor, IP and team, secrets absent; filters, cursor paging, CSV; team admins see their team only', async () => {
    const key = await as(t.url, owner).post(`/api/v1/teams/${teamId}/api-keys`).send({ name: 'audited' });
    await as(t.url, owner).patch(`/api/v1/teams/${teamId}/api-keys/${key.body.id}`).send({ rpm_limit: 5 });
    await as(t.url, owner).delete(`/api/v1/teams/${teamId}/api-keys/${key.body.id}`);
    const top = await admin(request(t.url).post(`/api/v1/admin/teams/${teamId}/top-ups`)).send({
      amount_rub: 7,
      reference: 'inv-7',
      note: 'Invoice 7 paid',
    });
    expect(top.status).toBe(200);
    const missingTeam = await admin(
      request(t.url).post('/api/v1/admin/teams/00000000-0000-4000-8000-000000000000/top-ups'),
    ).send({
      amount_rub: 1,
    });
    expect(missingTeam.status).toBe(404);
    await request(t.url).post('/api/v1/auth/login').send({ email: 'owner@acme.test', password: 'not my password' });
    await as(t.url, owner).post('/api/v1/auth/password').send({ current_password: PASSWORD, new_password: PASSWORD });

    const log = await admin(request(t.url).get('/api/v1/audit-log?limit=1000'));
    expect(log.status).toBe(200);
    const actions = log.body.data.map((e: { action: string }) => e.action);
    for (const a of [
      'invitation.create',
      'invitation.accept',
      'invitation.revoke',
      'auth.login',
      'auth.login_failed',
      'auth.password_change',
      'api_key.create',
      'api_key.update',
      'api_key.revoke',
      'team.create',
      'team.top_up',
      'user.create',
    ])
      expect(actions).toContain(a);
    const text = JSON.stringify(log.body);
    expect(text).not.toContain(key.body.api_key);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(owner.cookie.split('=')[1]);
    expect(text).not.toContain('not my password');

    const created = log.body.data.find(
      (e: { action: string; target_id: string }) => e.action === 'api_key.create' && e.target_id === key.body.id,
    );
    expect(created).toMatchObject({
      actor_type: 'user',
      actor_id: owner.userId,
      team_id: teamId,
      ip: expect.any(String),
    });
    const topUps = log.body.data.filter((e: { action: string }) => e.action === 'team.top_up');
    expect(topUps).toHaveLength(1); // the refused one left no record
    expect(topUps[0]).toMatchObject({
      actor_type: 'operator_token',
      team_id: teamId,
      diff: { before: null, after: expect.objectContaining({ amount_rub: 7, note: 'Invoice 7 paid' }) },
    });
    const updated = log.body.data.find((e: { action: string }) => e.action === 'api_key.update');
    expect(updated.diff.before.rpm_limit).toBeNull();
    expect(updated.diff.after.rpm_limit).toBe(5);
    const failed = log.body.data.find((e: { action: string }) => e.action === 'auth.login_failed');
    expect(failed).toMatchObject({ actor_type: 'anonymous', actor_id: 'owner@acme.test' });

    // newest first, cursor paging without overlap
    const p1 = await admin(request(t.url).get(`/api/v1/audit-log?team_id=${teamId}&limit=3`));
    const p2 = await admin(
      request(t.url).get(`/api/v1/audit-log?team_id=${teamId}&limit=3&cursor=${p1.body.next_cursor}`),
    );
    expect(p1.body.data).toHaveLength(3);
    const ids = [...p1.body.data, ...p2.body.data].map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const ats = [...p1.body.data, ...p2.body.data].map((e: { at: string }) => Date.parse(e.at));
    expect([...ats].sort((x, y) => y - x)).toEqual(ats);

    const byAction = await admin(request(t.url).get(`/api/v1/audit-log?action=api_key.revoke&target=${key.body.id}`));
    expect(byAction.body.data).toHaveLength(1);
    const byActor = await admin(request(t.url).get(`/api/v1/audit-log?actor=${owner.userId}&limit=1000`));
    expect(byActor.body.data.every((e: { actor_id: string }) => e.actor_id === owner.userId)).toBe(true);
    const future = new Date(clock.now() + DAY).toISOString();
    expect((await admin(request(t.url).get(`/api/v1/audit-log?from=${future}`))).body.data).toEqual([]);

    const csv = await admin(request(t.url).get(`/api/v1/audit-log?format=csv&team_id=${teamId}&action=team.top_up`));
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const rows = csv.text.trim().split('\r\n');
    expect(rows[0]).toBe('id,at,actor_type,actor_id,ip,user_agent,team_id,action,target_type,target_id,diff');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain('team.top_up');

    // a team admin reads their team's log (team_id required) but not another team's
    const other = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'other' })).body.id;
    const k = await signIn(t.url, 'known@else.test', PASSWORD); // admin of acme since the invitation above
    const own = await as(t.url, k).get(`/api/v1/audit-log?team_id=${teamId}`);
    expect(own.status).toBe(200);
    expect(own.body.data.every((e: { team_id: string }) => e.team_id === teamId)).toBe(true);
    expect((await as(t.url, k).get(`/api/v1/audit-log?team_id=${other}`)).status).toBe(404);
    expect((await as(t.url, k).get('/api/v1/audit-log')).status).toBe(400);
  });

  it('project, integration and knowledge-base changes are recorded with the session user or the API key as the actor', async () => {
    const p = await as(t.url, owner).post('/api/v1/projects').set('x-team-id', teamId).send({ name: 'audited' });
    expect(p.status).toBe(201);
    const hook = await as(t.url, owner)
      .post(`/api/v1/projects/${p.body.id}/integrations`)
      .set('x-team-id', teamId)
      .send({ type: 'webhook', name: 'events' });
    expect(hook.status).toBe(201);
    const kb = await as(t.url, owner).post('/api/v1/knowledge-bases').set('x-team-id', teamId).send({ name: 'kb' });
    expect(
      (await as(t.url, owner).delete(`/api/v1/knowledge-bases/${kb.body.id}`).set('x-team-id', teamId)).status,
    ).toBe(200);
    const kbLog = await admin(request(t.url).get(`/api/v1/audit-log?target=${kb.body.id}`));
    expect(kbLog.body.data.map((e: { action: string }) => e.action)).toEqual([
      'knowledge_base.delete',
      'knowledge_base.create',
    ]);
    const hookLog = await admin(
      request(t.url).get(`/api/v1/audit-log?action=integration.create&target=${hook.body.id}`),
    );
    expect(hookLog.body.data).toHaveLength(1);
    expect(JSON.stringify(hookLog.body)).not.toContain(String(hook.body.secret));
    const key = (await admin(request(t.url).post(`/api/v1/admin/teams/${teamId}/api-keys`)).send({})).body;
    expect((await request(t.url).delete(`/api/v1/projects/${p.body.id}`).set('api-key', key.api_key)).status).toBe(200);
    const log = await admin(request(t.url).get(`/api/v1/audit-log?target=${p.body.id}`));
    expect(log.body.data).toEqual([
      expect.objectContaining({ action: 'project.delete', actor_type: 'api_key', actor_id: key.id, team_id: teamId }),
      expect.objectContaining({
        action: 'project.create',
        actor_type: 'user',
        actor_id: owner.userId,
        team_id: teamId,
      }),
    ]);
  });

  it('records older than AUDIT_RETENTION_DAYS (365) are deleted by the hourly sweep', async () => {
    const before = (await admin(request(t.url).get('/api/v1/audit-log?limit=1000'))).body.data.length;
    expect(before).toBeGreaterThan(0);
    clock.advance(366 * DAY);
    await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'recent' });
    await t.get(SessionsService).sweep();
    const after = (await admin(request(t.url).get('/api/v1/audit-log?limit=1000'))).body.data;
    expect(after.map((e: { action: string }) => e.action)).toEqual(['team.create']);
  });
});

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
