import { CACHE_MANAGER } from '@nestjs/cache-manager';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Cache } from 'cache-manager';
import { AppConfig } from '@app/config';
import { Clock } from '../clock';
import { BoundedMemoryStore } from './bounded-memory-store';

/**
 * The shared cache (Redis through @keyv/redis when REDIS_URL is set, in-process otherwise), behind
 * one class whose operations never throw and never hang: a Redis outage degrades to "miss"
 * (each call is bounded by OP_TIMEOUT_MS) and is logged at most once every 10 s.
 */
@Injectable()
export class SharedCache {
  static readonly OP_TIMEOUT_MS = 500;
  private readonly logger = new Logger('SharedCache');
  private lastWarnAt = 0;
  private lastOk = true;

  constructor(
    @Inject(CACHE_MANAGER) private readonly cache: Cache,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** 'redis' or 'memory' */
  get backend(): 'redis' | 'memory' {
    return this.config.redisUrl ? 'redis' : 'memory';
  }

  /** True when the last operation reached the store. */
  get available(): boolean {
    return this.lastOk;
  }

  async get<T>(key: string): Promise<T | undefined> {
    const v = await this.guard(() => this.cache.get<T>(key), 'get');
    return v === null || v === undefined ? undefined : (v as T);
  }

  async set<T>(key: string, value: T, ttlMs: number): Promise<boolean> {
    const r = await this.guard(() => this.cache.set(key, value, ttlMs), 'set');
    return r !== undefined;
  }

  async del(key: string): Promise<boolean> {
    const r = await this.guard(() => this.cache.del(key), 'del');
    return r !== undefined;
  }

  async mget<T>(keys: string[]): Promise<(T | undefined)[]> {
    if (keys.length === 0) return [];
    const r = await this.guard(() => this.cache.mget<T>(keys), 'mget');
    return r ? r.map((v) => (v === null || v === undefined ? undefined : (v as T))) : keys.map(() => undefined);
  }

  /** Bytes held by the in-process store (null with Redis): bounded by MEMORY_CACHE_MB. */
  memoryBytes(purgeExpired = false): number | null {
    const keyv = (this.cache as unknown as { stores?: Array<{ store?: unknown; opts?: { store?: unknown } }> })
      .stores?.[0];
    const store = keyv?.store ?? keyv?.opts?.store;
    if (!(store instanceof BoundedMemoryStore)) return null;
    if (purgeExpired) store.purgeStale();
    return store.heldBytes;
  }

  /** Round-trip a probe key: used by /ready. */
  async ping(): Promise<boolean> {
    const key = `health:${process.pid}`;
    const ok = await this.set(key, 1, 5000);
    if (!ok) return false;
    return (await this.get<number>(key)) === 1;
  }

  private async guard<R>(op: () => Promise<R>, name: string): Promise<R | undefined> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`cache ${name} timed out after ${SharedCache.OP_TIMEOUT_MS} ms`)),
          SharedCache.OP_TIMEOUT_MS,
        );
        timer.unref();
      });
      const result = await Promise.race([op(), timeout]);
      this.lastOk = true;
      return result;
    } catch (err) {
      this.lastOk = false;
      const now = this.clock.now();
      if (now - this.lastWarnAt > 10_000) {
        this.lastWarnAt = now;
        this.logger.warn(
          { err: err instanceof Error ? err.message : String(err), backend: this.backend },
          'shared cache unavailable; continuing without it',
        );
      }
      return undefined;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }
}
