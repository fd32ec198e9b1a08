import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError, BoundedRedis, Clock, ClusterBus } from '@app/common';
import { AppConfig } from '@app/config';
import { secretsEqual } from './api-key.crypto';
import { extractApiKey } from './api-key.header';
import { ApiKeysService, Caller } from './api-keys.service';

// KEYS[1] the address's failure counter; ARGV[1] the window (ms). Returns {failures, ms left in the window}.
const COUNT_LUA = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) ttl = tonumber(ARGV[1]) end
return { n, ttl }`;

export type AuthFailureKind = 'api_key' | 'admin_token';

/** The client address of a request (Express's `req.ip`: X-Forwarded-For only through TRUST_PROXY). */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket?.remoteAddress ?? 'unknown';
}

/**
 * Throttles credential guessing: failed authentications (a wrong or revoked API key, a wrong admin
 * token; a missing credential is not a guess) are counted per client address in a fixed window of
 * AUTH_FAILURE_WINDOW_SECONDS — in Redis across replicas when configured, in-process otherwise. The
 * failure that reaches AUTH_FAILURE_LIMIT throttles the address until the window ends, on every
 * replica at once (told through the cluster bus): every authentication from it is then answered 429
 * with Retry-After BEFORE its credential is looked at, so a throttled address cannot tell a right
 * guess from a wrong one. Throttling is logged once per address and window.
 */
@Injectable()
export class AuthThrottle implements OnModuleInit, OnApplicationShutdown {
  static readonly CHANNEL = 'auth-throttled';
  private readonly logger = new Logger('AuthThrottle');
  /** throttled addresses → until (clock ms) */
  private readonly blocked = new Map<string, number>();
  /** in-process failure counts (no Redis, or Redis unreachable) */
  private readonly counts = new Map<string, { n: number; resetAt: number }>();
  private readonly redis: BoundedRedis | null;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly bus: ClusterBus,
  ) {
    this.redis = config.redisUrl
      ? new BoundedRedis(config.redisUrl, {
          timeoutMs: 500,
          logger: this.logger,
          what: 'authentication failure counter (counting in-process meanwhile)',
        })
      : null;
  }

  onModuleInit(): void {
    this.bus.subscribe(AuthThrottle.CHANNEL, (message) => {
      const { address, retryMs } = JSON.parse(message) as { address: string; retryMs: number };
      this.block(address, this.clock.now() + retryMs);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.close();
  }

  /**
   * Throws 429 when the request's address is throttled. The address (Express's `req.ip`, which walks
   * X-Forwarded-For through the trust-proxy rules) is only worked out when some address is throttled.
   */
  assertAllowed(req: Request): void {
    if (this.config.authFailureLimit === 0 || this.blocked.size === 0) return;
    const address = clientAddress(req);
    const until = this.blocked.get(address);
    if (until === undefined) return;
    const left = until - this.clock.now();
    if (left <= 0) {
      this.blocked.delete(address);
      return;
    }
    const retryS = Math.max(1, Math.ceil(left / 1000));
    throw new ApiError(
      429,
      'rate_limit_error',
      `Too many failed authentication attempts from this address. Please try again in ${retryS}s.`,
      'too_many_auth_failures',
      null,
      { 'retry-after': String(retryS) },
    );
  }

  /** Counts one failed authentication from `address`; reaching the limit throttles it everywhere. */
  async failed(address: string, kind: AuthFailureKind): Promise<void> {
    const limit = this.config.authFailureLimit;
    if (limit === 0) return;
    const window = this.config.authFailureWindowMs;
    const now = this.clock.now();
    const shared = this.redis
      ? ((await this.redis.call((c) =>
          c.eval(COUNT_LUA, {
            keys: [`${this.config.redisKeyPrefix}:authfail:${address}`],
            arguments: [String(window)],
          }),
        )) as [number, number] | null)
      : null;
    const [failures, leftMs] = shared
      ? [Number(shared[0]), Number(shared[1])]
      : this.countLocally(address, now, window);
    if (failures < limit) return;
    const until = now + leftMs;
    if ((this.blocked.get(address) ?? 0) >= until) return;
    this.block(address, until);
    this.logger.warn(
      {
        clientAddress: address,
        failures,
        kind,
        windowSeconds: window / 1000,
        retryAfterSeconds: Math.ceil(leftMs / 1000),
      },
      'authentication failures from this address are throttled',
    );
    await this.bus.publish(AuthThrottle.CHANNEL, JSON.stringify({ address, retryMs: leftMs }));
  }

  private block(address: string, until: number): void {
    if (this.blocked.size > 100_000) this.sweep(this.blocked, (v) => v);
    if ((this.blocked.get(address) ?? 0) < until) this.blocked.set(address, until);
  }

  private countLocally(address: string, now: number, window: number): [number, number] {
    if (this.counts.size > 100_000) this.sweep(this.counts, (v) => v.resetAt);
    let c = this.counts.get(address);
    if (!c || c.resetAt <= now) this.counts.set(address, (c = { n: 0, resetAt: now + window }));
    c.n++;
    return [c.n, c.resetAt - now];
  }

  private sweep<V>(map: Map<string, V>, until: (v: V) => number): void {
    const now = this.clock.now();
    for (const [k, v] of map) if (until(v) <= now) map.delete(k);
  }
}

/**
 * The API key of the request → its caller, with failures counted against the client address and a
 * throttled address refused (429) before the key is looked at.
 */
export async function authenticateKey(req: Request, keys: ApiKeysService, throttle: AuthThrottle): Promise<Caller> {
  throttle.assertAllowed(req);
  const apiKey = extractApiKey(req.headers);
  try {
    return await keys.authenticate(apiKey);
  } catch (err) {
    // a wrong or revoked key is a guess; a missing one is not
    if (apiKey && err instanceof ApiError && err.status === 401) await throttle.failed(clientAddress(req), 'api_key');
    throw err;
  }
}

/** Checks `Authorization: Bearer <ADMIN_TOKEN>` (constant time) the same way: 429 when throttled, failures counted. */
export async function checkAdminToken(req: Request, token: string, throttle: AuthThrottle): Promise<void> {
  throttle.assertAllowed(req);
  const header = req.headers.authorization ?? '';
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  if (m && secretsEqual(m[1], token)) return;
  if (header.trim() !== '') await throttle.failed(clientAddress(req), 'admin_token');
  throw ApiError.unauthorized('Invalid or missing admin token.', 'invalid_admin_token');
}
