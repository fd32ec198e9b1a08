/**
 * Redis stopped mid-test: a private redis-server (its own port, no persistence) backs the cache;
 * after it is killed, rerank still answers 200 — uncached, `cache_status: 'unavailable'`, billed in
 * full and exactly — quickly (each cache operation is bounded), and cache-stats / DELETE still
 * answer. Never a 500. Skipped only when the `redis-server` binary is not installed.
 */
import { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { SharedCache } from '@app/common';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { freePort, hasRedisServer, startRedis, stopRedis, waitForRedis } from '../support/private-redis';
import {
  cacheStats,
  clearCache,
  costRub,
  embeddingCalls,
  expectedRanking,
  FAKE_OPENAI_KEY,
  openAiEnv,
  rerank,
  toMicro,
} from './rerank-helpers';

if (!hasRedisServer) {
  console.warn(
    'rerank-redis-outage: SKIPPED — the `redis-server` binary is not installed (apt-get install redis-server).',
  );
}
const describeIfRedis = hasRedisServer ? describe : describe.skip;

const QUERY = 'database backup schedule';
const DOCS = [
  { id: 'b1', data: 'Nightly database backup runs at two am', metadata: {} },
  { id: 'b2', data: 'The cafeteria menu changes every week', metadata: {} },
  { id: 'b3', data: 'Backup retention schedule is thirty days', metadata: {} },
];
// fakeTokenCount: 3 (query), 7 + 6 + 6 (documents)
const Q = 3;
const D = 19;

describeIfRedis(`rerank with Redis stopped mid-test on ${backendKind()}`, () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let redis: ChildProcess;
  let port: number;
  let admin: AdminClient;
  let apiKey: string;

  beforeAll(async () => {
    port = await freePort();
    redis = startRedis(port);
    await waitForRedis(port);
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({
      env: { ...openAiEnv(fake), REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: `outage-${port}` },
    });
    admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(20, 'outage-team'));
    // the cache's first connection is made lazily (each operation is bounded by 500 ms): on a loaded
    // machine it may take longer, so the test starts once the app has reached Redis
    const cache = t.get(SharedCache);
    for (let i = 0; i < 50 && !(await cache.ping()); i++) await new Promise((r) => setTimeout(r, 200));
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    if (redis) await stopRedis(redis);
  });

  it('stores in Redis, then answers 200 uncached (cache_status unavailable) with exact billing once Redis is gone', async () => {
    const stored = await rerank(t.url, apiKey, { query: QUERY, content: DOCS });
    expect(stored.status).toBe(200);
    expect(stored.body.cache_info).toMatchObject({ cache_hit: false, cache_status: 'stored' });
    expect(stored.body.usage).toEqual({
      query_tokens: Q,
      document_tokens: D,
      total_tokens: Q + D,
      cost_rub: costRub(Q + D),
    });
    expect((await rerank(t.url, apiKey, { query: QUERY, content: DOCS })).body.cache_info.cache_hit).toBe(true);
    expect(await cacheStats(t.url, apiKey)).toMatchObject({
      entries: 1,
      total_bytes: 3 * 1536 * 4,
      backend: 'redis',
      hits: 1,
      misses: 1,
    });

    await stopRedis(redis);

    fake.reset();
    const before = await admin.balance(apiKey);
    const started = Date.now();
    const down = await rerank(t.url, apiKey, { query: QUERY, content: DOCS });
    const elapsed = Date.now() - started;
    expect(down.status).toBe(200);
    expect(down.body.cache_info).toEqual({
      from_cache: false,
      cache_hit: false,
      tokens_used: D,
      cached_tokens: 0,
      cache_enabled: true,
      cache_status: 'unavailable',
    });
    expect(down.body.usage).toEqual({
      query_tokens: Q,
      document_tokens: D,
      total_tokens: Q + D,
      cost_rub: costRub(Q + D),
    });
    expect(down.body.results).toEqual(expectedRanking(QUERY, DOCS).results);
    expect(embeddingCalls(fake).map((c) => c.input)).toEqual([[QUERY], DOCS.map((d) => d.data)]);
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe((Q + D) * 200);
    // each cache operation is bounded (500 ms): the request does not hang on the dead connection
    expect(elapsed).toBeLessThan(2000);

    // the next ones too (no 500, no hang), and the other cache endpoints still answer
    for (let i = 0; i < 2; i++) {
      const again = await rerank(t.url, apiKey, { query: QUERY, content: DOCS, top_k: 1 });
      expect(again.status).toBe(200);
      expect(again.body.cache_info.cache_status).toBe('unavailable');
      expect(again.body.returned_documents).toBe(1);
    }
    const stats = await request(t.url).get('/api/v1/rerank/cache-stats').set('api-key', apiKey);
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ entries: 0, total_bytes: 0, backend: 'redis' });
    const del = await clearCache(t.url, apiKey);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: 0 });
    // caching:false is unaffected by the outage
    const off = await rerank(t.url, apiKey, { query: QUERY, content: DOCS, caching: false });
    expect(off.status).toBe(200);
    expect(off.body.cache_info.cache_status).toBe('disabled');
    // the embeddings endpoint does not touch the cache
    const emb = await request(t.url)
      .post('/api/v1/embeddings')
      .set('api-key', apiKey)
      .send({ model: 'text-embedding-3-small', input: 'x' });
    expect(emb.status).toBe(200);
  });

  it('recovers when Redis comes back (empty, no persistence): miss stored, then hit', async () => {
    redis = startRedis(port);
    await waitForRedis(port);
    // the client reconnects on its own; allow it a few seconds
    const deadline = Date.now() + 10_000;
    let status = '';
    while (Date.now() < deadline) {
      const r = await rerank(t.url, apiKey, { query: QUERY, content: DOCS });
      expect(r.status).toBe(200);
      status = r.body.cache_info.cache_status;
      if (status === 'stored' || status === 'hit') break;
      await new Promise((res) => setTimeout(res, 250));
    }
    expect(['stored', 'hit']).toContain(status);
    const hit = await rerank(t.url, apiKey, { query: QUERY, content: DOCS });
    expect(hit.body.cache_info).toMatchObject({ cache_hit: true, cache_status: 'hit', tokens_used: 0 });
    expect(hit.body.usage).toEqual({ query_tokens: Q, document_tokens: 0, total_tokens: Q, cost_rub: costRub(Q) });
  });
});
