import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/**
 * One sign-in throttle counter (an account, a client address, a redemption code's user) in the
 * database: the store of the counters on Postgres without REDIS_URL, shared by every replica.
 */
@Entity('login_throttle')
export class LoginThrottleEntity {
  @PrimaryColumn({ name: 'throttle_key', type: 'varchar', length: 400 }) throttleKey: string;
  @Column({ type: 'integer' }) count: number;
  /** when the counter's window ends (ms since epoch) */
  @Column({ name: 'reset_at', type: 'bigint', transformer: bigintNumber }) resetAt: number;
}
