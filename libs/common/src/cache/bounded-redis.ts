import { Logger } from '@nestjs/common';
import { createClient } from '@redis/client';
import { Clock } from '../clock';

function connect(url: string | undefined) {
  return createClient({
    url,
    socket: { connectTimeout: 1000, reconnectStrategy: (n: number) => Math.min(1000, 50 * 2 ** n) },
    disableOfflineQueue: true,
  });
}
export type RedisClient = ReturnType<typeof connect>;

/**
 * Closes a client at shutdown, also one whose first connection is still being made. @redis/client
 * cannot abort a connection attempt in flight (a socket that opens after destroy() stays open and
 * keeps the process alive), so the attempt is let finish — bounded, since with Redis down it never
 * does — and the client is closed after it: QUIT when ready (unless `destroy`: a subscriber has nothing to
 * flush, and waiting for its QUIT reply could hang), the socket destroyed otherwise.
 */
export async function closeRedisClient(
  c: RedisClient,
  connecting: Promise<unknown> | null,
  how: 'quit' | 'destroy' = 'quit',
): Promise<void> {
  if (connecting) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      connecting.catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000))),
    ]);
    clearTimeout(timer);
  }
  if (!c.isOpen) return;
  try {
    if (c.isReady && how === 'quit') await c.quit();
    else c.destroy();
  } catch {
    if (c.isOpen) c.destroy();
  }
}

export interface BoundedRedisOptions {
  /** how long one call (connection included) may take before it answers null */
  timeoutMs: number;
  /** logs "<what> unavailable…" at most every 10 s while Redis cannot answer */
  logger: Logger;
  what: string;
  /** time for the log throttle (default: the system clock) */
  clock?: Clock;
  /**
   * Calls made while the first connection is being made wait for it (bounded by timeoutMs) instead of
   * failing at once: for stores where a null answer changes a decision (rate limits fail open).
   */
  waitForFirstConnection?: boolean;
}

/**
 * A Redis client for stores that must never hold a request up: every call is bounded in time and
 * answers null when Redis cannot answer (the caller then degrades: no cache hit, no shared limit).
 * Connects lazily once; @redis/client reconnects by itself after an outage. No offline queue.
 */
const SYSTEM_CLOCK = new Clock();

export class BoundedRedis {
  private client: RedisClient | null = null;
  private connecting: Promise<RedisClient> | null = null;
  private lastWarnAt = 0;
  /** closed at shutdown: a call still in flight then must not open a new connection */
  private closed = false;

  constructor(
    private readonly url: string | undefined,
    private readonly options: BoundedRedisOptions,
  ) {}

  /** One bounded call; null when Redis is unreachable, not ready or slower than the timeout. */
  async call<T>(op: (c: RedisClient) => Promise<T>): Promise<T | null> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.redis().then(op),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('redis call timed out')), this.options.timeoutMs);
          timer.unref();
        }),
      ]);
    } catch (err) {
      const now = (this.options.clock ?? SYSTEM_CLOCK).now();
      if (now - this.lastWarnAt > 10_000) {
        this.lastWarnAt = now;
        this.options.logger.warn(`${this.options.what} unavailable: ${(err as Error).message}`);
      }
      return null;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = null;
    if (c) await closeRedisClient(c, this.connecting);
  }

  private redis(): Promise<RedisClient> {
    if (this.closed) return Promise.reject(new Error('redis client closed'));
    if (this.connecting && this.options.waitForFirstConnection) return this.connecting;
    if (this.client)
      return this.client.isReady ? Promise.resolve(this.client) : Promise.reject(new Error('redis not ready'));
    this.connecting ??= (async () => {
      const c = connect(this.url);
      c.on('error', () => undefined);
      this.client = c;
      await c.connect();
      return c;
    })().finally(() => (this.connecting = null));
    return this.connecting;
  }
}
