import { Injectable } from '@nestjs/common';
import { Clock, SharedCache } from '@app/common';
import { AppConfig } from '@app/config';
import { CacheScope, RerankCacheIndex } from './rerank-cache.index';

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
 * The rerank embedding cache (spec section 3) on the shared cache (Redis or in-process, both
 * bounded) with a per-key index ({@link RerankCacheIndex}: atomic Redis structures, or Maps).
 * Keys: rerank:e:<apiKeyId>:<epoch>:<generation>:<model>:<fingerprint> — the API key id is part of
 * every key, so no other key can read, count or clear an entry. DELETE atomically takes the key's
 * whole index and moves it to the next generation: all earlier entries become unreachable at once
 * (on every replica), then each of them is deleted.
 *
 * With Redis, decoded entries are also kept in a bytes-bounded in-process LRU ("near cache",
 * RERANK_NEAR_CACHE_MB): a repeated hit on the same replica skips the transfer and decode. It is
 * safe because keys are content-addressed and carry the scope read from Redis on every request:
 * the generation moves on DELETE, and the epoch is random per scope record — if Redis loses its
 * data the scope is created anew with a new epoch, so entries cleared before cannot come back
 * from any replica's near cache.
 */
@Injectable()
export class RerankCacheStore {
  private readonly near = new Map<string, CachedEmbeddings>();
  private nearBytes = 0;

  constructor(
    private readonly cache: SharedCache,
    private readonly index: RerankCacheIndex,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  get ttlMs(): number {
    return this.config.rerankCacheTtlMs;
  }

  async get(apiKeyId: string, model: string, fingerprint: string): Promise<CacheRead> {
    const scope = await this.index.scope(apiKeyId);
    if (scope === null) return { status: 'unavailable' };
    const key = this.entryKey(apiKeyId, scope, model, fingerprint);
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
  async put(
    apiKeyId: string,
    model: string,
    fingerprint: string,
    e: Omit<CachedEmbeddings, 'createdAt' | 'expiresAt'>,
  ): Promise<boolean> {
    const scope = await this.index.scope(apiKeyId);
    if (scope === null) return false;
    const now = this.clock.now();
    const key = this.entryKey(apiKeyId, scope, model, fingerprint);
    const stored: StoredEntry = {
      v: 1,
      dimensions: e.dimensions,
      count: e.count,
      documentTokens: e.documentTokens,
      embeddingModel: e.embeddingModel,
      createdAt: now,
      expiresAt: now + this.ttlMs,
      vectors: encode(e.vectors, e.dimensions),
    };
    if (!(await this.cache.set(key, stored, this.ttlMs))) return false;
    this.nearPut(key, decode(stored));
    return this.index.add(apiKeyId, key, stored.vectors.byteLength, stored.expiresAt, now);
  }

  recordHit(apiKeyId: string, tokensSaved: number, rubSavedMicro: number): Promise<void> {
    return this.index.count(apiKeyId, { hits: 1, tokensSaved, rubSavedMicro });
  }

  recordMiss(apiKeyId: string): Promise<void> {
    return this.index.count(apiKeyId, { misses: 1 });
  }

  async stats(apiKeyId: string): Promise<CacheStats> {
    const s = await this.index.stats(apiKeyId, this.clock.now());
    return (
      s ?? {
        entries: 0,
        totalBytes: 0,
        hits: 0,
        misses: 0,
        tokensSaved: 0,
        rubSavedMicro: 0,
        oldestExpiry: null,
        newestExpiry: null,
      }
    );
  }

  /** Removes every entry of this API key; returns how many live entries were removed. */
  async clear(apiKeyId: string): Promise<number> {
    const taken = await this.index.takeAll(apiKeyId, this.clock.now());
    if (!taken) return 0;
    for (const k of taken.keys) this.dropNear(k);
    for (let i = 0; i < taken.keys.length; i += 100)
      await Promise.all(taken.keys.slice(i, i + 100).map((k) => this.cache.del(k)));
    return taken.live;
  }

  /** Bytes held by this replica's near cache (tests and metrics). */
  get nearCacheBytes(): number {
    return this.nearBytes;
  }

  private dropNear(key: string): void {
    const e = this.near.get(key);
    if (!e) return;
    this.near.delete(key);
    this.nearBytes -= e.count * e.dimensions * 4;
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
    this.dropNear(key);
    this.near.set(key, e);
    this.nearBytes += bytes;
    for (const [k, v] of this.near) {
      if (this.nearBytes <= limit) break;
      this.near.delete(k);
      this.nearBytes -= v.count * v.dimensions * 4;
    }
  }

  private entryKey(apiKeyId: string, scope: CacheScope, model: string, fingerprint: string): string {
    return `rerank:e:${apiKeyId}:${scope.epoch}:${scope.gen}:${model}:${fingerprint}`;
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
  return {
    dimensions: s.dimensions,
    count: s.count,
    documentTokens: s.documentTokens,
    embeddingModel: s.embeddingModel,
    createdAt: s.createdAt,
    expiresAt: s.expiresAt,
    vectors,
  };
}
