import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { BoundedRedis } from '@app/common';
import { AppConfig } from '@app/config';

/**
 * Failed sign-ins counted per key (an account's e-mail, a client address) in fixed windows of
 * LOGIN_THROTTLE_WINDOW_MINUTES. With REDIS_URL the counters live in Redis and every replica sees
 * the same count; otherwise in this process. When Redis cannot answer, sign-in is not refused for it.
 */
export abstract class LoginThrottleStore {
  /** Failures counted for `key` in the current window, and ms until the window ends. */
  abstract peek(key: string, now: number): Promise<{ count: number; resetMs: number } | null>;
  /** Counts one failure for each key. */
  abstract fail(keys: string[], now: number): Promise<void>;
  abstract clear(key: string): Promise<void>;
}

@Injectable()
export class MemoryLoginThrottleStore extends LoginThrottleStore {
  private readonly counts = new Map<string, { count: number; until: number }>();

  constructor(private readonly windowMs: number) {
    super();
  }

  peek(key: string, now: number): Promise<{ count: number; resetMs: number } | null> {
    const e = this.counts.get(key);
    if (!e || e.until <= now) return Promise.resolve({ count: 0, resetMs: 0 });
    return Promise.resolve({ count: e.count, resetMs: e.until - now });
  }

  fail(keys: string[], now: number): Promise<void> {
    if (this.counts.size > 100_000) for (const [k, e] of this.counts) if (e.until <= now) this.counts.delete(k);
    for (const key of keys) {
      const e = this.counts.get(key);
      if (!e || e.until <= now) this.counts.set(key, { count: 1, until: now + this.windowMs });
      else e.count++;
    }
    return Promise.resolve();
  }

  clear(key: string): Promise<void> {
    this.counts.delete(key);
    return Promise.resolve();
  }
}

// KEYS: counters; ARGV[1] window ms. INCR, and start the window on the first failure.
const FAIL_LUA = `
for i = 1, #KEYS do
  local n = redis.call('INCR', KEYS[i])
  if n == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
return 1`;

@Injectable()
export class RedisLoginThrottleStore extends LoginThrottleStore implements OnApplicationShutdown {
  private readonly redis: BoundedRedis;

  constructor(private readonly config: AppConfig) {
    super();
    this.redis = new BoundedRedis(config.redisUrl, {
      timeoutMs: 500,
      logger: new Logger('LoginThrottle'),
      what: 'sign-in throttle store',
      waitForFirstConnection: true,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.close();
  }

  private key(k: string): string {
    return `${this.config.redisKeyPrefix}:login:${k}`;
  }

  async peek(key: string): Promise<{ count: number; resetMs: number } | null> {
    const k = this.key(key);
    const r = await this.redis.call(async (c) => Promise.all([c.get(k), c.pTTL(k)]));
    if (!r) return null;
    return { count: Number(r[0] ?? 0), resetMs: Math.max(0, Number(r[1])) };
  }

  async fail(keys: string[]): Promise<void> {
    const window = String(this.config.accounts.loginThrottleWindowMs);
    await this.redis.call((c) => c.eval(FAIL_LUA, { keys: keys.map((k) => this.key(k)), arguments: [window] }));
  }

  async clear(key: string): Promise<void> {
    await this.redis.call((c) => c.del(this.key(key)));
  }
}
