import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ApiError, BoundedRedis, Clock, RedisClient } from '@app/common';
import { AppConfig } from '@app/config';
import { SessionEntity } from './entities/session.entity';
import { SessionStore } from './session-store';

/**
 * Sessions in Redis (REDIS_URL configured): `<prefix>:session:<token hash>` holds the session as
 * JSON, `<prefix>:session-id:<id>` the token hash, `<prefix>:user-sessions:<user id>` the ids of the
 * user's sessions. Each session's keys expire when it would end — at its absolute lifetime or after
 * the idle timeout, whichever comes first — and every activity (at most once a minute) moves that
 * point. While Redis cannot answer, a request made with a session cookie and sign-in answer 503
 * session_store_unavailable (API keys keep working).
 */
export function sessionStoreUnavailable(): ApiError {
  return ApiError.unavailable('The session store is unavailable; try again shortly.', 'session_store_unavailable');
}

@Injectable()
export class RedisSessionStore extends SessionStore implements OnApplicationShutdown {
  private readonly redis: BoundedRedis;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    super();
    this.redis = new BoundedRedis(config.redisUrl, {
      timeoutMs: 1000,
      logger: new Logger('Sessions'),
      what: 'session store',
      waitForFirstConnection: true,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.close();
  }

  private k(kind: 'session' | 'session-id' | 'user-sessions', id: string): string {
    return `${this.config.redisKeyPrefix}:${kind}:${id}`;
  }

  /** ms until the session ends if nothing happens: its lifetime or the idle timeout, whichever is first. */
  private ttl(s: SessionEntity): number {
    const end = Math.min(s.expiresAt, s.lastSeenAt + this.config.accounts.sessionIdleTimeoutMs);
    return Math.max(1, end - this.clock.now());
  }

  /** A call whose answer matters (a write, a revocation): 503 while Redis cannot answer. */
  private async must<T>(op: (c: RedisClient) => Promise<T>): Promise<T> {
    const r = await this.redis.call(op);
    if (r === null) throw sessionStoreUnavailable();
    return r;
  }

  private async write(s: SessionEntity): Promise<void> {
    const ttl = this.ttl(s);
    await this.must((c) =>
      c
        .multi()
        .set(this.k('session', s.tokenHash), JSON.stringify(s))
        .pExpire(this.k('session', s.tokenHash), ttl)
        .set(this.k('session-id', s.id), s.tokenHash)
        .pExpire(this.k('session-id', s.id), ttl)
        .sAdd(this.k('user-sessions', s.userId), s.id)
        .pExpire(this.k('user-sessions', s.userId), this.config.accounts.sessionMaxAgeMs)
        .exec(),
    );
  }

  insert(s: SessionEntity): Promise<void> {
    return this.write(s);
  }

  /** 503 session_store_unavailable while Redis cannot answer (a session is not taken for absent). */
  async findByHash(tokenHash: string): Promise<SessionEntity | null> {
    const { raw } = await this.must(async (c) => ({ raw: await c.get(this.k('session', tokenHash)) }));
    return typeof raw === 'string' ? (JSON.parse(raw) as SessionEntity) : null;
  }

  async touch(s: SessionEntity, now: number): Promise<void> {
    // only while the session still exists: a session ended meanwhile is not brought back
    const live = await this.redis.call((c) => c.exists(this.k('session', s.tokenHash)));
    if (live) await this.write({ ...s, lastSeenAt: now });
  }

  async delete(s: SessionEntity): Promise<void> {
    await this.must((c) =>
      c
        .multi()
        .del([this.k('session', s.tokenHash), this.k('session-id', s.id)])
        .sRem(this.k('user-sessions', s.userId), s.id)
        .exec(),
    );
  }

  async deleteOfUser(userId: string, id: string): Promise<boolean> {
    const member = await this.must((c) => c.sIsMember(this.k('user-sessions', userId), id));
    if (!member) return false;
    const { hash } = await this.must(async (c) => ({ hash: await c.get(this.k('session-id', id)) }));
    await this.must((c) =>
      c
        .multi()
        .del([this.k('session-id', id), ...(typeof hash === 'string' ? [this.k('session', hash)] : [])])
        .sRem(this.k('user-sessions', userId), id)
        .exec(),
    );
    return typeof hash === 'string';
  }

  async deleteAllOfUser(userId: string, keep: string | null): Promise<void> {
    const ids = await this.must((c) => c.sMembers(this.k('user-sessions', userId)));
    for (const id of ids) if (id !== keep) await this.deleteOfUser(userId, id);
  }

  async listOfUser(userId: string): Promise<SessionEntity[]> {
    const ids = (await this.redis.call((c) => c.sMembers(this.k('user-sessions', userId)))) ?? [];
    const out: SessionEntity[] = [];
    for (const id of ids) {
      const hash = await this.redis.call((c) => c.get(this.k('session-id', id)));
      const s = typeof hash === 'string' ? await this.findByHash(hash) : null;
      if (s) out.push(s);
      else await this.redis.call((c) => c.sRem(this.k('user-sessions', userId), id));
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Redis expires sessions itself. */
  deleteStale(): Promise<number> {
    return Promise.resolve(0);
  }
}
