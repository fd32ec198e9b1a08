import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** One CBR rate: RUB per unit of `currency` set for `rateDate` (never changes once published). */
@Entity('fx_rates')
export class FxRateEntity {
  @PrimaryColumn({ type: 'varchar', length: 3 }) currency: string;
  /** YYYY-MM-DD, the date the CBR set the rate for */
  @PrimaryColumn({ name: 'rate_date', type: 'varchar', length: 10 }) rateDate: string;
  /** RUB per one unit (Value / Nominal), decimal string */
  @Column({ type: 'varchar', length: 32 }) rate: string;
  @Column({ type: 'integer' }) nominal: number;
  /** `Value` as published (decimal point) */
  @Column({ type: 'varchar', length: 32 }) value: string;
  @Column({ name: 'fetched_at', type: 'bigint', transformer: bigintNumber }) fetchedAt: number;
}

/** The fetcher's state, shared by the replicas: last attempt, last success, the stale alert. */
@Entity('fx_status')
export class FxStatusEntity {
  @PrimaryColumn({ type: 'varchar', length: 3 }) currency: string;
  @Column({ name: 'last_attempt_at', type: 'bigint', nullable: true, transformer: bigintNumber })
  lastAttemptAt: number | null;
  @Column({ name: 'last_success_at', type: 'bigint', nullable: true, transformer: bigintNumber })
  lastSuccessAt: number | null;
  @Column({ name: 'last_error', type: 'text', nullable: true }) lastError: string | null;
  /** set once when the rate went stale (FX_STALE_HOURS without a successful fetch); cleared by the next success */
  @Column({ name: 'alert_raised_at', type: 'bigint', nullable: true, transformer: bigintNumber })
  alertRaisedAt: number | null;
}

export const FX_ENTITIES = [FxRateEntity, FxStatusEntity];
