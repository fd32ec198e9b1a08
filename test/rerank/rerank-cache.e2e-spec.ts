/**
 * The rerank embedding cache over HTTP (spec section 3), with an injected clock:
 * miss (stored, billed in full) → hit (only the query embedded and billed) → changed content (a
 * middle document) miss → TTL expiry at 12 h → miss → DELETE (count) → miss; caching:false
 * neither reads nor writes; the exact cache-stats body; isolation between API keys of different
 * teams and of the same team (read, count, clear).
 */
import { fakeTokenCount, FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import {
  cacheStats,
  clearCache,
  costRub,
  embeddingCalls,
  expectedRanking,
  FAKE_OPENAI_KEY,
  lastLedgerEntry,
  openAiEnv,
  rerank,
  tokens,
  toMicro,
} from './rerank-helpers';

const TTL_MS = 12 * 3600 * 1000;
const QUERY = 'quarterly revenue growth report';
const DOCS = [
  { id: 'r1', data: 'Revenue grew eight percent in the third quarter', metadata: { year: 2025 } },
  { id: 'r2', data: 'The office moved to a new building downtown', metadata: {} },
  { id: 'r3', data: 'Quarterly report on revenue and profit growth', metadata: { year: 2025 } },
  { id: 'r4', data: 'Employee onboarding checklist for new hires', metadata: {} },
  { id: 'r5', data: 'Growth of subscription revenue by region', metadata: {} },
];
const Q_TOKENS = fakeTokenCount(QUERY);
const D_TOKENS = tokens(DOCS.map((d) => d.data));
const BYTES_PER_DOC = 1536 * 4;

describe(`rerank cache over HTTP on ${backendKind()}`, () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let admin: AdminClient;
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 8, 0, 0));

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({ env: openAiEnv(fake), clock });
    admin = new AdminClient(t.url);
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('miss → hit → changed content miss → TTL expiry miss → DELETE → miss, with exact billing and stats', async () => {
    const { apiKey } = await admin.teamWithKey(50, 'cache-team');
    expect([Q_TOKENS, D_TOKENS]).toEqual([4, 35]);
    const backend = t.config.redisUrl ? 'redis' : 'memory';
    expect(await cacheStats(t.url, apiKey)).toEqual({
      entries: 0,
      total_bytes: 0,
      hits: 0,
      misses: 0,
      hit_rate: 0,
      tokens_saved: 0,
      rub_saved: 0,
      oldest_expiry: null,
      newest_expiry: null,
      ttl_seconds: 43_200,
      backend,
    });

    // 1. miss: embeddings computed and stored; query + document tokens billed
    const t0 = clock.now();
    let before = await admin.balance(apiKey);
    const miss = await rerank(t.url, apiKey, { query: QUERY, content: DOCS });
    expect(miss.status).toBe(200);
    const expected = expectedRanking(QUERY, DOCS);
    expect(miss.body.results).toEqual(expected.results);
    expect(miss.body.cache_info).toEqual({
      from_cache: false,
      cache_hit: false,
      tokens_used: 35,
      cached_tokens: 35,
      cache_enabled: true,
      cache_status: 'stored',
    });
    expect(miss.body.usage).toEqual({ query_tokens: 4, document_tokens: 35, total_tokens: 39, cost_rub: costRub(39) });
    expect(embeddingCalls(fake).map((c) => c.input)).toEqual([[QUERY], DOCS.map((d) => d.data)]);
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(39 * 200);
    expect(await cacheStats(t.url, apiKey)).toMatchObject({
      entries: 1,
      total_bytes: 5 * BYTES_PER_DOC,
      hits: 0,
      misses: 1,
      hit_rate: 0,
      oldest_expiry: new Date(t0 + TTL_MS).toISOString(),
      newest_expiry: new Date(t0 + TTL_MS).toISOString(),
    });

    // 2. hit: only the query is embedded and billed; same results
    fake.reset();
    before = await admin.balance(apiKey);
    const hit = await rerank(t.url, apiKey, { query: QUERY, content: DOCS });
    expect(hit.status).toBe(200);
    expect(hit.body.results).toEqual(miss.body.results);
    expect(hit.body.cache_info).toEqual({
      from_cache: true,
      cache_hit: true,
      tokens_used: 0,
      cached_tokens: 35,
      cache_enabled: true,
      cache_status: 'hit',
    });
    expect(hit.body.usage).toEqual({ query_tokens: 4, document_tokens: 0, total_tokens: 4, cost_rub: costRub(4) });
    expect(costRub(4)).toBe(0.0008);
    expect(embeddingCalls(fake).map((c) => c.input)).toEqual([[QUERY]]);
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(800);
    expect(await lastLedgerEntry(t.url, apiKey)).toMatchObject({
      kind: 'charge',
      endpoint: '/api/v1/rerank',
      model: 'rerank-small',
      prompt_tokens: 4,
      amount_rub: -0.0008,
    });
    expect(await cacheStats(t.url, apiKey)).toMatchObject({
      entries: 1,
      hits: 1,
      misses: 1,
      hit_rate: 0.5,
      tokens_saved: 35,
      rub_saved: costRub(35),
    });

    // a different query over the same documents is also a hit (the key is the content, not the query)
    fake.reset();
    const otherQuery = await rerank(t.url, apiKey, { query: 'new building', content: DOCS, top_k: 1 });
    expect(otherQuery.body.cache_info.cache_hit).toBe(true);
    expect(otherQuery.body.results).toEqual(expectedRanking('new building', DOCS, { topK: 1 }).results);
    expect(otherQuery.body.results[0].id).toBe('r2');
    expect(embeddingCalls(fake).map((c) => c.input)).toEqual([['new building']]);

    // 3. one middle document changed → fingerprint differs → miss, billed in full, second entry
    clock.advance(3600_000);
    const t1 = clock.now();
    fake.reset();
    const changed = DOCS.map((d) =>
      d.id === 'r3' ? { ...d, data: 'Quarterly report on revenue and margin growth' } : d,
    );
    const changedMiss = await rerank(t.url, apiKey, { query: QUERY, content: changed });
    expect(changedMiss.body.cache_info).toMatchObject({
      from_cache: false,
      cache_hit: false,
      tokens_used: 35,
      cache_status: 'stored',
    });
    expect(changedMiss.body.usage.cost_rub).toBe(costRub(39));
    expect(changedMiss.body.results).toEqual(expectedRanking(QUERY, changed).results);
    expect(embeddingCalls(fake).map((c) => c.input)).toEqual([[QUERY], changed.map((d) => d.data)]);
    for (const variant of [
      [...DOCS].reverse(), // order
      DOCS.map((d, i) => (i === 2 ? { ...d, id: 'r3b' } : d)), // id
      DOCS.map((d, i) => (i === 2 ? { ...d, metadata: { year: 2024 } } : d)), // metadata
      DOCS.slice(0, 4), // structure
    ]) {
      const r = await rerank(t.url, apiKey, { query: QUERY, content: variant, caching: false });
      expect(r.body.cache_info.cache_hit).toBe(false);
    }
    expect(await cacheStats(t.url, apiKey)).toMatchObject({
      entries: 2,
      total_bytes: 10 * BYTES_PER_DOC,
      hits: 2,
      misses: 2,
      oldest_expiry: new Date(t0 + TTL_MS).toISOString(),
      newest_expiry: new Date(t1 + TTL_MS).toISOString(),
    });

    // 4. TTL: still a hit 1 ms before 12 h, a miss 1 s after; the entry is recreated
    clock.advance(TTL_MS - 3600_000 - 1); // t0 + 12 h − 1 ms
    fake.reset();
    expect((await rerank(t.url, apiKey, { query: QUERY, content: DOCS })).body.cache_info.cache_hit).toBe(true);
    clock.advance(1_001); // t0 + 12 h + 1 s
    expect(await cacheStats(t.url, apiKey)).toMatchObject({
      entries: 1,
      total_bytes: 5 * BYTES_PER_DOC,
      oldest_expiry: new Date(t1 + TTL_MS).toISOString(),
    });
    fake.reset();
    before = await admin.balance(apiKey);
    const expired = await rerank(t.url, apiKey, { query: QUERY, content: DOCS });
    expect(expired.body.cache_info).toEqual({
      from_cache: false,
      cache_hit: false,
      tokens_used: 35,
      cached_tokens: 35,
      cache_enabled: true,
      cache_status: 'stored',
    });
    expect(embeddingCalls(fake)).toHaveLength(2);
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(39 * 200);
    const t2 = clock.now();
    const stats = await cacheStats(t.url, apiKey);
    expect(stats).toEqual({
      entries: 2,
      total_bytes: 10 * BYTES_PER_DOC,
      hits: 3,
      misses: 3,
      hit_rate: 0.5,
      tokens_saved: 3 * 35,
      rub_saved: costRub(3 * 35),
      oldest_expiry: new Date(t1 + TTL_MS).toISOString(),
      newest_expiry: new Date(t2 + TTL_MS).toISOString(),
      ttl_seconds: 43_200,
      backend,
    });
    fake.reset();
    expect((await rerank(t.url, apiKey, { query: QUERY, content: DOCS })).body.cache_info.cache_hit).toBe(true);

    // 5. DELETE returns how many entries it removed; the next request is a miss
    const del = await clearCache(t.url, apiKey);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: 2 });
    expect(await cacheStats(t.url, apiKey)).toMatchObject({
      entries: 0,
      total_bytes: 0,
      oldest_expiry: null,
      newest_expiry: null,
    });
    fake.reset();
    const afterDelete = await rerank(t.url, apiKey, { query: QUERY, content: DOCS });
    expect(afterDelete.body.cache_info).toMatchObject({ cache_hit: false, cache_status: 'stored' });
    expect(afterDelete.body.usage.document_tokens).toBe(35);
    expect(embeddingCalls(fake)).toHaveLength(2);
    expect((await clearCache(t.url, apiKey)).body).toEqual({ deleted: 1 });
    expect((await clearCache(t.url, apiKey)).body).toEqual({ deleted: 0 });
  });

  it('caching:false neither reads nor writes; billed in full; stats unchanged', async () => {
    const { apiKey } = await admin.teamWithKey(50, 'no-cache-team');
    await rerank(t.url, apiKey, { query: QUERY, content: DOCS }); // fills the cache
    const statsBefore = await cacheStats(t.url, apiKey);
    expect(statsBefore).toMatchObject({ entries: 1, misses: 1, hits: 0 });

    // does not read: the stored entry is ignored, documents are embedded and billed again
    fake.reset();
    const off = await rerank(t.url, apiKey, { query: QUERY, content: DOCS, caching: false });
    expect(off.body.cache_info).toEqual({
      from_cache: false,
      cache_hit: false,
      tokens_used: 35,
      cached_tokens: 0,
      cache_enabled: false,
      cache_status: 'disabled',
    });
    expect(off.body.usage).toEqual({ query_tokens: 4, document_tokens: 35, total_tokens: 39, cost_rub: costRub(39) });
    expect(embeddingCalls(fake)).toHaveLength(2);

    // does not write: new content with caching off, then with caching on → still a miss
    const fresh = DOCS.slice(1);
    await rerank(t.url, apiKey, { query: QUERY, content: fresh, caching: false });
    expect(await cacheStats(t.url, apiKey)).toEqual(statsBefore);
    const on = await rerank(t.url, apiKey, { query: QUERY, content: fresh });
    expect(on.body.cache_info).toMatchObject({ cache_hit: false, cache_status: 'stored' });
  });

  it('the large model has its own entries (3072 × 4 bytes per document)', async () => {
    const { apiKey } = await admin.teamWithKey(50, 'large-team');
    await rerank(t.url, apiKey, { query: QUERY, content: DOCS });
    const large = await rerank(t.url, apiKey, { query: QUERY, content: DOCS, model: 'large' });
    expect(large.body.cache_info.cache_hit).toBe(false);
    expect(large.body.results).toEqual(expectedRanking(QUERY, DOCS, { dims: 3072 }).results);
    const largeHit = await rerank(t.url, apiKey, { query: QUERY, content: DOCS, model: 'large' });
    expect(largeHit.body.cache_info.cache_hit).toBe(true);
    expect(largeHit.body.usage.cost_rub).toBe(costRub(4, 'large'));
    expect(largeHit.body.results).toEqual(large.body.results);
    expect(await cacheStats(t.url, apiKey)).toMatchObject({ entries: 2, total_bytes: 5 * 1536 * 4 + 5 * 3072 * 4 });
  });

  describe('isolation between API keys', () => {
    it.each([
      ['of different teams', false],
      ['of the same team', true],
    ])('keys %s never read, count or clear each other’s entries', async (_what, sameTeam) => {
      const a = await admin.teamWithKey(50, 'iso-a');
      const b = sameTeam
        ? { apiKey: (await admin.createKey(a.teamId, 'second')).api_key }
        : await admin.teamWithKey(50, 'iso-b');
      const content = DOCS.map((d) => ({ ...d, metadata: { ...d.metadata, sameTeam } }));

      expect((await rerank(t.url, a.apiKey, { query: QUERY, content })).body.cache_info.cache_status).toBe('stored');
      expect((await rerank(t.url, a.apiKey, { query: QUERY, content })).body.cache_info.cache_hit).toBe(true);

      // B sees none of A's entries, and the identical request is a miss for B (billed in full)
      expect(await cacheStats(t.url, b.apiKey)).toMatchObject({ entries: 0, total_bytes: 0, hits: 0, misses: 0 });
      fake.reset();
      const bMiss = await rerank(t.url, b.apiKey, { query: QUERY, content });
      expect(bMiss.body.cache_info).toMatchObject({ cache_hit: false, cache_status: 'stored' });
      expect(bMiss.body.usage).toMatchObject({ document_tokens: 35, cost_rub: costRub(39) });
      expect(embeddingCalls(fake)).toHaveLength(2);
      expect(await cacheStats(t.url, b.apiKey)).toMatchObject({ entries: 1, hits: 0, misses: 1 });
      expect(await cacheStats(t.url, a.apiKey)).toMatchObject({ entries: 1, hits: 1, misses: 1 });

      // B's DELETE removes B's entry only; A still hits
      expect((await clearCache(t.url, b.apiKey)).body).toEqual({ deleted: 1 });
      expect((await rerank(t.url, b.apiKey, { query: QUERY, content })).body.cache_info.cache_hit).toBe(false);
      expect((await rerank(t.url, a.apiKey, { query: QUERY, content })).body.cache_info.cache_hit).toBe(true);
      expect(await cacheStats(t.url, a.apiKey)).toMatchObject({ entries: 1, hits: 2, misses: 1 });
      // and A's DELETE leaves B's new entry alone
      expect((await clearCache(t.url, a.apiKey)).body).toEqual({ deleted: 1 });
      expect((await rerank(t.url, b.apiKey, { query: QUERY, content })).body.cache_info.cache_hit).toBe(true);
    });

    it('a second replica on the same backend sees the same per-key cache (Redis) or its own (in-process)', async () => {
      const { apiKey } = await admin.teamWithKey(50, 'replica-team');
      const content = DOCS.slice(0, 3);
      await rerank(t.url, apiKey, { query: QUERY, content });
      const b = await createTestApp({ env: openAiEnv(fake), clock, shareBackendWith: t });
      try {
        const onB = await rerank(b.url, apiKey, { query: QUERY, content });
        expect(onB.status).toBe(200);
        expect(onB.body.cache_info.cache_hit).toBe(Boolean(t.config.redisUrl));
        if (t.config.redisUrl) {
          expect(onB.body.results).toEqual(expectedRanking(QUERY, content).results);
          // DELETE on one replica empties the key's cache on both
          expect((await clearCache(b.url, apiKey)).body).toEqual({ deleted: 1 });
          expect((await rerank(t.url, apiKey, { query: QUERY, content })).body.cache_info.cache_hit).toBe(false);
        }
      } finally {
        await b.close();
      }
    });
  });
});
