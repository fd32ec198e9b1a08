import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { createClient } from '@redis/client';
import { AppConfig } from '@app/config';
import { BoundedRedis, closeRedisClient, RedisClient } from './bounded-redis';

type Handler = (message: string) => void;

/** Replicas in one process (workers, tests) that share a database share the in-process bus. */
const LOCAL_BUSES = new Map<string, EventEmitter>();

/**
 * Messages every replica must see at once (a revoked key, a throttled address): Redis pub/sub when
 * REDIS_URL is set, otherwise an in-process emitter shared by the replicas of this process that use
 * the same database. Handlers of the publishing replica run synchronously, before publish returns;
 * other replicas get the message as soon as Redis delivers it. Never throws: an outage is logged and
 * the message is lost (callers keep their own bounded fallbacks, e.g. cache TTLs).
 */
@Injectable()
export class ClusterBus implements OnApplicationShutdown {
  private readonly logger = new Logger('ClusterBus');
  private readonly origin = randomBytes(6).toString('hex');
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly local: EventEmitter | null;
  private readonly publisher: BoundedRedis | null;
  private subscriber: RedisClient | null = null;
  private subscribing: Promise<void> | null = null;
  /** shut down: a subscription requested afterwards opens no connection */
  private closed = false;
  private readonly prefix: string;

  constructor(private readonly config: AppConfig) {
    this.prefix = `${config.redisKeyPrefix}:bus:`;
    if (config.redisUrl) {
      this.local = null;
      this.publisher = new BoundedRedis(config.redisUrl, {
        timeoutMs: 500,
        logger: this.logger,
        what: 'cluster bus (other replicas learn of the change late)',
      });
    } else {
      this.publisher = null;
      const ns =
        config.databaseKind === 'postgres'
          ? `${config.databaseUrl}|${config.databaseSchema ?? ''}`
          : `sqlite:${resolve(config.dataDir)}`;
      let bus = LOCAL_BUSES.get(ns);
      if (!bus) LOCAL_BUSES.set(ns, (bus = new EventEmitter().setMaxListeners(0)));
      this.local = bus;
    }
  }

  /** Runs `handler` for every message on `channel`, from this replica and the others. */
  async subscribe(channel: string, handler: Handler): Promise<void> {
    let set = this.handlers.get(channel);
    if (!set) {
      this.handlers.set(channel, (set = new Set()));
      if (this.local)
        this.local.on(channel, (origin: string, message: string) => this.deliver(channel, origin, message));
      else await this.listen(channel);
    }
    set.add(handler);
  }

  /** Delivers `message` to this replica's handlers now and to the other replicas' through the bus. */
  async publish(channel: string, message: string): Promise<void> {
    this.deliver(channel, null, message);
    if (this.local) {
      this.local.emit(channel, this.origin, message);
      return;
    }
    const ok = await this.publisher!.call((c) => c.publish(this.prefix + channel, `${this.origin} ${message}`));
    if (ok === null) this.logger.warn({ channel }, 'could not publish to the other replicas');
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.local) for (const channel of this.handlers.keys()) this.local.removeAllListeners(channel);
    this.closed = true;
    await this.publisher?.close();
    const s = this.subscriber;
    this.subscriber = null;
    if (s) await closeRedisClient(s, this.subscribing, 'destroy');
  }

  /** Handlers run for other replicas' messages (own ones ran at publish). */
  private deliver(channel: string, origin: string | null, message: string): void {
    if (origin === this.origin) return;
    for (const h of this.handlers.get(channel) ?? []) {
      try {
        h(message);
      } catch (err) {
        this.logger.error({ err, channel }, 'bus handler failed');
      }
    }
  }

  private async listen(channel: string): Promise<void> {
    if (this.closed) return;
    this.subscribing ??= (async () => {
      const c = createClient({
        url: this.config.redisUrl,
        socket: { connectTimeout: 1000, reconnectStrategy: (n: number) => Math.min(1000, 50 * 2 ** n) },
      });
      c.on('error', (err: unknown) => this.logger.debug({ err }, 'cluster bus subscriber error'));
      this.subscriber = c;
      await c.connect();
    })().catch((err: unknown) => {
      this.logger.warn({ err }, 'cluster bus unavailable: other replicas are not told of changes');
    });
    await this.subscribing;
    const c = this.subscriber;
    if (!c?.isOpen) return;
    await c
      .subscribe(this.prefix + channel, (raw: string) => {
        const sp = raw.indexOf(' ');
        this.deliver(channel, raw.slice(0, sp), raw.slice(sp + 1));
      })
      .catch((err: unknown) => this.logger.warn({ err, channel }, 'could not subscribe'));
  }
}
