import { Logger } from '@nestjs/common';
import { BoundedRedis, ClusterBus } from '@app/common';
import { AppConfig } from '@app/config';

const redisUrl = process.env.TEST_REDIS_URL;
const run = redisUrl ? it : it.skip;

/** Sockets of this process connected to the test Redis that are still open. */
function openRedisSockets(): number {
  const port = Number(new URL(redisUrl ?? 'redis://127.0.0.1:6379').port || 6379);
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter(
    (h) => (h as { remotePort?: number }).remotePort === port && !(h as { destroyed?: boolean }).destroyed,
  ).length;
}

async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
}

/**
 * Shutdown closes every Redis connection, also one still being made when the app stops (a socket that
 * opened after close() kept the process alive: a replica that never exits on SIGTERM).
 */
describe('Redis clients at shutdown', () => {
  run('a BoundedRedis closed while its first connection is being made leaves no socket open', async () => {
    const before = openRedisSockets();
    for (let i = 0; i < 5; i++) {
      const r = new BoundedRedis(redisUrl, { timeoutMs: 5000, logger: new Logger('test'), what: 'test store' });
      const call = r.call((c) => c.ping());
      await r.close();
      await call;
      // after close no call opens a connection again
      expect(await r.call((c) => c.ping())).toBeNull();
    }
    await settle();
    expect(openRedisSockets()).toBe(before);
  });

  run('a ClusterBus shut down while it subscribes leaves no socket open and subscribes no more', async () => {
    const before = openRedisSockets();
    const config = AppConfig.fromEnv({ REDIS_URL: redisUrl, REDIS_KEY_PREFIX: 'gwtest-bus-shutdown:' });
    for (let i = 0; i < 5; i++) {
      const bus = new ClusterBus(config);
      const subscribed = bus.subscribe('test', () => undefined);
      await bus.onApplicationShutdown();
      await subscribed;
      await bus.subscribe('other', () => undefined);
    }
    await settle();
    expect(openRedisSockets()).toBe(before);
  });

  run('a connected BoundedRedis answers, then closes its socket', async () => {
    const before = openRedisSockets();
    const r = new BoundedRedis(redisUrl, { timeoutMs: 5000, logger: new Logger('test'), what: 'test store' });
    expect(await r.call((c) => c.ping())).toBe('PONG');
    expect(openRedisSockets()).toBe(before + 1);
    await r.close();
    await settle();
    expect(openRedisSockets()).toBe(before);
  });
});
