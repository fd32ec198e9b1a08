/**
 * Failed admin-token and API-key authentications are throttled per client address across replicas:
 * two app instances on one database (and, on Postgres, one Redis); the client address comes from
 * X-Forwarded-For because TRUST_PROXY trusts the loopback proxy. The admin token used to be
 * guessable at full speed (600 wrong tokens, no throttling).
 */
import { Logger } from '@nestjs/common';
import request from 'supertest';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

const LIMIT = 5;
const env = { AUTH_FAILURE_LIMIT: String(LIMIT), AUTH_FAILURE_WINDOW_SECONDS: '60', TRUST_PROXY: 'loopback' };
/** With Redis the failures are counted across replicas; in-process each replica counts its own. */
const sharedCounting = backendKind() === 'postgres' && !!process.env.TEST_REDIS_URL;

describe(`authentication failures throttled per client address across replicas (${backendKind()})`, () => {
  let a: TestApp;
  let b: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    a = await createTestApp({ env });
    b = await createTestApp({ env, shareBackendWith: a });
    ({ apiKey } = await new AdminClient(a.url).teamWithKey(10));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** Polls until `probe` answers 429 (the other replica hears of the throttling through the bus). */
  async function refusedWithin(ms: number, probe: () => Promise<request.Response>): Promise<request.Response> {
    const end = Date.now() + ms;
    for (;;) {
      const res = await probe();
      if (res.status === 429 || Date.now() > end) return res;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('wrong admin tokens: 401 up to the limit, then 429 with Retry-After on both replicas — the right token too; other addresses unaffected; logged', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const from = '203.0.113.10';
    const admin = (app: TestApp, token: string, address = from) =>
      request(app.url)
        .get('/api/v1/admin/teams')
        .set('x-forwarded-for', address)
        .set('authorization', `Bearer ${token}`);
    for (let i = 0; i < LIMIT; i++) {
      const app = sharedCounting && i % 2 === 1 ? b : a;
      const res = await admin(app, `wrong-token-${i}`);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_admin_token');
    }
    for (const app of [a, b]) {
      const res = await refusedWithin(1000, () => admin(app, `wrong-token-x`));
      expect(res.status).toBe(429);
      expect(res.body.error).toMatchObject({ type: 'rate_limit_error', code: 'too_many_auth_failures' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
      // a throttled address learns nothing, not even that a token is right
      expect((await admin(app, ADMIN_TOKEN)).status).toBe(429);
      // a POST (checked before the body is read) is refused the same way
      const post = await request(app.url)
        .post('/api/v1/admin/teams')
        .set('x-forwarded-for', from)
        .set('authorization', `Bearer ${ADMIN_TOKEN}`)
        .send({ name: 'x', balance_rub: 1 });
      expect(post.status).toBe(429);
      expect(post.headers['retry-after']).toBeDefined();
      // another client address is not throttled
      expect((await admin(app, ADMIN_TOKEN, '203.0.113.11')).status).toBe(200);
    }
    const logged = warn.mock.calls.filter((c) => String(c[1] ?? c[0]).includes('throttled'));
    expect(logged.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(logged[0])).toContain(from);
    warn.mockRestore();
  });

  it('wrong API keys (GET and POST routes, both header forms) → 429 on both replicas; a valid key from there too', async () => {
    const from = '198.51.100.20';
    for (let i = 0; i < LIMIT; i++) {
      const app = sharedCounting && i % 2 === 0 ? b : a;
      const res =
        i % 2 === 0
          ? await request(app.url).get('/api/v1/balance').set('x-forwarded-for', from).set('api-key', `sk-wrong-${i}`)
          : await request(app.url)
              .post('/v1/embeddings')
              .set('x-forwarded-for', from)
              .set('authorization', `Bearer sk-wrong-${i}`)
              .send({ model: 'local-embedding-small', input: 'x' });
      expect(res.status).toBe(401);
    }
    for (const app of [a, b]) {
      const res = await refusedWithin(1000, () =>
        request(app.url).get('/api/v1/balance').set('x-forwarded-for', from).set('api-key', apiKey),
      );
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('too_many_auth_failures');
      expect(res.headers['retry-after']).toBeDefined();
      // the same key from another address works
      const ok = await request(app.url)
        .get('/api/v1/balance')
        .set('x-forwarded-for', '198.51.100.21')
        .set('api-key', apiKey);
      expect(ok.status).toBe(200);
    }
  });

  it('requests without any credential are not guesses: never throttled', async () => {
    for (let i = 0; i < LIMIT * 2; i++) {
      const res = await request(a.url).get('/api/v1/balance').set('x-forwarded-for', '192.0.2.30');
      expect(res.status).toBe(401);
    }
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: the socket address is the one counted', async () => {
    const c = await createTestApp({ env: { AUTH_FAILURE_LIMIT: '3' } });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await request(c.url)
          .get('/api/v1/balance')
          .set('x-forwarded-for', `192.0.2.${100 + i}`)
          .set('api-key', 'sk-wrong');
        expect(res.status).toBe(401);
      }
      const res = await request(c.url).get('/api/v1/balance').set('x-forwarded-for', '192.0.2.200').set('api-key', 'x');
      expect(res.status).toBe(429);
    } finally {
      await c.close();
    }
  });
});
