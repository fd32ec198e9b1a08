import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

export type ReservationStatus = 'open' | 'settled' | 'released' | 'expired';

/** Money held for one request in flight: settled (charged) or released, or expired after a crash. */
@Entity('reservations')
export class ReservationEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ name: 'request_id', type: 'varchar', length: 128 }) requestId: string;
  @Column({ name: 'amount_micro', type: 'bigint', transformer: bigintNumber }) amountMicro: number;
  @Column({ type: 'varchar', length: 16 }) status: ReservationStatus;
  @Column({ name: 'charged_micro', type: 'bigint', nullable: true, transformer: bigintNumber }) chargedMicro:
    number | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'expires_at', type: 'bigint', transformer: bigintNumber }) expiresAt: number;
  @Column({ name: 'api_key_id', type: 'varchar', length: 36, nullable: true }) apiKeyId?: string | null;
  /** the budget periods this hold counts against ('d:YYYY-MM-DD', 'm:YYYY-MM'), null when the key had no such budget */
  @Column({ name: 'budget_day', type: 'varchar', length: 16, nullable: true }) budgetDay?: string | null;
  @Column({ name: 'budget_month', type: 'varchar', length: 16, nullable: true }) budgetMonth?: string | null;
  @Column({ name: 'closed_at', type: 'bigint', nullable: true, transformer: bigintNumber }) closedAt: number | null;
}
