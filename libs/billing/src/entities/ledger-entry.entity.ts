import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

export type LedgerKind = 'charge' | 'top_up';

/**
 * Append-only. amount_micro is the signed balance change (negative for charges, positive for
 * top-ups); balance_after_micro is the team balance right after it, so replaying a team's entries
 * in id order from zero reproduces every balance.
 */
@Entity('ledger_entries')
export class LedgerEntryEntity {
  /** bigint: pg returns it as a string, SQLite as a number — read through Number() */
  @PrimaryGeneratedColumn({ type: 'bigint' }) id: number | string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 16 }) kind: LedgerKind;
  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true }) requestId: string | null;
  @Column({ type: 'varchar', length: 200, nullable: true }) reference: string | null;
  @Column({ name: 'api_key_id', type: 'varchar', length: 36, nullable: true }) apiKeyId: string | null;
  @Column({ type: 'varchar', length: 100, nullable: true }) endpoint: string | null;
  @Column({ type: 'varchar', length: 200, nullable: true }) model: string | null;
  @Column({ name: 'prompt_tokens', type: 'integer' }) promptTokens: number;
  @Column({ name: 'completion_tokens', type: 'integer' }) completionTokens: number;
  @Column({ name: 'total_tokens', type: 'integer' }) totalTokens: number;
  @Column({ name: 'amount_micro', type: 'bigint', transformer: bigintNumber }) amountMicro: number;
  @Column({ name: 'balance_after_micro', type: 'bigint', transformer: bigintNumber }) balanceAfterMicro: number;
  @Column({ type: 'text', nullable: true }) details: string | null;
  /** the reservation a charge settled (unique: a retried settle never charges twice) */
  @Column({ name: 'reservation_id', type: 'varchar', length: 36, nullable: true }) reservationId: string | null;
  /** USD-priced models: the CBR rate (RUB per USD, decimal string) and its date the charge used */
  @Column({ name: 'fx_rate', type: 'varchar', length: 32, nullable: true }) fxRate: string | null;
  @Column({ name: 'fx_date', type: 'varchar', length: 10, nullable: true }) fxDate: string | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}
