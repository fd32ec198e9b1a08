import request from 'supertest';
import { Logger } from '@nestjs/common';
import { AccountsBootstrapService, FIRST_RUN_OPERATOR_EMAIL, NO_USER_HINT } from '@app/accounts';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, createUser, signIn } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);

/** Sign-in, sessions, cookie flags, CSRF, throttling and the first operator. */
describe(`accounts: sign-in and sessions on ${backendKind()}`, () => {
  const clock = new ManualClock(T0);
  let a: TestApp;
  /** a second replica on the same database and Redis (Postgres + Redis only: the embedded throttle is per process) */
  let b: TestApp;
  const shared = backendKind() === 'postgres';

  beforeAll(async () => {
    const env = {
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '4',
      LOGIN_MAX_FAILURES_PER_IP: '20',
      SESSION_IDLE_TIMEOUT_MINUTES: '30',
      SESSION_MAX_AGE_HOURS: '2',
    };
    a = await createTestApp({ clock, env });
    b = shared ? await createTestApp({ clock, env, shareBackendWith: a }) : a;
  }, 60_000);
  afterAll(async () => {
    if (b !== a) await b?.close();
    await a?.close();
  });

  it('login → me → logout: the session cookie is HttpOnly, SameSite=Lax, Path=/, not Secure over plain HTTP', async () => {
    const userId = await createUser(a.url, 'ada@example.com', PASSWORD);
    const br = await signIn(a.url, '  ADA@Example.com ', PASSWORD);
    expect(br.userId).toBe(userId);
    const flags = br.setCookie.split(';').map((p) => p.trim().toLowerCase());
    expect(flags).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/']));
    expect(flags).not.toContain('secure');
    expect(br.cookie).toMatch(/^gw_session=[A-Za-z0-9_-]{43}$/);

    const me = await as(a.url, br).get('/api/v1/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      user: expect.objectContaining({ id: userId, email: 'ada@example.com', operator: false, disabled: false }),
      memberships: [],
      csrf_token: br.csrf,
    });
    // the other replica knows the session too (stored in the database)
    expect((await as(b.url, br).get('/api/v1/auth/me')).status).toBe(200);
    // the console's probe: the same state when signed in, 200 with signed_in false otherwise
    expect((await as(a.url, br).get('/api/v1/auth/session')).body).toEqual({ signed_in: true, state: me.body });

    expect((await as(a.url, br).post('/api/v1/auth/logout')).status).toBe(204);
    const after = await as(a.url, br).get('/api/v1/auth/me');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('not_authenticated');
    expect((await request(a.url).get('/api/v1/auth/me')).status).toBe(401);
    for (const probe of [
      await as(a.url, br).get('/api/v1/auth/session'),
      await request(a.url).get('/api/v1/auth/session'),
    ]) {
      expect(probe.status).toBe(200);
      expect(probe.body).toEqual({ signed_in: false, state: null });
    }
  });

  it('Secure is set when the request came over TLS per TRUST_PROXY, and not from a forwarded header without it', async () => {
    await createUser(a.url, 'tls@example.com', PASSWORD);
    const untrusted = await signIn(a.url, 'tls@example.com', PASSWORD, { 'x-forwarded-proto': 'https' });
    expect(untrusted.setCookie.toLowerCase()).not.toContain('secure');
    const proxied = await createTestApp({ env: { TRUST_PROXY: 'true' }, shareBackendWith: a });
    try {
      const viaTls = await signIn(proxied.url, 'tls@example.com', PASSWORD, { 'x-forwarded-proto': 'https' });
      expect(viaTls.setCookie.split(';').map((p) => p.trim().toLowerCase())).toContain('secure');
      const plain = await signIn(proxied.url, 'tls@example.com', PASSWORD);
      expect(plain.setCookie.toLowerCase()).not.toContain('secure');
    } finally {
      await proxied.close();
    }
  });

  it('a new session on every sign-in; sessions are listed and revocable by their user only', async () => {
    await createUser(a.url, 'grace@example.com', PASSWORD);
    await createUser(a.url, 'linus@example.com', PASSWORD);
    const one = await signIn(a.url, 'grace@example.com', PASSWORD, { 'user-agent': 'laptop' });
    const two = await signIn(a.url, 'grace@example.com', PASSWORD, { 'user-agent': 'phone' });
    const other = await signIn(a.url, 'linus@example.com', PASSWORD);
    expect(one.cookie).not.toBe(two.cookie);
    expect(one.csrf).not.toBe(two.csrf);
    const list = await as(a.url, one).get('/api/v1/auth/sessions');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    const phone = list.body.data.find((s: { user_agent: string }) => s.user_agent === 'phone');
    expect(list.body.data.find((s: { current: boolean }) => s.current).user_agent).toBe('laptop');
    expect(JSON.stringify(list.body)).not.toContain(two.cookie.split('=')[1]);
    // another user cannot end it (404 as for an unknown session)
    expect((await as(a.url, other).delete(`/api/v1/auth/sessions/${phone.id}`)).status).toBe(404);
    expect((await as(a.url, two).get('/api/v1/auth/me')).status).toBe(200);
    expect((await as(a.url, one).delete(`/api/v1/auth/sessions/${phone.id}`)).status).toBe(204);
    expect((await as(a.url, two).get('/api/v1/auth/me')).status).toBe(401);
    expect((await as(a.url, one).get('/api/v1/auth/me')).status).toBe(200);
  });

  it('CSRF: a cookie request that changes state without the right x-csrf-token is refused with 403 csrf_failed; API-key requests are unaffected', async () => {
    await createUser(a.url, 'csrf@example.com', PASSWORD);
    const br = await signIn(a.url, 'csrf@example.com', PASSWORD);
    const none = await request(a.url).post('/api/v1/auth/logout').set('cookie', br.cookie);
    expect(none.status).toBe(403);
    expect(none.body.error).toMatchObject({ type: 'permission_error', code: 'csrf_failed' });
    const wrong = await request(a.url)
      .post('/api/v1/auth/password')
      .set('cookie', br.cookie)
      .set('x-csrf-token', 'not-the-token')
      .send({ current_password: PASSWORD, new_password: 'another long passphrase' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('csrf_failed');
    // the session survived both refusals, and reads need no token
    expect((await as(a.url, br).get('/api/v1/auth/me')).status).toBe(200);

    // an API-key request carrying a cookie is authenticated by the key alone: no CSRF header needed
    const team = await admin(request(a.url).post('/api/v1/admin/teams')).send({ name: 'csrf-team', balance_rub: 10 });
    const key = await admin(request(a.url).post(`/api/v1/admin/teams/${team.body.id}/api-keys`)).send({});
    const kb = await request(a.url)
      .post('/api/v1/knowledge-bases')
      .set('api-key', key.body.api_key)
      .set('cookie', br.cookie)
      .send({ name: 'docs' });
    expect(kb.status).toBe(201);
  });

  it('unknown e-mail and wrong password get the same answer; a disabled user cannot sign in and loses their sessions', async () => {
    const id = await createUser(a.url, 'same@example.com', PASSWORD);
    const unknown = await request(a.url)
      .post('/api/v1/auth/login')
      .send({ email: 'nobody@example.com', password: PASSWORD });
    const wrong = await request(a.url)
      .post('/api/v1/auth/login')
      .send({ email: 'same@example.com', password: 'wrong password!' });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(unknown.body.error.code).toBe('invalid_credentials');

    const br = await signIn(a.url, 'same@example.com', PASSWORD);
    expect((await admin(request(a.url).patch(`/api/v1/admin/users/${id}`)).send({ disabled: true })).status).toBe(200);
    expect((await as(a.url, br).get('/api/v1/auth/me')).status).toBe(401);
    const disabled = await request(a.url)
      .post('/api/v1/auth/login')
      .send({ email: 'same@example.com', password: PASSWORD });
    expect(disabled.status).toBe(401);
    expect(disabled.body).toEqual(wrong.body);
  });

  it(`failed sign-ins are throttled per account ${shared ? 'across two replicas (Redis)' : '(in-process)'}: 429 with Retry-After, even with the right password, until the window ends`, async () => {
    await createUser(a.url, 'target@example.com', PASSWORD);
    const fail = (url: string) =>
      request(url).post('/api/v1/auth/login').set('x-forwarded-for', '198.51.100.1').send({
        email: 'target@example.com',
        password: 'guess number x',
      });
    for (let i = 0; i < 4; i++) expect((await fail(i % 2 === 0 ? a.url : b.url)).status).toBe(401);
    for (const url of [a.url, b.url]) {
      const blocked = await request(url)
        .post('/api/v1/auth/login')
        .send({ email: 'target@example.com', password: PASSWORD });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
      expect(blocked.body.error.type).toBe('rate_limit_error');
    }
    // other accounts are not affected by this account's lock
    await createUser(a.url, 'bystander@example.com', PASSWORD);
    expect(
      (await request(b.url).post('/api/v1/auth/login').send({ email: 'bystander@example.com', password: PASSWORD }))
        .status,
    ).toBe(200);
  });

  it('failed sign-ins are throttled per client address across accounts', async () => {
    // a fresh replica so that the address counter starts at zero on the embedded backend too
    const c = await createTestApp({ env: { LOGIN_MAX_FAILURES_PER_ACCOUNT: '100', LOGIN_MAX_FAILURES_PER_IP: '3' } });
    try {
      await createUser(c.url, 'victim@example.com', PASSWORD);
      for (let i = 0; i < 3; i++)
        expect(
          (
            await request(c.url)
              .post('/api/v1/auth/login')
              .send({ email: `spray${i}@example.com`, password: PASSWORD })
          ).status,
        ).toBe(401);
      const blocked = await request(c.url)
        .post('/api/v1/auth/login')
        .send({ email: 'victim@example.com', password: PASSWORD });
      expect(blocked.status).toBe(429);
      expect(blocked.headers['retry-after']).toBeDefined();
    } finally {
      await c.close();
    }
  });

  it('password change checks the current password and ends the other sessions', async () => {
    await createUser(a.url, 'pw@example.com', PASSWORD);
    const here = await signIn(a.url, 'pw@example.com', PASSWORD);
    const there = await signIn(b.url, 'pw@example.com', PASSWORD);
    const bad = await as(a.url, here)
      .post('/api/v1/auth/password')
      .send({ current_password: 'not it at all', new_password: 'brand new passphrase' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_password');
    const short = await as(a.url, here)
      .post('/api/v1/auth/password')
      .send({ current_password: PASSWORD, new_password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.param).toBe('new_password');
    const ok = await as(a.url, here)
      .post('/api/v1/auth/password')
      .send({ current_password: PASSWORD, new_password: 'brand new passphrase' });
    expect(ok.status).toBe(204);
    expect((await as(a.url, here).get('/api/v1/auth/me')).status).toBe(200);
    expect((await as(b.url, there).get('/api/v1/auth/me')).status).toBe(401);
    expect(
      (await request(a.url).post('/api/v1/auth/login').send({ email: 'pw@example.com', password: PASSWORD })).status,
    ).toBe(401);
    await signIn(a.url, 'pw@example.com', 'brand new passphrase');
  });

  it('a session ends after the idle timeout, and at its absolute lifetime however active', async () => {
    await createUser(a.url, 'idle@example.com', PASSWORD);
    const idle = await signIn(a.url, 'idle@example.com', PASSWORD);
    clock.advance(29 * 60_000);
    expect((await as(a.url, idle).get('/api/v1/auth/me')).status).toBe(200);
    clock.advance(29 * 60_000); // 29 min since the last use
    expect((await as(a.url, idle).get('/api/v1/auth/me')).status).toBe(200);
    clock.advance(31 * 60_000); // 31 min idle
    expect((await as(a.url, idle).get('/api/v1/auth/me')).status).toBe(401);

    const busy = await signIn(a.url, 'idle@example.com', PASSWORD);
    for (let i = 0; i < 5; i++) {
      clock.advance(25 * 60_000);
      expect((await as(a.url, busy).get('/api/v1/auth/me')).status).toBe(i < 4 ? 200 : 401); // 2 h lifetime
    }
  });

  it('an operator session reaches the admin API (with CSRF); a non-operator session does not', async () => {
    await createUser(a.url, 'op@example.com', PASSWORD, true);
    await createUser(a.url, 'plain@example.com', PASSWORD);
    const op = await signIn(a.url, 'op@example.com', PASSWORD);
    const plain = await signIn(a.url, 'plain@example.com', PASSWORD);
    const created = await as(a.url, op).post('/api/v1/admin/teams').send({ name: 'by-operator', balance_rub: 5 });
    expect(created.status).toBe(201);
    expect((await as(a.url, op).get(`/api/v1/admin/teams/${created.body.id}`)).status).toBe(200);
    const refused = await as(a.url, plain).post('/api/v1/admin/teams').send({ name: 'nope' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'operator_required' });
    expect((await as(a.url, plain).get('/api/v1/admin/users')).status).toBe(403);
  });
});

describe(`accounts: the first operator on ${backendKind()}`, () => {
  it('BOOTSTRAP_OPERATOR_EMAIL/PASSWORD: an operator who owns the bootstrap workspace; a restart changes nothing', async () => {
    const env = {
      BOOTSTRAP_API_KEY: 'sk-bootstrap-accounts-0123456789',
      BOOTSTRAP_BALANCE_RUB: '10',
      BOOTSTRAP_OPERATOR_EMAIL: 'Root@Example.com',
      BOOTSTRAP_OPERATOR_PASSWORD: PASSWORD,
    };
    const t = await createTestApp({ env });
    try {
      const br = await signIn(t.url, 'root@example.com', PASSWORD);
      const me = await as(t.url, br).get('/api/v1/auth/me');
      expect(me.body.user.operator).toBe(true);
      expect(me.body.memberships).toEqual([{ team_id: expect.any(String), team_name: 'default', role: 'owner' }]);
      const balance = await request(t.url).get('/api/v1/balance').set('api-key', env.BOOTSTRAP_API_KEY);
      expect(balance.body.team_id).toBe(me.body.memberships[0].team_id);
      // a second start (another replica) with another password does not touch the existing user
      const again = await createTestApp({
        env: { ...env, BOOTSTRAP_OPERATOR_PASSWORD: 'another password 123' },
        shareBackendWith: t,
      });
      await again.close();
      await signIn(t.url, 'root@example.com', PASSWORD);
      const users = await admin(request(t.url).get('/api/v1/admin/users'));
      expect(users.body.data.filter((u: { email: string }) => u.email === 'root@example.com')).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('a server with no user logs how to create one; with a user it says nothing', async () => {
    const warned: string[] = [];
    const spy = jest.spyOn(Logger.prototype, 'warn').mockImplementation((m: unknown) => void warned.push(String(m)));
    const app = await createTestApp(); // ADMIN_TOKEN set: no first run, no user
    try {
      await app.get(AccountsBootstrapService).firstRun();
      expect(warned).toContain(NO_USER_HINT);
      warned.length = 0;
      await createUser(app.url, 'someone@example.com', PASSWORD);
      await app.get(AccountsBootstrapService).firstRun();
      expect(warned).not.toContain(NO_USER_HINT);
    } finally {
      spy.mockRestore();
      await app.close();
    }
  });

  it('embedded first run: an operator who owns the development workspace, printed beside the key', async () => {
    const printed: string[] = [];
    const app = await createTestApp({ env: { ADMIN_TOKEN: '' } });
    const spy = jest
      .spyOn(process.stdout, 'write')
      .mockImplementation((chunk: string | Uint8Array) => (printed.push(String(chunk)), true));
    try {
      await app.get(AccountsBootstrapService).firstRun();
    } finally {
      spy.mockRestore();
    }
    try {
      const banner = printed.join('');
      if (backendKind() === 'postgres') {
        expect(banner).not.toContain('First run');
        return;
      }
      expect(banner).toContain(`E-mail:   ${FIRST_RUN_OPERATOR_EMAIL}`);
      const password = /Password: (\S+)/.exec(banner)?.[1];
      const key = /API key: (sk-\S+)/.exec(banner)?.[1];
      expect(password).toBeDefined();
      const br = await signIn(app.url, FIRST_RUN_OPERATOR_EMAIL, password!);
      const me = await as(app.url, br).get('/api/v1/auth/me');
      expect(me.body.user.operator).toBe(true);
      const balance = await request(app.url).get('/api/v1/balance').set('api-key', key!);
      expect(me.body.memberships).toEqual([{ team_id: balance.body.team_id, team_name: 'dev', role: 'owner' }]);
    } finally {
      await app.close();
    }
  });
});
