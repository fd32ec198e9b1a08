import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { BoundedRedis } from '@app/common';
import { AppConfig } from '@app/config';

/** The window every limit is expressed in: one minute. */
export const WINDOW_MS = 60_000;
/** Tolerance for the rounding of stored times (Redis keeps TATs to the microsecond). */
export const EPSILON_MS = 0.01;

/** One limit to charge: `cost` units (1 request, N tokens) against `limit` per minute. */
export interface BucketCharge {
  key: string;
  limit: number;
  cost: number;
}

export interface BucketState {
  /** units still available right now (after this charge when admitted) */
  remaining: number;
  /** ms until the bucket is full again */
  resetMs: number;
  /** ms until this charge would fit (0 when admitted or when it fits now) */
  retryMs: number;
}

export interface LimitDecision {
  allowed: boolean;
  buckets: BucketState[];
}

/**
 * GCRA (the generic cell rate algorithm, a sliding window without per-request logs): each bucket
 * keeps one number, its theoretical arrival time (TAT). A unit costs WINDOW_MS / limit ms of TAT; a
 * charge is admitted when the TAT it leads to is at most one window ahead of now, so a full bucket
 * takes `limit` units at once and refills continuously (limit per minute). A decision covers all
 * buckets at once: admitted only when every bucket admits, and then every bucket is charged.
 * Time comes from the caller (the injectable Clock), never from the store.
 */
export function gcra(
  tats: number[],
  charges: BucketCharge[],
  now: number,
): { allowed: boolean; tats: number[]; buckets: BucketState[] } {
  const next: number[] = [];
  let allowed = true;
  const retry: number[] = [];
  charges.forEach((c, i) => {
    const t = WINDOW_MS / c.limit;
    const tat = Math.max(tats[i] ?? 0, now);
    const nt = tat + c.cost * t;
    next.push(nt);
    const over = nt - now - WINDOW_MS;
    // EPSILON_MS absorbs the rounding of stored TATs (limits that do not divide a minute)
    retry.push(over > EPSILON_MS ? over : 0);
    if (over > EPSILON_MS) allowed = false;
  });
  const after = allowed ? next : charges.map((_, i) => Math.max(tats[i] ?? 0, now));
  const buckets = charges.map((c, i) => {
    const t = WINDOW_MS / c.limit;
    return {
      remaining: Math.max(0, Math.floor((WINDOW_MS - (after[i] - now) + EPSILON_MS) / t)),
      resetMs: Math.max(0, after[i] - now),
      retryMs: allowed ? 0 : retry[i],
    };
  });
  return { allowed, tats: after, buckets };
}

/**
 * Where bucket state lives: Redis (one Lua script per decision, shared by every replica) or this
 * process. `null` means the store could not answer (the request is then admitted: fail open).
 */
export abstract class RateLimiter {
  abstract consume(charges: BucketCharge[], now: number): Promise<LimitDecision | null>;
  /** Adds (or, negative, gives back) units without a check: the correction of an estimate at settle. */
  abstract adjust(charge: BucketCharge, now: number): Promise<void>;
}

@Injectable()
export class MemoryRateLimiter extends RateLimiter {
  private readonly tats = new Map<string, number>();
  private sweptAt = 0;

  consume(charges: BucketCharge[], now: number): Promise<LimitDecision | null> {
    this.sweep(now);
    const out = gcra(
      charges.map((c) => this.tats.get(c.key) ?? 0),
      charges,
      now,
    );
    if (out.allowed) charges.forEach((c, i) => this.tats.set(c.key, out.tats[i]));
    return Promise.resolve({ allowed: out.allowed, buckets: out.buckets });
  }

  adjust(c: BucketCharge, now: number): Promise<void> {
    const t = WINDOW_MS / c.limit;
    const tat = Math.max(this.tats.get(c.key) ?? 0, now);
    this.tats.set(c.key, Math.max(now, tat + c.cost * t));
    return Promise.resolve();
  }

  /** Buckets whose TAT is in the past are full again: forget them (bounded memory). */
  private sweep(now: number): void {
    if (now - this.sweptAt < WINDOW_MS && this.tats.size < 100_000) return;
    this.sweptAt = now;
    for (const [k, tat] of this.tats) if (tat <= now) this.tats.delete(k);
  }
}

// KEYS: one TAT per bucket; ARGV[1] now, ARGV[2] window, then limit, cost per bucket.
// Returns {allowed, then per bucket remaining, resetMs, retryMs} (integers).
const CONSUME_LUA = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local n = #KEYS
local tats, nexts, retry = {}, {}, {}
local allowed = 1
for i = 1, n do
  local limit = tonumber(ARGV[1 + 2 * i])
  local cost = tonumber(ARGV[2 + 2 * i])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  if tat < now then tat = now end
  tats[i] = tat
  nexts[i] = tat + cost * window / limit
  local over = nexts[i] - now - window
  if over > 0.01 then allowed = 0; retry[i] = over else retry[i] = 0 end
end
local out = { allowed }
for i = 1, n do
  local limit = tonumber(ARGV[1 + 2 * i])
  local after = tats[i]
  if allowed == 1 then
    after = nexts[i]
    redis.call('SET', KEYS[i], string.format('%.3f', after), 'PX', math.ceil(after - now) + 1000)
  end
  local remaining = math.floor((window - (after - now) + 0.01) * limit / window)
  if remaining < 0 then remaining = 0 end
  out[#out + 1] = remaining
  out[#out + 1] = math.ceil(after - now)
  if allowed == 1 then out[#out + 1] = 0 else out[#out + 1] = math.ceil(retry[i]) end
end
return out`;

// KEYS[1] TAT; ARGV now, window, limit, cost (may be negative)
const ADJUST_LUA = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local after = tat + tonumber(ARGV[4]) * window / tonumber(ARGV[3])
if after <= now then redis.call('DEL', KEYS[1]) return 0 end
redis.call('SET', KEYS[1], string.format('%.3f', after), 'PX', math.ceil(after - now) + 1000)
return 1`;

/** Shared across replicas: one EVAL round trip per decision (the script is atomic in Redis). */
@Injectable()
export class RedisRateLimiter extends RateLimiter implements OnApplicationShutdown {
  static readonly TIMEOUT_MS = 500;
  private readonly redis: BoundedRedis;

  constructor(
    private readonly config: AppConfig,
    /** how long one decision may take before the request is admitted without it */
    timeoutMs = RedisRateLimiter.TIMEOUT_MS,
  ) {
    super();
    // while the first connection is being made, decisions wait for it instead of failing open
    this.redis = new BoundedRedis(config.redisUrl, {
      timeoutMs,
      logger: new Logger('RateLimiter'),
      what: 'rate limiter store (admitting requests unlimited meanwhile)',
      waitForFirstConnection: true,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.close();
  }

  private key(k: string): string {
    return `${this.config.redisKeyPrefix}:rl:${k}`;
  }

  async consume(charges: BucketCharge[], now: number): Promise<LimitDecision | null> {
    const args = [String(now), String(WINDOW_MS), ...charges.flatMap((c) => [String(c.limit), String(c.cost)])];
    const r = (await this.redis.call((c) =>
      c.eval(CONSUME_LUA, { keys: charges.map((c) => this.key(c.key)), arguments: args }),
    )) as number[] | null;
    if (!r) return null;
    const buckets = charges.map((_, i) => ({
      remaining: Number(r[1 + 3 * i]),
      resetMs: Number(r[2 + 3 * i]),
      retryMs: Number(r[3 + 3 * i]),
    }));
    return { allowed: Number(r[0]) === 1, buckets };
  }

  async adjust(charge: BucketCharge, now: number): Promise<void> {
    await this.redis.call((c) =>
      c.eval(ADJUST_LUA, {
        keys: [this.key(charge.key)],
        arguments: [String(now), String(WINDOW_MS), String(charge.limit), String(charge.cost)],
      }),
    );
  }
}
