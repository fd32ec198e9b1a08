import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import Provider, { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, createUser } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';

interface Person {
  email: string;
  email_verified: boolean;
  name: string;
  groups: string[];
}

/**
 * A real OpenID Provider (the `oidc-provider` package) on a loopback port. Its interaction step (the
 * login page) signs in as `next.account` at once; consent is granted by loadExistingGrant.
 */
async function startProvider(redirectUri: string) {
  const people: Record<string, Person> = {};
  const next = { account: '' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const configuration: Configuration = {
    clients: [
      {
        client_id: 'gateway',
        client_secret: 'gateway-secret-0123456789abcdef',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => {
      const p = people[id];
      return p ? { accountId: id, claims: () => ({ sub: id, ...p }) } : undefined;
    },
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId,
      });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  const handle = provider.callback();
  server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname.startsWith('/interaction/')) {
      provider
        .interactionFinished(req, res, { login: { accountId: next.account } }, { mergeWithLastSubmission: false })
        .catch((err: { error_description?: string; message: string }) => {
          res.statusCode = 400;
          res.end(String(err.error_description ?? err.message));
        });
      return;
    }
    void handle(req, res);
  });
  return {
    issuer,
    people,
    next,
    close: () => {
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      return closed;
    },
  };
}

/** Follows redirects by hand, keeping each host's cookies; stops at the first URL on `stopAt`'s origin. */
async function browse(start: string, stopAt: string, jar: Map<string, string[]> = new Map()): Promise<string> {
  let url = start;
  for (let i = 0; i < 10; i++) {
    if (url.startsWith(stopAt)) return url;
    const origin = new URL(url).origin;
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: (jar.get(origin) ?? []).join('; ') } });
    let cookies = jar.get(origin) ?? [];
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0];
      const name = pair.split('=')[0];
      cookies = cookies.filter((x) => x.split('=')[0] !== name);
      if (!pair.endsWith('=')) cookies.push(pair);
    }
    jar.set(origin, cookies);
    const loc = res.headers.get('location');
    if (!loc) throw new Error(`no redirect from ${url}: ${res.status} ${await res.text()}`);
    url = new URL(loc, url).href;
  }
  throw new Error('too many redirects');
}

describe(`accounts: OpenID Connect sign-in against an in-test provider on ${backendKind()}`, () => {
  let t: TestApp;
  let base: TestApp;
  let op: Awaited<ReturnType<typeof startProvider>>;
  let teamId: string;

  beforeAll(async () => {
    // the provider must know the gateway's redirect URI before the gateway starts: pick a free port first
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const gwPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const redirectUri = `http://127.0.0.1:${gwPort}/api/v1/auth/oidc/callback`;
    op = await startProvider(redirectUri);
    base = await createTestApp();
    teamId = (await admin(request(base.url).post('/api/v1/admin/teams')).send({ name: 'sso-team' })).body.id;
    t = await createTestApp({
      shareBackendWith: base,
      env: {
        OIDC_ISSUER: op.issuer,
        OIDC_CLIENT_ID: 'gateway',
        OIDC_CLIENT_SECRET: 'gateway-secret-0123456789abcdef',
        OIDC_REDIRECT_URI: redirectUri,
        OIDC_SCOPES: 'openid email profile groups',
        OIDC_AUTO_PROVISION: 'true',
        OIDC_ROLE_MAPPING: `engineers=${teamId}:member;leads=${teamId}:admin`,
        OIDC_POST_LOGIN_URL: '/console/',
      },
      port: gwPort,
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await base?.close();
    await op?.close();
  });

  /** Runs the whole browser flow as `account`; returns the callback's answer. */
  const ssoLogin = async (account: string) => {
    op.next.account = account;
    const jar = new Map<string, string[]>();
    const start = await fetch(`${t.url}/api/v1/auth/oidc/login`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const pending = start.headers.getSetCookie().find((c) => c.startsWith('gw_oidc='))!;
    const callback = await browse(start.headers.get('location')!, t.url, jar);
    const res = await fetch(callback, { redirect: 'manual', headers: { cookie: pending.split(';')[0] } });
    return { res, authorize: new URL(start.headers.get('location')!), callback };
  };

  it('GET /api/v1/auth/providers tells, without a session and without starting a flow, whether SSO is configured', async () => {
    const without = await request(base.url).get('/api/v1/auth/providers');
    expect(without.status).toBe(200);
    expect(without.body).toEqual({ password: true, oidc: false });
    const withSso = await request(t.url).get('/api/v1/auth/providers');
    expect(withSso.status).toBe(200);
    expect(withSso.body).toEqual({ password: true, oidc: true });
    // nothing pending was opened: no cookie at all
    expect(withSso.headers['set-cookie']).toBeUndefined();
  });

  it('sends PKCE (S256), state and nonce; a new user is provisioned with the mapped team role and signed in', async () => {
    op.people.ann = { email: 'Ann@Corp.test', email_verified: true, name: 'Ann', groups: ['engineers'] };
    const { res, authorize } = await ssoLogin('ann');
    expect(authorize.origin).toBe(op.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console/');
    const session = res.headers.getSetCookie().find((c) => c.startsWith('gw_session='))!;
    expect(session.toLowerCase()).toContain('httponly');
    const me = await request(t.url).get('/api/v1/auth/me').set('cookie', session.split(';')[0]);
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('ann@corp.test');
    expect(me.body.memberships).toEqual([{ team_id: teamId, team_name: 'sso-team', role: 'member' }]);
    const sessions = await request(t.url).get('/api/v1/auth/sessions').set('cookie', session.split(';')[0]);
    expect(sessions.body.data[0].via).toBe('oidc');
  });

  it('a verified e-mail links the existing user (no second account); an unverified one is refused', async () => {
    const id = await createUser(t.url, 'bob@corp.test', PASSWORD);
    op.people.bob = { email: 'bob@corp.test', email_verified: true, name: 'Bob', groups: [] };
    const { res } = await ssoLogin('bob');
    expect(res.status).toBe(302);
    const session = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('gw_session='))!
      .split(';')[0];
    const me = await request(t.url).get('/api/v1/auth/me').set('cookie', session);
    expect(me.body.user.id).toBe(id);

    op.people.eve = { email: 'bob@corp.test', email_verified: false, name: 'Eve', groups: [] };
    const refused = await ssoLogin('eve');
    expect(refused.res.status).toBe(403);
    expect(((await refused.res.json()) as { error: { code: string } }).error.code).toBe('sso_email_unverified');
  });

  it('the role mapping applies at every sign-in: a group gained adds or raises the membership; a group lost takes nothing away', async () => {
    const id = await createUser(t.url, 'carl@corp.test', PASSWORD);
    const memberships = async () => {
      const { res } = await ssoLogin('carl');
      expect(res.status).toBe(302);
      const cookie = res.headers
        .getSetCookie()
        .find((c) => c.startsWith('gw_session='))!
        .split(';')[0];
      const me = await request(t.url).get('/api/v1/auth/me').set('cookie', cookie);
      expect(me.body.user.id).toBe(id);
      return me.body.memberships as { team_id: string; role: string }[];
    };
    op.people.carl = { email: 'carl@corp.test', email_verified: true, name: 'Carl', groups: [] };
    expect(await memberships()).toEqual([]);
    op.people.carl.groups = ['engineers'];
    expect(await memberships()).toEqual([{ team_id: teamId, team_name: 'sso-team', role: 'member' }]);
    op.people.carl.groups = ['engineers', 'leads']; // the strongest mapped role wins
    expect(await memberships()).toEqual([{ team_id: teamId, team_name: 'sso-team', role: 'admin' }]);
    op.people.carl.groups = ['engineers']; // a lost group lowers nothing
    expect(await memberships()).toEqual([{ team_id: teamId, team_name: 'sso-team', role: 'admin' }]);
    op.people.carl.groups = [];
    expect(await memberships()).toEqual([{ team_id: teamId, team_name: 'sso-team', role: 'admin' }]);
    // a role granted in the team API above the mapping is kept too
    const owner = await admin(request(t.url).patch(`/api/v1/teams/${teamId}/members/${id}`)).send({ role: 'owner' });
    expect(owner.status).toBe(200);
    op.people.carl.groups = ['engineers'];
    expect(await memberships()).toEqual([{ team_id: teamId, team_name: 'sso-team', role: 'owner' }]);

    const log = await admin(request(t.url).get(`/api/v1/audit-log?target=${id}&team_id=${teamId}`));
    const changes = (log.body.data as { action: string; diff: { before: unknown; after: unknown } }[])
      .filter((e) => e.action.startsWith('member.'))
      .reverse()
      .map((e) => [e.action, e.diff]);
    expect(changes).toEqual([
      ['member.add', { before: null, after: { role: 'member', via: 'oidc' } }],
      ['member.role_change', { before: { role: 'member' }, after: { role: 'admin', via: 'oidc' } }],
      ['member.role_change', expect.objectContaining({ after: expect.objectContaining({ role: 'owner' }) })],
    ]);
  });

  it('a callback with a state that is not the one sent is refused (400 sso_failed) and opens no session', async () => {
    op.people.mallory = { email: 'mallory@corp.test', email_verified: true, name: 'M', groups: ['leads'] };
    op.next.account = 'mallory';
    const start = await fetch(`${t.url}/api/v1/auth/oidc/login`, { redirect: 'manual' });
    const pending = start.headers
      .getSetCookie()
      .find((c) => c.startsWith('gw_oidc='))!
      .split(';')[0];
    const callback = new URL(await browse(start.headers.get('location')!, t.url));
    callback.searchParams.set('state', 'forged-state');
    const res = await fetch(callback, { redirect: 'manual', headers: { cookie: pending } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('sso_failed');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('gw_session='))).toBe(false);
    // and without the pending-login cookie (another browser): refused too
    const other = await fetch(`${t.url}/api/v1/auth/oidc/callback?code=x&state=y`, { redirect: 'manual' });
    expect(other.status).toBe(400);
    const users = await admin(request(t.url).get('/api/v1/admin/users'));
    expect(users.body.data.some((u: { email: string }) => u.email === 'mallory@corp.test')).toBe(false);
  });

  it('OIDC_ONLY: password sign-in is refused for non-operators, operators keep it', async () => {
    const only = await createTestApp({ shareBackendWith: t, env: { OIDC_ONLY: 'true' } });
    try {
      await createUser(only.url, 'pw-user@corp.test', PASSWORD);
      await createUser(only.url, 'pw-op@corp.test', PASSWORD, true);
      const refused = await request(only.url)
        .post('/api/v1/auth/login')
        .send({ email: 'pw-user@corp.test', password: PASSWORD });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('password_login_disabled');
      expect(
        (await request(only.url).post('/api/v1/auth/login').send({ email: 'pw-op@corp.test', password: PASSWORD }))
          .status,
      ).toBe(200);
    } finally {
      await only.close();
    }
  });
});
