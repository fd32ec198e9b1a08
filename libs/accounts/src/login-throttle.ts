import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { BoundedRedis } from '@app/common';
import { AppConfig } from '@app/config';

/** One counter after an attempt was counted: its value and ms until its window ends. */
export interface ThrottleCount {
  count: number;
  resetMs: number;
}

/**
 * Sign-in attempts counted per key (an account's e-mail, a client address) in fixed windows of
 * LOGIN_THROTTLE_WINDOW_MINUTES that start at the first attempt. An attempt is counted BEFORE its
 * password is evaluated (one atomic increment per key), so concurrent attempts cannot all pass the
 * check; an attempt that turns out right takes its count back. With REDIS_URL the counters live in
 * Redis and every replica sees the same count; otherwise in this process. When Redis cannot answer,
 * sign-in is not refused for it.
 */
export abstract class LoginThrottleStore {
  /** Counts one attempt for each key, atomically; the counts after it (null: the store cannot answer). */
  abstract hit(keys: string[], now: number): Promise<ThrottleCount[] | null>;
  /** Takes back one counted attempt (a right password), never below zero. */
  abstract unhit(key: string, now: number): Promise<void>;
}

@Injectable()
export class MemoryLoginThrottleStore extends LoginThrottleStore {
  private readonly counts = new Map<string, { count: number; until: number }>();

  constructor(private readonly windowMs: number) {
    super();
  }

  hit(keys: string[], now: number): Promise<ThrottleCount[]> {
    if (this.counts.size > 100_000) for (const [k, e] of this.counts) if (e.until <= now) this.counts.delete(k);
    return Promise.resolve(
      keys.map((key) => {
        let e = this.counts.get(key);
        if (!e || e.until <= now) this.counts.set(key, (e = { count: 0, until: now + this.windowMs }));
        e.count++;
        return { count: e.count, resetMs: e.until - now };
      }),
    );
  }

  unhit(key: string, now: number): Promise<void> {
    const e = this.counts.get(key);
    if (e && e.until > now && e.count > 0) e.count--;
    return Promise.resolve();
  }
}

// KEYS: counters; ARGV[1] window ms. INCR each, start the window on the first attempt; answers
// {count, ms left} per key.
const HIT_LUA = `
local out = {}
for i = 1, #KEYS do
  local n = redis.call('INCR', KEYS[i])
  if n == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
  out[#out + 1] = n
  out[#out + 1] = redis.call('PTTL', KEYS[i])
end
return out`;

// KEYS[1]: a counter. DECR while above zero (an expired counter is not brought back).
const UNHIT_LUA = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then redis.call('DECR', KEYS[1]) end
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

  async hit(keys: string[]): Promise<ThrottleCount[] | null> {
    const window = String(this.config.accounts.loginThrottleWindowMs);
    const r = await this.redis.call((c) =>
      c.eval(HIT_LUA, { keys: keys.map((k) => this.key(k)), arguments: [window] }),
    );
    if (!Array.isArray(r)) return null;
    return keys.map((_, i) => ({ count: Number(r[2 * i]), resetMs: Math.max(0, Number(r[2 * i + 1])) }));
  }

  async unhit(key: string): Promise<void> {
    await this.redis.call((c) => c.eval(UNHIT_LUA, { keys: [this.key(key)], arguments: [] }));
  }
}
