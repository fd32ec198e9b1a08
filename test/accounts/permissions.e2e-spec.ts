import request from 'supertest';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, Browser, createUser, joinTeam, signIn } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';
type Role = 'viewer' | 'member' | 'admin' | 'owner';
type Who = Role | 'outsider' | 'operator' | 'operator-token';
const ORDER: Role[] = ['viewer', 'member', 'admin', 'owner'];

/** A user who joined `teamId` with `role` by accepting an invitation (then signed in). */
const member = (url: string, teamId: string, email: string, role: Role): Promise<Browser> =>
  joinTeam(url, teamId, email, role, PASSWORD);

/**
 * The permission list, one row per action: the weakest role allowed (`operator`: operators only).
 * Every action runs as each role, an outsider (signed in, not a member), an operator's session and
 * the operator token; allowed → 2xx, a weaker role → 403 insufficient_role, an outsider → 404 as for
 * another team's resource (operator-only actions: 401 for every team role). The product API
 * (projects, knowledge bases, models) takes a session or an API key; the operator token gets 401 there.
 */
describe(`accounts: roles and permissions on ${backendKind()}`, () => {
  let t: TestApp;
  let teamId: string;
  const users: Partial<Record<Who, Browser>> = {};
  let seq = 0;

  beforeAll(async () => {
    t = await createTestApp();
    teamId = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'acme', balance_rub: 100 })).body.id;
    for (const r of ORDER) users[r] = await member(t.url, teamId, `${r}@acme.test`, r);
    await createUser(t.url, 'outsider@else.test', PASSWORD);
    users.outsider = await signIn(t.url, 'outsider@else.test', PASSWORD);
    await createUser(t.url, 'op@gw.test', PASSWORD, true);
    users.operator = await signIn(t.url, 'op@gw.test', PASSWORD);
  }, 120_000);
  afterAll(() => t?.close());

  /** A request as `who`: a browser session with CSRF, or the operator token. */
  const client = (who: Who) => {
    if (who === 'operator-token')
      return {
        get: (p: string) => admin(request(t.url).get(p)),
        post: (p: string) => admin(request(t.url).post(p)),
        patch: (p: string) => admin(request(t.url).patch(p)),
        delete: (p: string) => admin(request(t.url).delete(p)),
      };
    return as(t.url, users[who]!);
  };
  const T = () => `/api/v1/teams/${teamId}`;
  const fresh = () => `${++seq}`;
  const newKey = async () =>
    (await admin(request(t.url).post(`/api/v1/admin/teams/${teamId}/api-keys`)).send({ name: `k${fresh()}` })).body
      .id as string;
  const newProject = async () => {
    const key = (await admin(request(t.url).post(`/api/v1/admin/teams/${teamId}/api-keys`)).send({})).body.api_key;
    return (
      await request(t.url)
        .post('/api/v1/projects')
        .set('api-key', key)
        .send({ name: `p${fresh()}` })
    ).body.id as string;
  };
  const newMember = async (role: Role) => (await member(t.url, teamId, `m${fresh()}@acme.test`, role)).userId;

  /** `product`: the product API (projects, knowledge bases, models) — a session (x-team-id) or an API key, not the operator token */
  type Action = { name: string; min: Role | 'operator'; product?: true; run: (who: Who) => Promise<request.Response> };
  const ACTIONS: Action[] = [
    // viewer
    { name: 'read the team', min: 'viewer', run: (w) => client(w).get(T()) },
    { name: 'read the balance', min: 'viewer', run: (w) => client(w).get(`${T()}/balance`) },
    { name: 'read usage', min: 'viewer', run: (w) => client(w).get(`${T()}/usage`) },
    { name: 'read the usage summary', min: 'viewer', run: (w) => client(w).get(`${T()}/usage/summary?group_by=model`) },
    { name: 'read the ledger', min: 'viewer', run: (w) => client(w).get(`${T()}/ledger`) },
    { name: 'list keys', min: 'viewer', run: (w) => client(w).get(`${T()}/api-keys`) },
    { name: 'list members', min: 'viewer', run: (w) => client(w).get(`${T()}/members`) },
    {
      name: 'list projects',
      product: true,
      min: 'viewer',
      run: (w) => client(w).get('/api/v1/projects').set('x-team-id', teamId),
    },
    {
      name: 'list knowledge bases',
      product: true,
      min: 'viewer',
      run: (w) => client(w).get('/api/v1/knowledge-bases').set('x-team-id', teamId),
    },
    {
      name: 'list models',
      product: true,
      min: 'viewer',
      run: (w) => client(w).get('/api/v1/models').set('x-team-id', teamId),
    },
    // member
    { name: 'create an API key', min: 'member', run: (w) => client(w).post(`${T()}/api-keys`).send({ name: 'mine' }) },
    {
      name: 'create a project',
      product: true,
      min: 'member',
      run: (w) =>
        client(w)
          .post('/api/v1/projects')
          .set('x-team-id', teamId)
          .send({ name: `p${fresh()}` }),
    },
    {
      name: 'create a knowledge base',
      product: true,
      min: 'member',
      run: (w) =>
        client(w)
          .post('/api/v1/knowledge-bases')
          .set('x-team-id', teamId)
          .send({ name: `kb${fresh()}` }),
    },
    {
      name: 'edit a project',
      product: true,
      min: 'member',
      run: async (w) =>
        client(w)
          .patch(`/api/v1/projects/${await newProject()}`)
          .set('x-team-id', teamId)
          .send({ name: 'renamed' }),
    },
    {
      name: 'chat in the playground',
      product: true,
      min: 'member',
      run: (w) =>
        client(w)
          .post('/v1/chat/completions')
          .set('x-team-id', teamId)
          .send({ model: 'local', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 }),
    },
    // admin
    {
      name: "set limits on another member's key",
      min: 'admin',
      run: async (w) =>
        client(w)
          .patch(`${T()}/api-keys/${await newKey()}`)
          .send({ rpm_limit: 10, allowed_models: ['local'] }),
    },
    {
      name: "revoke another member's key",
      min: 'admin',
      run: async (w) => client(w).delete(`${T()}/api-keys/${await newKey()}`),
    },
    {
      name: 'invite a member',
      min: 'admin',
      run: (w) =>
        client(w)
          .post(`${T()}/invitations`)
          .send({ email: `i${fresh()}@x.test`, role: 'member' }),
    },
    { name: 'list invitations', min: 'admin', run: (w) => client(w).get(`${T()}/invitations`) },
    {
      name: "change a member's role",
      min: 'admin',
      run: async (w) =>
        client(w)
          .patch(`${T()}/members/${await newMember('viewer')}`)
          .send({ role: 'member' }),
    },
    {
      name: 'remove a member',
      min: 'admin',
      run: async (w) => client(w).delete(`${T()}/members/${await newMember('viewer')}`),
    },
    { name: 'change team settings', min: 'admin', run: (w) => client(w).patch(T()).send({ name: 'acme' }) },
    {
      name: 'add an integration',
      product: true,
      min: 'admin',
      run: async (w) =>
        client(w)
          .post(`/api/v1/projects/${await newProject()}/integrations`)
          .set('x-team-id', teamId)
          .send({ type: 'webhook', name: 'events' }),
    },
    { name: 'read the audit log', min: 'admin', run: (w) => client(w).get(`/api/v1/audit-log?team_id=${teamId}`) },
    // owner
    {
      name: 'transfer ownership (grant owner)',
      min: 'owner',
      run: async (w) =>
        client(w)
          .patch(`${T()}/members/${await newMember('admin')}`)
          .send({ role: 'owner' }),
    },
    // operator
    { name: 'create a team', min: 'operator', run: (w) => client(w).post('/api/v1/admin/teams').send({ name: 'new' }) },
    {
      name: 'top up a team',
      min: 'operator',
      run: (w) => client(w).post(`/api/v1/admin/teams/${teamId}/top-ups`).send({ amount_rub: 1, note: 'test' }),
    },
    {
      name: 'create a user',
      min: 'operator',
      run: (w) =>
        client(w)
          .post('/api/v1/admin/users')
          .send({ email: `u${fresh()}@x.test`, password: PASSWORD }),
    },
  ];

  const WHO: Who[] = ['viewer', 'member', 'admin', 'owner', 'outsider', 'operator', 'operator-token'];
  const cases = ACTIONS.flatMap((a) => WHO.map((w) => [a.name, w, a] as const));

  it.each(cases)('%s as %s', async (_name, who, action) => {
    const res = await action.run(who);
    if (who === 'operator-token' && action.product) {
      expect(res.status).toBe(401);
      return;
    }
    const operator = who === 'operator' || who === 'operator-token';
    const allowed =
      operator ||
      (action.min !== 'operator' && who !== 'outsider' && ORDER.indexOf(who as Role) >= ORDER.indexOf(action.min));
    if (allowed) {
      expect({ status: res.status >= 200 && res.status < 300 ? '2xx' : res.status, body: res.body }).toEqual({
        status: '2xx',
        body: expect.anything(),
      });
      return;
    }
    if (action.min === 'operator') {
      // signed in, but the admin API is for operators
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('operator_required');
    } else if (who === 'outsider') {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('team_not_found');
    } else {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_role');
    }
  });

  it('members revoke their own keys but not others; key lists never carry secrets', async () => {
    const m = users.member!;
    const own = await as(t.url, m).post(`${T()}/api-keys`).send({ name: 'own' });
    expect(own.status).toBe(201);
    expect(own.body.api_key).toMatch(/^sk-/);
    const list = await as(t.url, users.viewer!).get(`${T()}/api-keys`);
    expect(JSON.stringify(list.body)).not.toContain(own.body.api_key);
    expect(list.body.data.find((k: { id: string }) => k.id === own.body.id).created_by).toBe(m.userId);
    const others = await newKey();
    expect((await as(t.url, m).delete(`${T()}/api-keys/${others}`)).status).toBe(403);
    expect((await as(t.url, m).delete(`${T()}/api-keys/${own.body.id}`)).status).toBe(204);
    // another team's key is not found through this team
    const other = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'other' })).body.id;
    const foreign = (await admin(request(t.url).post(`/api/v1/admin/teams/${other}/api-keys`)).send({})).body.id;
    expect((await as(t.url, users.owner!).delete(`${T()}/api-keys/${foreign}`)).status).toBe(404);
  });

  it('the last owner cannot leave or be demoted; admins cannot touch owners; anyone may leave', async () => {
    const team = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'solo' })).body.id;
    const owner = await member(t.url, team, 'solo-owner@x.test', 'owner');
    const adm = await member(t.url, team, 'solo-admin@x.test', 'admin');
    const leave = await as(t.url, owner).delete(`/api/v1/teams/${team}/members/${owner.userId}`);
    expect(leave.status).toBe(409);
    expect(leave.body.error.code).toBe('last_owner');
    const demote = await admin(request(t.url).patch(`/api/v1/teams/${team}/members/${owner.userId}`)).send({
      role: 'admin',
    });
    expect(demote.status).toBe(409);
    expect(
      (await as(t.url, adm).patch(`/api/v1/teams/${team}/members/${owner.userId}`).send({ role: 'member' })).status,
    ).toBe(403);
    // transfer: the owner makes the admin an owner, then may step down
    expect(
      (await as(t.url, owner).patch(`/api/v1/teams/${team}/members/${adm.userId}`).send({ role: 'owner' })).status,
    ).toBe(200);
    expect((await as(t.url, owner).delete(`/api/v1/teams/${team}/members/${owner.userId}`)).status).toBe(204);
    const members = await as(t.url, adm).get(`/api/v1/teams/${team}/members`);
    expect(members.body.data).toEqual([expect.objectContaining({ user_id: adm.userId, role: 'owner' })]);
  });

  it('projects of another team answer 404 to a session; a session without x-team-id gets 400 team_required', async () => {
    const p = await newProject();
    const other = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'x' })).body.id;
    const mine = await member(t.url, other, 'x-owner@x.test', 'owner');
    expect((await as(t.url, users.viewer!).get(`/api/v1/projects/${p}`).set('x-team-id', teamId)).status).toBe(200);
    const cross = await as(t.url, mine).get(`/api/v1/projects/${p}`).set('x-team-id', other);
    expect(cross.status).toBe(404);
    const missing = await as(t.url, users.viewer!).get('/api/v1/projects');
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('team_required');
    const byQuery = await as(t.url, users.viewer!).get(`/api/v1/projects?team_id=${teamId}`);
    expect(byQuery.status).toBe(200);
  });

  it('GET /api/v1/teams lists my teams with my role; operators see every team', async () => {
    const mine = await as(t.url, users.admin!).get('/api/v1/teams');
    expect(mine.body.data).toEqual([{ id: teamId, name: 'acme', role: 'admin', balance_rub: expect.any(Number) }]);
    const all = await as(t.url, users.operator!).get('/api/v1/teams');
    expect(all.body.data.length).toBeGreaterThan(1);
    expect(all.body.data.find((x: { id: string }) => x.id === teamId).role).toBe('operator');
    expect((await request(t.url).get('/api/v1/teams')).status).toBe(401);
  });
});
