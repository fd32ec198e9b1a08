import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { BoundedRedis } from '@app/common';
import { AppConfig } from '@app/config';

/** Which generation of a key's cache is current; `epoch` is random per index lifetime. */
export interface CacheScope {
  epoch: string;
  gen: number;
}

export interface IndexStats {
  entries: number;
  totalBytes: number;
  oldestExpiry: number | null;
  newestExpiry: number | null;
  hits: number;
  misses: number;
  tokensSaved: number;
  rubSavedMicro: number;
}

export type Counter = 'hits' | 'misses' | 'tokensSaved' | 'rubSavedMicro';

/**
 * The per-API-key bookkeeping of the rerank cache: which entries exist (with their size and expiry),
 * the hit/miss counters, and the key's scope (epoch + generation). Every operation is atomic on its
 * own — no read-modify-write of a shared document — so concurrent requests never lose an update.
 * null / undefined answers mean "index unreachable" (the request goes on uncached).
 */
export abstract class RerankCacheIndex {
  abstract scope(apiKeyId: string): Promise<CacheScope | null>;
  abstract add(apiKeyId: string, entryKey: string, bytes: number, expiresAt: number, now: number): Promise<boolean>;
  abstract count(apiKeyId: string, counters: Partial<Record<Counter, number>>): Promise<void>;
  abstract stats(apiKeyId: string, now: number): Promise<IndexStats | null>;
  /** Atomically: forget every entry of the key, move to the next generation; returns the entry keys and how many were live. */
  abstract takeAll(apiKeyId: string, now: number): Promise<{ keys: string[]; live: number } | null>;
}

const SCOPE_TTL_MS = 30 * 86_400_000;

// KEYS[1] scope hash; ARGV[1] candidate epoch, ARGV[2] ttl
const SCOPE_LUA = `
if redis.call('HSETNX', KEYS[1], 'epoch', ARGV[1]) == 1 then redis.call('HSET', KEYS[1], 'gen', 0) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('HMGET', KEYS[1], 'epoch', 'gen')`;

// prune expired members of KEYS[1] (zset by expiry) and their sizes in KEYS[2] (hash); ARGV[1] now
const PRUNE = `
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for i = 1, #gone do redis.call('HDEL', KEYS[2], gone[i]) end
if #gone > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1]) end`;

// KEYS idx, sizes; ARGV now, member, expiresAt, bytes, ttl
const ADD_LUA = `${PRUNE}
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1`;

// KEYS idx, sizes, counters; ARGV now
const STATS_LUA = `${PRUNE}
local n = redis.call('ZCARD', KEYS[1])
local total = 0
for _, v in ipairs(redis.call('HVALS', KEYS[2])) do total = total + tonumber(v) end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local c = redis.call('HMGET', KEYS[3], 'hits', 'misses', 'tokensSaved', 'rubSavedMicro')
return { n, tostring(total), first[2] or '', last[2] or '', c[1] or '0', c[2] or '0', c[3] or '0', c[4] or '0' }`;

// KEYS idx, sizes, scope; ARGV now
const TAKE_LUA = `
local all = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HINCRBY', KEYS[3], 'gen', 1)
return all`;

const newEpoch = (): string => randomBytes(6).toString('hex');

/** Redis: a sorted set of entry keys by expiry, a hash of their sizes, HINCRBY counters, Lua for the multi-key steps. */
@Injectable()
export class RedisRerankCacheIndex extends RerankCacheIndex implements OnApplicationShutdown {
  /** every call bounded to 500 ms: a slow or absent Redis means a cache miss, never a slow rerank */
  private readonly redis: BoundedRedis;

  constructor(private readonly config: AppConfig) {
    super();
    this.redis = new BoundedRedis(config.redisUrl, {
      timeoutMs: 500,
      logger: new Logger('RerankCacheIndex'),
      what: 'rerank cache index',
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.close();
  }

  private k(kind: string, apiKeyId: string): string {
    return `${this.config.redisKeyPrefix}:rerank:${kind}:${apiKeyId}`;
  }

  async scope(apiKeyId: string): Promise<CacheScope | null> {
    const r = await this.redis.call((c) =>
      c.eval(SCOPE_LUA, { keys: [this.k('scope', apiKeyId)], arguments: [newEpoch(), String(SCOPE_TTL_MS)] }),
    );
    if (!Array.isArray(r)) return null;
    return { epoch: String(r[0]), gen: Number(r[1] ?? 0) };
  }

  async add(apiKeyId: string, entryKey: string, bytes: number, expiresAt: number, now: number): Promise<boolean> {
    const ttl = Math.max(1000, expiresAt - now + 60_000);
    const r = await this.redis.call((c) =>
      c.eval(ADD_LUA, {
        keys: [this.k('idx', apiKeyId), this.k('sizes', apiKeyId)],
        arguments: [String(now), entryKey, String(expiresAt), String(bytes), String(ttl)],
      }),
    );
    return r !== null;
  }

  async count(apiKeyId: string, counters: Partial<Record<Counter, number>>): Promise<void> {
    const key = this.k('counters', apiKeyId);
    await this.redis.call(async (c) => {
      const m = c.multi();
      for (const [field, by] of Object.entries(counters)) if (by) m.hIncrBy(key, field, Math.round(by));
      m.pExpire(key, SCOPE_TTL_MS);
      return m.exec();
    });
  }

  async stats(apiKeyId: string, now: number): Promise<IndexStats | null> {
    const r = await this.redis.call((c) =>
      c.eval(STATS_LUA, {
        keys: [this.k('idx', apiKeyId), this.k('sizes', apiKeyId), this.k('counters', apiKeyId)],
        arguments: [String(now)],
      }),
    );
    if (!Array.isArray(r)) return null;
    const num = (v: unknown) => Number(v ?? 0);
    return {
      entries: num(r[0]),
      totalBytes: num(r[1]),
      oldestExpiry: r[2] === '' ? null : num(r[2]),
      newestExpiry: r[3] === '' ? null : num(r[3]),
      hits: num(r[4]),
      misses: num(r[5]),
      tokensSaved: num(r[6]),
      rubSavedMicro: num(r[7]),
    };
  }

  async takeAll(apiKeyId: string, now: number): Promise<{ keys: string[]; live: number } | null> {
    const r = await this.redis.call((c) =>
      c.eval(TAKE_LUA, {
        keys: [this.k('idx', apiKeyId), this.k('sizes', apiKeyId), this.k('scope', apiKeyId)],
        arguments: [String(now)],
      }),
    );
    if (!Array.isArray(r)) return null;
    const keys: string[] = [];
    let live = 0;
    for (let i = 0; i < r.length; i += 2) {
      keys.push(String(r[i]));
      if (Number(r[i + 1]) > now) live++;
    }
    return { keys, live };
  }
}

/** In-process (no Redis): the same operations on Maps; a process-random epoch. */
@Injectable()
export class MemoryRerankCacheIndex extends RerankCacheIndex {
  private readonly epoch = newEpoch();
  private readonly gens = new Map<string, number>();
  private readonly entries = new Map<string, Map<string, { bytes: number; expiresAt: number }>>();
  private readonly counters = new Map<string, Record<Counter, number>>();

  async scope(apiKeyId: string): Promise<CacheScope | null> {
    return { epoch: this.epoch, gen: this.gens.get(apiKeyId) ?? 0 };
  }

  private prune(apiKeyId: string, now: number): Map<string, { bytes: number; expiresAt: number }> {
    let m = this.entries.get(apiKeyId);
    if (!m) {
      m = new Map();
      this.entries.set(apiKeyId, m);
    }
    for (const [k, e] of m) if (e.expiresAt <= now) m.delete(k);
    return m;
  }

  async add(apiKeyId: string, entryKey: string, bytes: number, expiresAt: number, now: number): Promise<boolean> {
    this.prune(apiKeyId, now).set(entryKey, { bytes, expiresAt });
    return true;
  }

  async count(apiKeyId: string, by: Partial<Record<Counter, number>>): Promise<void> {
    const c = this.counters.get(apiKeyId) ?? { hits: 0, misses: 0, tokensSaved: 0, rubSavedMicro: 0 };
    for (const [k, v] of Object.entries(by) as [Counter, number][]) c[k] += Math.round(v);
    this.counters.set(apiKeyId, c);
  }

  async stats(apiKeyId: string, now: number): Promise<IndexStats | null> {
    const live = [...this.prune(apiKeyId, now).values()];
    const c = this.counters.get(apiKeyId) ?? { hits: 0, misses: 0, tokensSaved: 0, rubSavedMicro: 0 };
    const expiries = live.map((e) => e.expiresAt);
    return {
      entries: live.length,
      totalBytes: live.reduce((s, e) => s + e.bytes, 0),
      oldestExpiry: expiries.length ? Math.min(...expiries) : null,
      newestExpiry: expiries.length ? Math.max(...expiries) : null,
      ...c,
    };
  }

  async takeAll(apiKeyId: string, now: number): Promise<{ keys: string[]; live: number } | null> {
    const m = this.entries.get(apiKeyId) ?? new Map();
    this.entries.delete(apiKeyId);
    this.gens.set(apiKeyId, (this.gens.get(apiKeyId) ?? 0) + 1);
    return { keys: [...m.keys()], live: [...m.values()].filter((e) => e.expiresAt > now).length };
  }
}

/** Redis when REDIS_URL is set, else in-process. */
export const rerankCacheIndexProvider = {
  provide: RerankCacheIndex,
  inject: [AppConfig],
  useFactory: (config: AppConfig): RerankCacheIndex =>
    config.redisUrl ? new RedisRerankCacheIndex(config) : new MemoryRerankCacheIndex(),
};
