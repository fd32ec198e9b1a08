import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** One redemption code: only its hash is stored; used at most once. */
@Entity('redemption_codes')
export class RedemptionCodeEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'batch_id', type: 'varchar', length: 40 }) batchId: string;
  @Column({ name: 'code_hash', type: 'varchar', length: 64 }) codeHash: string;
  @Column({ type: 'varchar', length: 8 }) hint: string;
  @Column({ name: 'amount_micro', type: 'bigint', transformer: bigintNumber }) amountMicro: number;
  @Column({ type: 'text', nullable: true }) note: string | null;
  @Column({ name: 'expires_at', type: 'bigint', nullable: true, transformer: bigintNumber }) expiresAt: number | null;
  @Column({ name: 'disabled_at', type: 'bigint', nullable: true, transformer: bigintNumber })
  disabledAt: number | null;
  @Column({ name: 'used_at', type: 'bigint', nullable: true, transformer: bigintNumber }) usedAt: number | null;
  @Column({ name: 'used_by_team', type: 'varchar', length: 36, nullable: true }) usedByTeam: string | null;
  @Column({ name: 'used_by_user', type: 'varchar', length: 64, nullable: true }) usedByUser: string | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}
