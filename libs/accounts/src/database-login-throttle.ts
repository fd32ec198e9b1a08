import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RawSql } from '@app/database';
import { AppConfig } from '@app/config';
import { LoginThrottleEntity } from './entities/login-throttle.entity';
import { LoginThrottleStore, ThrottleCount } from './login-throttle';

/** How often a process deletes counters whose window has ended. */
const PURGE_EVERY_MS = 60_000;

/**
 * Sign-in throttle counters in the database, for Postgres without REDIS_URL: every replica counts
 * in the same rows. Each attempt is one atomic upsert per key (a new window when the old one has
 * ended, otherwise +1) that answers the count and the window's end, so concurrent attempts on any
 * replica are counted one after the other before any is evaluated. When the database cannot answer,
 * sign-in is not refused for it (as with Redis).
 */
@Injectable()
export class DatabaseLoginThrottleStore extends LoginThrottleStore {
  private readonly log = new Logger('LoginThrottle');
  private readonly sql: RawSql;
  private readonly table: string;
  private purgedAt = 0;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly config: AppConfig,
  ) {
    super();
    this.sql = new RawSql(ds);
    this.table = this.sql.table(LoginThrottleEntity);
  }

  async hit(keys: string[], now: number): Promise<ThrottleCount[] | null> {
    const until = now + this.config.accounts.loginThrottleWindowMs;
    try {
      await this.purge(now);
      const out: ThrottleCount[] = [];
      // one statement per key, outside any transaction: each is atomic, and no two hold locks at once
      for (const key of keys) {
        const { rows } = await this.sql.exec(
          `INSERT INTO ${this.table} AS t (throttle_key, count, reset_at) VALUES ($1, 1, $2)
           ON CONFLICT (throttle_key) DO UPDATE SET
             count = CASE WHEN t.reset_at <= $3 THEN 1 ELSE t.count + 1 END,
             reset_at = CASE WHEN t.reset_at <= $3 THEN $2 ELSE t.reset_at END
           RETURNING count, reset_at`,
          [key, until, now],
        );
        out.push({ count: Number(rows[0].count), resetMs: Math.max(0, Number(rows[0].reset_at) - now) });
      }
      return out;
    } catch (err) {
      this.log.warn(`sign-in throttle store unavailable: ${(err as Error).message}`);
      return null;
    }
  }

  async unhit(key: string, now: number): Promise<void> {
    try {
      await this.sql.exec(
        `UPDATE ${this.table} SET count = count - 1 WHERE throttle_key = $1 AND count > 0 AND reset_at > $2`,
        [key, now],
      );
    } catch (err) {
      this.log.warn(`sign-in throttle store unavailable: ${(err as Error).message}`);
    }
  }

  /** Counters whose window has ended are deleted, at most once a minute per process. */
  private async purge(now: number): Promise<void> {
    if (now - this.purgedAt < PURGE_EVERY_MS) return;
    this.purgedAt = now;
    await this.sql.exec(`DELETE FROM ${this.table} WHERE reset_at <= $1`, [now]);
  }
}
