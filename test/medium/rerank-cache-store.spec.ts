import { createClient } from '@redis/client';
import { SharedCache } from '@app/common';
import { RerankCacheStore } from '@app/rerank/rerank-cache.store';
import { PrivateRedis, hasRedisServer } from '../support/private-redis';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

const DIMS = 256;
const vectors = (count: number, seed: number) =>
  Array.from({ length: count }, (_, i) =>
    Float32Array.from({ length: DIMS }, (_, j) => Math.sin(seed * 31 + i * 7 + j)),
  );
const entry = (count: number, seed: number) => ({
  dimensions: DIMS,
  count,
  documentTokens: count * 10,
  embeddingModel: 'text-embedding-3-small',
  vectors: vectors(count, seed),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The rerank cache store against the real shared cache: in-process (bounded in bytes, entries gone
 * after their TTL) and, when TEST_REDIS_URL is set, Redis (an exact index under concurrency from two
 * replicas; DELETE removes every entry) — plus a private redis-server that loses its data.
 */
describe(`rerank cache store (${backendKind()})`, () => {
  describe('in-process cache (no Redis)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { REDIS_URL: '', MEMORY_CACHE_MB: '2', RERANK_CACHE_TTL_SECONDS: '1' } });
    });
    afterAll(() => t?.close());

    it('holds at most MEMORY_CACHE_MB however many entries are stored, and nothing after the TTL', async () => {
      const store = t.get(RerankCacheStore);
      const cache = t.get(SharedCache);
      expect(cache.backend).toBe('memory');
      // 20 entries of 200 × 256 × 4 = 200 KiB each: 4 MiB offered to a 2 MiB cache
      for (let i = 0; i < 20; i++) expect(await store.put('key-mem', 'm', `fp${i}`, entry(200, i))).toBe(true);
      const held = cache.memoryBytes()!;
      expect(held).toBeGreaterThan(1024 * 1024);
      expect(held).toBeLessThanOrEqual(2 * 1024 * 1024);
      // least recently used went first: the newest entry is there, the oldest is not
      expect((await store.get('key-mem', 'm', 'fp19')).status).toBe('hit');
      expect((await store.get('key-mem', 'm', 'fp0')).status).toBe('miss');
      await sleep(1_100);
      expect(cache.memoryBytes(true)).toBe(0);
      expect((await store.stats('key-mem')).entries).toBe(0);
    });
  });

  const redisUrl = process.env.TEST_REDIS_URL;
  (backendKind() === 'postgres' && redisUrl ? describe : describe.skip)(
    'Redis index under concurrency (two replicas)',
    () => {
      let a: TestApp;
      let b: TestApp;
      beforeAll(async () => {
        a = await createTestApp();
        b = await createTestApp({ shareBackendWith: a });
      });
      afterAll(async () => {
        await b?.close();
        await a?.close();
      });

      it('300 concurrent stores from two replicas: stats count exactly 300, DELETE removes all 300 from Redis', async () => {
        const sa = a.get(RerankCacheStore);
        const sb = b.get(RerankCacheStore);
        // connections up first (a cold client may exceed the 500 ms per-operation bound)
        expect(await sa.stats('warm-a')).toMatchObject({ entries: 0 });
        expect(await sb.stats('warm-b')).toMatchObject({ entries: 0 });
        await sa.put('warm-a', 'm', 'fp', entry(1, 0));
        await sb.put('warm-b', 'm', 'fp', entry(1, 0));
        const stored = await Promise.all(
          Array.from({ length: 300 }, (_, i) => (i % 2 ? sa : sb).put('key-race', 'm', `fp${i}`, entry(2, i))),
        );
        expect(stored.every(Boolean)).toBe(true);
        await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? sa : sb).recordHit('key-race', 3, 7)));
        const stats = await sb.stats('key-race');
        expect(stats).toMatchObject({
          entries: 300,
          totalBytes: 300 * 2 * DIMS * 4,
          hits: 50,
          tokensSaved: 150,
          rubSavedMicro: 350,
        });
        const prefix = a.config.redisKeyPrefix;
        const redis = createClient({ url: redisUrl });
        await redis.connect();
        const entryKeys = async () => {
          const out: string[] = [];
          for await (const keys of redis.scanIterator({ MATCH: `${prefix}*rerank:e:key-race:*`, COUNT: 1000 }))
            out.push(...keys);
          return out;
        };
        try {
          expect(await entryKeys()).toHaveLength(300);
          expect(await sa.clear('key-race')).toBe(300);
          expect(await entryKeys()).toHaveLength(0);
          expect((await sb.stats('key-race')).entries).toBe(0);
        } finally {
          redis.destroy();
        }
      });
    },
  );

  (hasRedisServer ? describe : describe.skip)('Redis that loses its data (private redis-server)', () => {
    let redis: PrivateRedis;
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      redis = await PrivateRedis.start();
      a = await createTestApp({ env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'loss' } });
      b = await createTestApp({ env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'loss' }, shareBackendWith: a });
    }, 30_000);
    afterAll(async () => {
      await b?.close();
      await a?.close();
      await redis?.down();
    });

    it('entries cleared on one replica never come back from another replica’s near cache after Redis restarts empty', async () => {
      const sa = a.get(RerankCacheStore);
      const sb = b.get(RerankCacheStore);
      await sa.put('key-loss', 'm', 'fp', entry(4, 1));
      expect((await sb.get('key-loss', 'm', 'fp')).status).toBe('hit'); // now also in b's near cache
      expect(await sa.clear('key-loss')).toBe(1);
      await redis.restart(); // no persistence: every key, the generation included, is gone
      let read = await sb.get('key-loss', 'm', 'fp');
      for (let i = 0; i < 40 && read.status === 'unavailable'; i++) {
        await sleep(100); // the clients reconnect
        read = await sb.get('key-loss', 'm', 'fp');
      }
      expect(read.status).toBe('miss');
    }, 30_000);
  });
});
