import { Injectable } from '@nestjs/common';
import { Clock, SharedCache } from '@app/common';
import { AppConfig } from '@app/config';

/** What one cache entry holds: the document embeddings as float32 bytes plus what rebuilds a response. */
export interface CachedEmbeddings {
  dimensions: number;
  count: number;
  /** provider-reported document tokens of the call that filled the entry */
  documentTokens: number;
  embeddingModel: string;
  createdAt: number;
  expiresAt: number;
  vectors: Float32Array[];
}

type StoredEntry = Omit<CachedEmbeddings, 'vectors'> & {
  v: 1;
  /** count × dimensions little-endian float32 (Keyv stores Buffers as base64 in Redis, by reference in-process) */
  vectors: Buffer;
};

interface IndexEntry {
  bytes: number;
  expiresAt: number;
  documentTokens: number;
  model: string;
}

/** Per-API-key bookkeeping for cache-stats and DELETE. */
interface KeyIndex {
  entries: Record<string, IndexEntry>;
  hits: number;
  misses: number;
  tokensSaved: number;
  rubSavedMicro: number;
}

export interface CacheStats {
  entries: number;
  totalBytes: number;
  hits: number;
  misses: number;
  tokensSaved: number;
  rubSavedMicro: number;
  oldestExpiry: number | null;
  newestExpiry: number | null;
}

export type CacheRead = { status: 'hit'; entry: CachedEmbeddings } | { status: 'miss' } | { status: 'unavailable' };

/**
 * The rerank embedding cache (spec section 3) on the shared cache (Redis or in-process).
 * Keys: rerank:e:<apiKeyId>:<generation>:<model>:<fingerprint> — the API key id is part of every
 * key, so no other key can read, count or clear an entry. DELETE bumps the key's generation: all
 * earlier entries become unreachable at once (on every replica), then their keys are deleted.
 * Expiry is checked against the injectable Clock (and the store's TTL cleans up).
 *
 * With Redis, decoded entries are also kept in a bytes-bounded in-process LRU ("near cache",
 * RERANK_NEAR_CACHE_MB): a repeated hit on the same replica skips the multi-megabyte transfer and
 * decode. It is safe because keys are content-addressed and carry the generation, which is read
 * from Redis on every request — a DELETE on any replica makes the old keys unreachable here too.
 */
@Injectable()
export class RerankCacheStore {
  private readonly near = new Map<string, CachedEmbeddings>();
  private nearBytes = 0;

  constructor(
    private readonly cache: SharedCache,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  get ttlMs(): number {
    return this.config.rerankCacheTtlMs;
  }

  async get(apiKeyId: string, model: string, fingerprint: string): Promise<CacheRead> {
    const gen = await this.generation(apiKeyId);
    if (gen === null) return { status: 'unavailable' };
    const key = this.entryKey(apiKeyId, gen, model, fingerprint);
    const near = this.nearGet(key);
    if (near) return { status: 'hit', entry: near };
    const stored = await this.cache.get<StoredEntry>(key);
    if (!stored) return this.cache.available ? { status: 'miss' } : { status: 'unavailable' };
    if (stored.expiresAt <= this.clock.now()) {
      await this.cache.del(key);
      return { status: 'miss' };
    }
    const entry = decode(stored);
    this.nearPut(key, entry);
    return { status: 'hit', entry };
  }

  /** Stores an entry; false when the cache is unavailable. */
  async put(apiKeyId: string, model: string, fingerprint: string, e: Omit<CachedEmbeddings, 'createdAt' | 'expiresAt'>): Promise<boolean> {
    const gen = await this.generation(apiKeyId);
    if (gen === null) return false;
    const now = this.clock.now();
    const key = this.entryKey(apiKeyId, gen, model, fingerprint);
    const stored: StoredEntry = { v: 1, dimensions: e.dimensions, count: e.count, documentTokens: e.documentTokens, embeddingModel: e.embeddingModel, createdAt: now, expiresAt: now + this.ttlMs, vectors: encode(e.vectors, e.dimensions) };
    if (!(await this.cache.set(key, stored, this.ttlMs))) return false;
    this.nearPut(key, decode(stored));
    await this.updateIndex(apiKeyId, (idx) => {
      idx.entries[key] = { bytes: stored.vectors.byteLength, expiresAt: stored.expiresAt, documentTokens: e.documentTokens, model };
    });
    return true;
  }

  recordHit(apiKeyId: string, tokensSaved: number, rubSavedMicro: number): Promise<void> {
    return this.updateIndex(apiKeyId, (idx) => {
      idx.hits++;
      idx.tokensSaved += tokensSaved;
      idx.rubSavedMicro += rubSavedMicro;
    });
  }

  recordMiss(apiKeyId: string): Promise<void> {
    return this.updateIndex(apiKeyId, (idx) => {
      idx.misses++;
    });
  }

  async stats(apiKeyId: string): Promise<CacheStats> {
    const idx = await this.readIndex(apiKeyId);
    const now = this.clock.now();
    const live = Object.values(idx.entries).filter((e) => e.expiresAt > now);
    const expiries = live.map((e) => e.expiresAt);
    return {
      entries: live.length,
      totalBytes: live.reduce((a, e) => a + e.bytes, 0),
      hits: idx.hits,
      misses: idx.misses,
      tokensSaved: idx.tokensSaved,
      rubSavedMicro: idx.rubSavedMicro,
      oldestExpiry: expiries.length ? Math.min(...expiries) : null,
      newestExpiry: expiries.length ? Math.max(...expiries) : null,
    };
  }

  /** Removes every entry of this API key; returns how many live entries were removed. */
  async clear(apiKeyId: string): Promise<number> {
    const gen = await this.generation(apiKeyId);
    if (gen === null) return 0;
    await this.cache.set(this.genKey(apiKeyId), gen + 1, 30 * 86_400_000);
    const idx = await this.readIndex(apiKeyId);
    const now = this.clock.now();
    const keys = Object.keys(idx.entries);
    const removed = keys.filter((k) => idx.entries[k].expiresAt > now).length;
    await Promise.all(keys.map((k) => this.cache.del(k)));
    await this.updateIndex(apiKeyId, (i) => {
      i.entries = {};
    });
    return removed;
  }

  private nearGet(key: string): CachedEmbeddings | undefined {
    const e = this.near.get(key);
    if (!e) return undefined;
    this.near.delete(key);
    if (e.expiresAt <= this.clock.now()) {
      this.nearBytes -= e.count * e.dimensions * 4;
      return undefined;
    }
    this.near.set(key, e); // most recently used last
    return e;
  }

  private nearPut(key: string, e: CachedEmbeddings): void {
    const limit = this.cache.backend === 'redis' ? this.config.rerankNearCacheBytes : 0;
    const bytes = e.count * e.dimensions * 4;
    if (bytes > limit) return;
    const old = this.near.get(key);
    if (old) {
      this.near.delete(key);
      this.nearBytes -= old.count * old.dimensions * 4;
    }
    this.near.set(key, e);
    this.nearBytes += bytes;
    for (const [k, v] of this.near) {
      if (this.nearBytes <= limit) break;
      this.near.delete(k);
      this.nearBytes -= v.count * v.dimensions * 4;
    }
  }

  /** null when the cache cannot be reached. */
  private async generation(apiKeyId: string): Promise<number | null> {
    const g = await this.cache.get<number>(this.genKey(apiKeyId));
    if (g === undefined && !this.cache.available) return null;
    return g ?? 0;
  }

  private async readIndex(apiKeyId: string): Promise<KeyIndex> {
    return (await this.cache.get<KeyIndex>(this.indexKey(apiKeyId))) ?? { entries: {}, hits: 0, misses: 0, tokensSaved: 0, rubSavedMicro: 0 };
  }

  /**
   * Read-modify-write of the per-key index. Concurrent requests of the same key can lose an
   * update of these statistics (never of an entry: entries are independent keys); expired
   * entries are pruned on every write.
   */
  private async updateIndex(apiKeyId: string, mutate: (idx: KeyIndex) => void): Promise<void> {
    const idx = await this.readIndex(apiKeyId);
    const copy: KeyIndex = { ...idx, entries: { ...idx.entries } };
    mutate(copy);
    const now = this.clock.now();
    for (const [k, e] of Object.entries(copy.entries)) if (e.expiresAt <= now) delete copy.entries[k];
    await this.cache.set(this.indexKey(apiKeyId), copy, this.ttlMs + 86_400_000);
  }

  private entryKey(apiKeyId: string, gen: number, model: string, fingerprint: string): string {
    return `rerank:e:${apiKeyId}:${gen}:${model}:${fingerprint}`;
  }

  private genKey(apiKeyId: string): string {
    return `rerank:gen:${apiKeyId}`;
  }

  private indexKey(apiKeyId: string): string {
    return `rerank:idx:${apiKeyId}`;
  }
}

function encode(vectors: Float32Array[], dims: number): Buffer {
  const all = new Float32Array(vectors.length * dims);
  vectors.forEach((v, i) => all.set(v, i * dims));
  return Buffer.from(all.buffer, all.byteOffset, all.byteLength);
}

function decode(s: StoredEntry): CachedEmbeddings {
  let buf = Buffer.isBuffer(s.vectors) ? s.vectors : Buffer.from(s.vectors as unknown as Uint8Array);
  if (buf.byteOffset % 4 !== 0) buf = Buffer.from(buf); // Float32Array views need 4-byte alignment
  const all = new Float32Array(buf.buffer, buf.byteOffset, s.count * s.dimensions);
  const vectors = Array.from({ length: s.count }, (_, i) => all.subarray(i * s.dimensions, (i + 1) * s.dimensions));
  return { dimensions: s.dimensions, count: s.count, documentTokens: s.documentTokens, embeddingModel: s.embeddingModel, createdAt: s.createdAt, expiresAt: s.expiresAt, vectors };
}
