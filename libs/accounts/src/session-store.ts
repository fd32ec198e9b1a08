import type { TransactionManager } from '@app/database';
import { SessionEntity } from './entities/session.entity';

/**
 * Where sessions live: the database, or Redis when REDIS_URL is configured (every replica sees the
 * same sessions either way). Writes take the transaction of the change's audit record: the database
 * store writes in it; the Redis store writes as the transaction's last step, so a failed Redis
 * write rolls the audit record back (see docs/decisions/sessions-in-redis.md).
 */
export abstract class SessionStore {
  abstract insert(s: SessionEntity, m: TransactionManager): Promise<void>;
  abstract findByHash(tokenHash: string): Promise<SessionEntity | null>;
  /** Records activity (`lastSeenAt = now`); the idle timeout counts from it. */
  abstract touch(s: SessionEntity, now: number): Promise<void>;
  abstract delete(s: SessionEntity): Promise<void>;
  /** Ends one session of the user; false when the user has no such session. */
  abstract deleteOfUser(userId: string, id: string, m: TransactionManager): Promise<boolean>;
  /** Ends every session of the user except `keep`. */
  abstract deleteAllOfUser(userId: string, keep: string | null, m: TransactionManager): Promise<void>;
  /** The user's live sessions, newest first. */
  abstract listOfUser(userId: string): Promise<SessionEntity[]>;
  /** Deletes sessions past their lifetime or idle too long; the number deleted. */
  abstract deleteStale(now: number, idleMs: number): Promise<number>;
}
