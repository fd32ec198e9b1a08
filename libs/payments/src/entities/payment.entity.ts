import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** creating: YooKassa not answered yet; failed: its creation failed (never paid). */
export type PaymentStatus = 'creating' | 'pending' | 'succeeded' | 'canceled' | 'failed';

/** A self-service top-up: one local payment and its YooKassa payment. */
@Entity('payments')
export class PaymentEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 16 }) provider: string;
  @Column({ name: 'provider_payment_id', type: 'varchar', length: 64, nullable: true })
  providerPaymentId: string | null;
  @Column({ type: 'varchar', length: 16 }) status: PaymentStatus;
  @Column({ name: 'amount_micro', type: 'bigint', transformer: bigintNumber }) amountMicro: number;
  @Column({ name: 'credited_micro', type: 'bigint', nullable: true, transformer: bigintNumber })
  creditedMicro: number | null;
  @Column({ name: 'confirmation_url', type: 'text', nullable: true }) confirmationUrl: string | null;
  @Column({ name: 'receipt_email', type: 'varchar', length: 320, nullable: true }) receiptEmail: string | null;
  @Column({ name: 'cancellation_reason', type: 'varchar', length: 64, nullable: true })
  cancellationReason: string | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ name: 'created_by', type: 'varchar', length: 64, nullable: true }) createdBy: string | null;
  @Column({ type: 'integer' }) checks: number;
  @Column({ name: 'next_check_at', type: 'bigint', nullable: true, transformer: bigintNumber })
  nextCheckAt: number | null;
  @Column({ name: 'lease_until', type: 'bigint', nullable: true, transformer: bigintNumber })
  leaseUntil: number | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
  @Column({ name: 'paid_at', type: 'bigint', nullable: true, transformer: bigintNumber }) paidAt: number | null;
}
