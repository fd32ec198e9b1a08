/**
 * Where sessions live: in Redis when REDIS_URL is configured (the Postgres + Redis tier), in the
 * database otherwise. Either way two instances share them, the idle timeout and the absolute
 * lifetime end them, and their user lists and revokes them.
 */
import request from 'supertest';
import { createClient } from '@redis/client';
import { DataSource } from 'typeorm';
import { RawSql } from '@app/database';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { as, Browser, createUser, signIn } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';
const MIN = 60_000;

describe(`accounts: the session store on ${backendKind()}`, () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 26, 9, 0, 0));
  const env = { SESSION_IDLE_TIMEOUT_MINUTES: '30', SESSION_MAX_AGE_HOURS: '2' };
  let a: TestApp;
  let b: TestApp;
  let redis: ReturnType<typeof createClient> | null = null;

  beforeAll(async () => {
    a = await createTestApp({ clock, env });
    b = await createTestApp({ clock, env, shareBackendWith: a });
    if (a.config.redisUrl) {
      redis = createClient({ url: a.config.redisUrl });
      await redis.connect();
    }
    await createUser(a.url, 'ada@acme.test', PASSWORD);
  }, 60_000);
  afterAll(async () => {
    await redis?.quit();
    await b?.close();
    await a?.close();
  });

  const me = (t: TestApp, s: Browser) => as(t.url, s).get('/api/v1/auth/me');
  const dbRows = async (): Promise<number> => {
    const ds = a.get(DataSource);
    const rows = await ds.query(`SELECT COUNT(*) AS n FROM ${new RawSql(ds).table('sessions')}`);
    return Number(rows[0].n);
  };
  const redisKey = (s: { id: string }) => `${a.config.redisKeyPrefix}:session-id:${s.id}`;

  it('lives in Redis with REDIS_URL (none in the database), else in the database; both instances see it; list and revoke by its user', async () => {
    const first = await signIn(a.url, 'ada@acme.test', PASSWORD);
    const second = await signIn(b.url, 'ada@acme.test', PASSWORD);
    expect((await me(b, first)).status).toBe(200);
    expect((await me(a, second)).status).toBe(200);

    const listed = await as(b.url, first).get('/api/v1/auth/sessions');
    expect(listed.status).toBe(200);
    const sessions = listed.body.data as { id: string; current: boolean }[];
    expect(sessions).toHaveLength(2);
    const other = sessions.find((s) => !s.current)!;
    if (redis) {
      expect(backendKind()).toBe('postgres');
      expect(await dbRows()).toBe(0);
      for (const s of sessions) expect(await redis.exists(redisKey(s))).toBe(1);
      const ttl = await redis.pTTL(redisKey(other));
      expect(ttl).toBeGreaterThan(29 * MIN);
      expect(ttl).toBeLessThanOrEqual(30 * MIN); // the idle timeout comes before the 2-hour lifetime
    } else {
      expect(await dbRows()).toBe(2);
    }

    // revoked on one instance: refused on the other at once
    expect((await as(a.url, first).delete(`/api/v1/auth/sessions/${other.id}`)).status).toBe(204);
    expect((await me(b, second)).status).toBe(401);
    expect((await as(a.url, first).delete(`/api/v1/auth/sessions/${other.id}`)).status).toBe(404);
    if (redis) expect(await redis.exists(redisKey(other))).toBe(0);
    // signed out on one instance: refused on the other
    expect((await as(b.url, first).post('/api/v1/auth/logout')).status).toBeLessThan(300);
    expect((await me(a, first)).status).toBe(401);
    const actions = (
      await request(a.url)
        .get('/api/v1/audit-log?limit=20')
        .set('authorization', `Bearer ${a.config.adminToken ?? ''}`)
    ).body.data.map((e: { action: string }) => e.action);
    expect(actions.slice(0, 4)).toEqual(['auth.logout', 'auth.session_revoke', 'auth.login', 'auth.login']);
  });

  it('ends after the idle timeout, and at the absolute lifetime however active', async () => {
    const idle = await signIn(a.url, 'ada@acme.test', PASSWORD);
    clock.advance(20 * MIN);
    expect((await me(b, idle)).status).toBe(200); // activity moves the idle deadline
    clock.advance(20 * MIN);
    expect((await me(a, idle)).status).toBe(200);
    clock.advance(31 * MIN);
    expect((await me(b, idle)).status).toBe(401);

    const busy = await signIn(b.url, 'ada@acme.test', PASSWORD);
    for (let i = 0; i < 4; i++) {
      clock.advance(25 * MIN);
      expect((await me(i % 2 ? a : b, busy)).status).toBe(200);
    }
    clock.advance(21 * MIN); // 121 minutes after sign-in
    expect((await me(a, busy)).status).toBe(401);
    const left = await as(a.url, busy).get('/api/v1/auth/sessions');
    expect(left.status).toBe(401);
    if (redis) expect(await redis.keys(`${a.config.redisKeyPrefix}:session:*`)).toEqual([]);
  });
});
