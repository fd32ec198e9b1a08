import { randomBytes } from 'node:crypto';
import { AppConfig } from '@app/config';
import { BucketCharge, MemoryRateLimiter, RateLimiter, RedisRateLimiter } from '@app/governance';
import { deleteRedisPrefix } from '../support/test-env';

const redisUrl = process.env.TEST_REDIS_URL;

/** The same decisions from the Redis script and the in-process limiter, and atomicity under concurrency. */
describe('rate limiter stores', () => {
  const prefix = `gwtest-rl-${randomBytes(4).toString('hex')}`;
  // a generous per-call timeout: this spec checks the script's decisions, not the fail-open path (a loaded machine may be slow)
  const redis = redisUrl
    ? new RedisRateLimiter(AppConfig.fromEnv({ REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix }), 10_000)
    : null;
  afterAll(async () => {
    await redis?.onApplicationShutdown();
    if (redisUrl) await deleteRedisPrefix(redisUrl, prefix);
  });
  const stores: Array<[string, () => RateLimiter | null]> = [
    ['in-process', () => new MemoryRateLimiter()],
    ['redis', () => redis],
  ];

  describe.each(stores)('%s', (name, make) => {
    const limiter = make();
    const run = limiter ? it : it.skip;
    const now = 1_800_000_000_000;

    run('a limit that does not divide a minute (7/min): exactly 7 at once, then one per 8.57 s', async () => {
      const c: BucketCharge = { key: `${name}:seven`, limit: 7, cost: 1 };
      const seen: boolean[] = [];
      for (let i = 0; i < 9; i++) seen.push((await limiter!.consume([c], now))!.allowed);
      expect(seen).toEqual([true, true, true, true, true, true, true, false, false]);
      expect((await limiter!.consume([c], now + 8_571))!.allowed).toBe(false);
      expect((await limiter!.consume([c], now + 8_572))!.allowed).toBe(true);
    });

    run('200 concurrent decisions on one bucket of 50: exactly 50 admitted; remaining counts down', async () => {
      const c: BucketCharge = { key: `${name}:fifty`, limit: 50, cost: 1 };
      const out = await Promise.all(Array.from({ length: 200 }, () => limiter!.consume([c], now)));
      expect(out.filter((d) => d!.allowed)).toHaveLength(50);
      expect(
        out
          .filter((d) => d!.allowed)
          .map((d) => d!.buckets[0].remaining)
          .sort((x, y) => x - y),
      ).toEqual(Array.from({ length: 50 }, (_, i) => i));
      const refused = out.find((d) => !d!.allowed)!;
      expect(refused.buckets[0]).toMatchObject({ remaining: 0, retryMs: 1200 });
    });

    run('adjust corrects a token bucket both ways', async () => {
      const c: BucketCharge = { key: `${name}:tokens`, limit: 100, cost: 30 };
      expect((await limiter!.consume([c], now))!.buckets[0].remaining).toBe(70);
      await limiter!.adjust({ ...c, cost: 50 }, now);
      expect((await limiter!.consume([{ ...c, cost: 0 }], now))!.buckets[0].remaining).toBe(20);
      await limiter!.adjust({ ...c, cost: -1000 }, now);
      expect((await limiter!.consume([{ ...c, cost: 0 }], now))!.buckets[0].remaining).toBe(100);
    });
  });
});
