import { Clock, SharedCache } from '@app/common';
import { AppConfig } from '@app/config';
import { CacheScope, Counter, IndexStats, MemoryRerankCacheIndex } from './rerank-cache.index';
import { RerankCacheStore } from './rerank-cache.store';

class TestClock extends Clock {
  constructor(public t = Date.UTC(2026, 0, 1)) {
    super();
  }
  override now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** In-memory stand-in for SharedCache: stores by reference (like the in-process store), can be "down". */
class FakeSharedCache {
  readonly map = new Map<string, unknown>();
  readonly ttls = new Map<string, number>();
  down = false;
  backend: 'redis' | 'memory' = 'memory';
  get available(): boolean {
    return !this.down;
  }
  async get<T>(key: string): Promise<T | undefined> {
    return this.down ? undefined : (this.map.get(key) as T | undefined);
  }
  async set<T>(key: string, value: T, ttlMs: number): Promise<boolean> {
    if (this.down) return false;
    this.map.set(key, value);
    this.ttls.set(key, ttlMs);
    return true;
  }
  async del(key: string): Promise<boolean> {
    if (this.down) return false;
    this.map.delete(key);
    return true;
  }
  entryKeys(): string[] {
    return [...this.map.keys()].filter((k) => k.startsWith('rerank:e:'));
  }
}

const TTL_S = 43_200;
const TTL_MS = TTL_S * 1000;
const DIMS = 4;

function vectors(count: number, seed: number): Float32Array[] {
  return Array.from({ length: count }, (_, i) =>
    Float32Array.from({ length: DIMS }, (_, d) => seed + i * 0.5 + d * 0.125),
  );
}

function entry(count: number, seed: number, documentTokens: number) {
  return {
    dimensions: DIMS,
    count,
    documentTokens,
    embeddingModel: 'text-embedding-3-small',
    vectors: vectors(count, seed),
  };
}

/** The in-process index, unreachable whenever the fake cache is "down" (one Redis in production). */
class DownableIndex extends MemoryRerankCacheIndex {
  constructor(private readonly cache: { down: boolean }) {
    super();
  }
  override async scope(apiKeyId: string): Promise<CacheScope | null> {
    return this.cache.down ? null : super.scope(apiKeyId);
  }
  override async add(apiKeyId: string, key: string, bytes: number, expiresAt: number, now: number): Promise<boolean> {
    return this.cache.down ? false : super.add(apiKeyId, key, bytes, expiresAt, now);
  }
  override async count(apiKeyId: string, by: Partial<Record<Counter, number>>): Promise<void> {
    if (!this.cache.down) await super.count(apiKeyId, by);
  }
  override async stats(apiKeyId: string, now: number): Promise<IndexStats | null> {
    return this.cache.down ? null : super.stats(apiKeyId, now);
  }
  override async takeAll(apiKeyId: string, now: number): Promise<{ keys: string[]; live: number } | null> {
    return this.cache.down ? null : super.takeAll(apiKeyId, now);
  }
}

describe('RerankCacheStore', () => {
  let cache: FakeSharedCache;
  let clock: TestClock;
  let store: RerankCacheStore;

  beforeEach(() => {
    cache = new FakeSharedCache();
    clock = new TestClock();
    store = new RerankCacheStore(
      cache as unknown as SharedCache,
      new DownableIndex(cache),
      clock,
      AppConfig.fromEnv({ RERANK_CACHE_TTL_SECONDS: String(TTL_S) }),
    );
  });

  it('miss, then put, then hit with the same float32 vectors and metadata', async () => {
    expect(await store.get('key-a', 'm', 'fp1')).toEqual({ status: 'miss' });
    const e = entry(3, 1, 42);
    expect(await store.put('key-a', 'm', 'fp1', e)).toBe(true);
    const read = await store.get('key-a', 'm', 'fp1');
    expect(read.status).toBe('hit');
    if (read.status !== 'hit') return;
    expect(read.entry).toMatchObject({
      dimensions: DIMS,
      count: 3,
      documentTokens: 42,
      embeddingModel: 'text-embedding-3-small',
      createdAt: clock.t,
      expiresAt: clock.t + TTL_MS,
    });
    expect(read.entry.vectors.map((v) => Array.from(v))).toEqual(e.vectors.map((v) => Array.from(v)));
    expect(read.entry.vectors.every((v) => v instanceof Float32Array && v.length === DIMS)).toBe(true);
  });

  it('stores the vectors as one float32 Buffer (count × dims × 4 bytes) with the TTL', async () => {
    await store.put('key-a', 'm', 'fp1', entry(5, 2, 10));
    const [key] = cache.entryKeys();
    // <api key>:<epoch (random per scope record)>:<generation>:<model>:<fingerprint>
    expect(key).toMatch(/^rerank:e:key-a:[0-9a-f]{12}:0:m:fp1$/);
    const stored = cache.map.get(key) as { vectors: Buffer };
    expect(Buffer.isBuffer(stored.vectors)).toBe(true);
    expect(stored.vectors.byteLength).toBe(5 * DIMS * 4);
    expect(stored.vectors.readFloatLE(4)).toBe(2.125);
    expect(cache.ttls.get(key)).toBe(TTL_MS);
  });

  it('decodes an unaligned or non-Buffer copy of the bytes (as a JSON store would return)', async () => {
    await store.put('key-a', 'm', 'fp1', entry(2, 3, 1));
    const [key] = cache.entryKeys();
    const stored = cache.map.get(key) as { vectors: Buffer };
    const unaligned = Buffer.alloc(stored.vectors.length + 1).subarray(1);
    stored.vectors.copy(unaligned);
    cache.map.set(key, { ...stored, vectors: unaligned });
    const read = await store.get('key-a', 'm', 'fp1');
    expect(read.status === 'hit' && read.entry.vectors.map((v) => Array.from(v))).toEqual(
      vectors(2, 3).map((v) => Array.from(v)),
    );
    cache.map.set(key, { ...stored, vectors: new Uint8Array(stored.vectors) });
    const read2 = await store.get('key-a', 'm', 'fp1');
    expect(read2.status === 'hit' && read2.entry.vectors.map((v) => Array.from(v))).toEqual(
      vectors(2, 3).map((v) => Array.from(v)),
    );
  });

  it('expires by the injected clock: hit 1 ms before the TTL, miss at the TTL (entry deleted)', async () => {
    await store.put('key-a', 'm', 'fp1', entry(1, 1, 1));
    clock.advance(TTL_MS - 1);
    expect((await store.get('key-a', 'm', 'fp1')).status).toBe('hit');
    clock.advance(1);
    expect(await store.get('key-a', 'm', 'fp1')).toEqual({ status: 'miss' });
    expect(cache.entryKeys()).toEqual([]);
    expect((await store.stats('key-a')).entries).toBe(0);
  });

  it('isolates API keys: another key can neither read, count nor clear an entry', async () => {
    await store.put('key-a', 'm', 'fp1', entry(2, 1, 7));
    expect(await store.get('key-b', 'm', 'fp1')).toEqual({ status: 'miss' });
    expect(await store.stats('key-b')).toEqual({
      entries: 0,
      totalBytes: 0,
      hits: 0,
      misses: 0,
      tokensSaved: 0,
      rubSavedMicro: 0,
      oldestExpiry: null,
      newestExpiry: null,
    });
    expect(await store.clear('key-b')).toBe(0);
    expect((await store.get('key-a', 'm', 'fp1')).status).toBe('hit');
    expect((await store.stats('key-a')).entries).toBe(1);
  });

  it('separates models and fingerprints of the same key', async () => {
    await store.put('key-a', 'm1', 'fp1', entry(1, 1, 1));
    expect((await store.get('key-a', 'm2', 'fp1')).status).toBe('miss');
    expect((await store.get('key-a', 'm1', 'fp2')).status).toBe('miss');
  });

  it('clear returns the number of live entries, removes them all, and other keys keep theirs', async () => {
    await store.put('key-a', 'm', 'fp1', entry(1, 1, 1));
    clock.advance(1000);
    await store.put('key-a', 'm', 'fp2', entry(1, 2, 1));
    await store.put('key-a', 'm2', 'fp3', entry(1, 3, 1));
    await store.put('key-b', 'm', 'fp1', entry(1, 4, 1));
    expect(await store.clear('key-a')).toBe(3);
    for (const [m, fp] of [
      ['m', 'fp1'],
      ['m', 'fp2'],
      ['m2', 'fp3'],
    ]) {
      expect((await store.get('key-a', m, fp)).status).toBe('miss');
    }
    expect(cache.entryKeys()).toEqual([expect.stringMatching(/^rerank:e:key-b:[0-9a-f]{12}:0:m:fp1$/)]);
    expect((await store.stats('key-a')).entries).toBe(0);
    expect((await store.get('key-b', 'm', 'fp1')).status).toBe('hit');
    // a new entry after DELETE lives in the next generation and is a normal entry
    await store.put('key-a', 'm', 'fp1', entry(1, 5, 1));
    expect(cache.entryKeys()).toContainEqual(expect.stringMatching(/^rerank:e:key-a:[0-9a-f]{12}:1:m:fp1$/));
    expect((await store.get('key-a', 'm', 'fp1')).status).toBe('hit');
    expect(await store.clear('key-a')).toBe(1);
    expect(await store.clear('key-a')).toBe(0);
  });

  it('clear does not count entries that already expired', async () => {
    await store.put('key-a', 'm', 'fp1', entry(1, 1, 1));
    clock.advance(TTL_MS / 2);
    await store.put('key-a', 'm', 'fp2', entry(1, 2, 1));
    clock.advance(TTL_MS / 2);
    expect(await store.clear('key-a')).toBe(1);
  });

  it('stats: entries, bytes, hits, misses, savings and expiries of live entries only', async () => {
    const t0 = clock.t;
    await store.put('key-a', 'm', 'fp1', entry(3, 1, 30));
    await store.recordMiss('key-a');
    clock.advance(60_000);
    await store.put('key-a', 'm', 'fp2', entry(2, 1, 20));
    await store.recordMiss('key-a');
    await store.recordHit('key-a', 30, 6000);
    await store.recordHit('key-a', 20, 4000);
    expect(await store.stats('key-a')).toEqual({
      entries: 2,
      totalBytes: (3 + 2) * DIMS * 4,
      hits: 2,
      misses: 2,
      tokensSaved: 50,
      rubSavedMicro: 10_000,
      oldestExpiry: t0 + TTL_MS,
      newestExpiry: t0 + 60_000 + TTL_MS,
    });
    clock.advance(TTL_MS - 60_000); // the first entry reaches its expiry
    expect(await store.stats('key-a')).toMatchObject({
      entries: 1,
      totalBytes: 2 * DIMS * 4,
      oldestExpiry: t0 + 60_000 + TTL_MS,
      newestExpiry: t0 + 60_000 + TTL_MS,
      hits: 2,
      misses: 2,
    });
  });

  it('re-storing the same fingerprint replaces the entry (counted once) with a fresh expiry', async () => {
    await store.put('key-a', 'm', 'fp1', entry(2, 1, 5));
    clock.advance(1000);
    await store.put('key-a', 'm', 'fp1', entry(2, 1, 5));
    expect(await store.stats('key-a')).toMatchObject({
      entries: 1,
      totalBytes: 2 * DIMS * 4,
      oldestExpiry: clock.t + TTL_MS,
    });
  });

  it('unavailable store: get → unavailable, put → false, clear → 0, stats empty', async () => {
    await store.put('key-a', 'm', 'fp1', entry(1, 1, 1));
    cache.down = true;
    expect(await store.get('key-a', 'm', 'fp1')).toEqual({ status: 'unavailable' });
    expect(await store.put('key-a', 'm', 'fp2', entry(1, 1, 1))).toBe(false);
    expect(await store.clear('key-a')).toBe(0);
    expect(await store.stats('key-a')).toMatchObject({ entries: 0, totalBytes: 0 });
    cache.down = false;
    expect((await store.get('key-a', 'm', 'fp1')).status).toBe('hit');
  });

  it('ttlMs follows RERANK_CACHE_TTL_SECONDS', () => {
    expect(store.ttlMs).toBe(TTL_MS);
    const short = new RerankCacheStore(
      cache as unknown as SharedCache,
      new DownableIndex(cache),
      clock,
      AppConfig.fromEnv({ RERANK_CACHE_TTL_SECONDS: '60' }),
    );
    expect(short.ttlMs).toBe(60_000);
  });

  describe('near cache (Redis backend)', () => {
    beforeEach(() => {
      cache.backend = 'redis';
      store = new RerankCacheStore(
        cache as unknown as SharedCache,
        new DownableIndex(cache),
        clock,
        AppConfig.fromEnv({ RERANK_CACHE_TTL_SECONDS: String(TTL_S), RERANK_NEAR_CACHE_MB: '1' }),
      );
    });

    it('serves a repeated hit from process memory without reading the entry again', async () => {
      await store.put('key-a', 'm', 'fp1', entry(3, 1, 42));
      for (const k of cache.entryKeys()) cache.map.delete(k); // the shared copy is gone: only the near copy can answer
      const read = await store.get('key-a', 'm', 'fp1');
      expect(read.status).toBe('hit');
      expect(await store.get('key-b', 'm', 'fp1')).toEqual({ status: 'miss' }); // still per API key
    });

    it('is bypassed by a DELETE (generation bump) and by expiry', async () => {
      await store.put('key-a', 'm', 'fp1', entry(3, 1, 42));
      await store.clear('key-a');
      expect(await store.get('key-a', 'm', 'fp1')).toEqual({ status: 'miss' });
      await store.put('key-a', 'm', 'fp2', entry(3, 1, 42));
      clock.advance(TTL_MS);
      expect(await store.get('key-a', 'm', 'fp2')).toEqual({ status: 'miss' });
    });

    it('is not used when Redis is unreachable, and stays within its byte budget', async () => {
      await store.put('key-a', 'm', 'fp1', entry(3, 1, 42));
      cache.down = true;
      expect(await store.get('key-a', 'm', 'fp1')).toEqual({ status: 'unavailable' });
      cache.down = false;
      // 1 MiB budget: two entries of 40,000 × 4 dims × 4 bytes = 640 kB each cannot both stay
      await store.put('key-a', 'm', 'big1', entry(40_000, 1, 1));
      await store.put('key-a', 'm', 'big2', entry(40_000, 2, 1));
      for (const k of cache.entryKeys()) cache.map.delete(k);
      expect((await store.get('key-a', 'm', 'big2')).status).toBe('hit');
      expect((await store.get('key-a', 'm', 'big1')).status).toBe('miss');
    });
  });
});
