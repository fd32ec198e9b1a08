/**
 * Sessions in Redis while Redis is down: a request made with the session cookie is answered 503
 * session_store_unavailable (not "not signed in" or "missing API key"); API keys keep working.
 * The gateway uses a private redis-server that the test stops.
 */
import request from 'supertest';
import { hasRedisServer, PrivateRedis } from '../support/private-redis';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, createUser, signIn } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';
const suite = hasRedisServer ? describe : describe.skip;

suite(`accounts: sessions while the session store (Redis) is down, on ${backendKind()}`, () => {
  let redis: PrivateRedis;
  let t: TestApp;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    t = await createTestApp({ env: { REDIS_URL: redis.url } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await redis?.down();
  });

  it('a cookie request answers 503 session_store_unavailable in both error shapes; API keys keep working; sessions resume with Redis', async () => {
    const teamId = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'outage', balance_rub: 1 }))
      .body.id as string;
    const key = (await admin(request(t.url).post(`/api/v1/admin/teams/${teamId}/api-keys`)).send({ name: 'k' })).body
      .api_key as string;
    await createUser(t.url, 'cookie@example.com', PASSWORD);
    const br = await signIn(t.url, 'cookie@example.com', PASSWORD);
    expect((await as(t.url, br).get('/api/v1/auth/me')).status).toBe(200);

    await redis.down();
    const me = await as(t.url, br).get('/api/v1/auth/me');
    expect(me.status).toBe(503);
    expect(me.body.error.code).toBe('session_store_unavailable');
    expect(me.body.error.message).toMatch(/session store is unavailable/);
    const product = await as(t.url, br).get('/api/v1/models').set('x-team-id', teamId);
    expect(product.status).toBe(503);
    expect(product.body.error.code).toBe('session_store_unavailable');
    const write = await as(t.url, br).post(`/api/v1/teams/${teamId}/api-keys`).send({ name: 'x' });
    expect(write.status).toBe(503);
    // API keys do not depend on the session store
    expect((await request(t.url).get('/v1/models').set('api-key', key)).status).toBe(200);
    // a request without a cookie is still "not signed in"
    expect((await request(t.url).get('/api/v1/auth/me')).status).toBe(401);

    await redis.up();
    // the session itself was lost with the private instance's data: the cookie is now simply unknown
    let after = 0;
    for (let i = 0; i < 50 && after !== 401; i++) {
      after = (await as(t.url, br).get('/api/v1/auth/me')).status;
      if (after !== 401) await new Promise((r) => setTimeout(r, 100));
    }
    expect(after).toBe(401);
  });
});
