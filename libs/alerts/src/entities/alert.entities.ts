import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** A team's alert rule: its kind's parameters and its channels (JSON, channel secrets sealed). */
@Entity('alert_rules')
export class AlertRuleEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 16 }) kind: string;
  @Column({ type: 'text' }) params: string;
  @Column({ type: 'text' }) channels: string;
  @Column({ type: 'integer' }) enabled: number;
  /** which crossing of a balance / error-rate threshold the next event belongs to */
  @Column({ type: 'integer' }) crossing: number;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}

/** A fired alert: at most one per (rule, threshold, period key). */
@Entity('alert_events')
export class AlertEventEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'rule_id', type: 'varchar', length: 40 }) ruleId: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 16 }) kind: string;
  @Column({ type: 'varchar', length: 32 }) threshold: string;
  @Column({ name: 'period_key', type: 'varchar', length: 32 }) periodKey: string;
  @Column({ type: 'text' }) payload: string;
  @Column({ name: 'fired_at', type: 'bigint', transformer: bigintNumber }) firedAt: number;
}

/** One channel's delivery of an event. */
@Entity('alert_deliveries')
export class AlertDeliveryEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'event_id', type: 'varchar', length: 40 }) eventId: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ name: 'channel_type', type: 'varchar', length: 16 }) channelType: string;
  @Column({ type: 'text' }) channel: string;
  /** pending | delivered | failed */
  @Column({ type: 'varchar', length: 16 }) status: string;
  @Column({ type: 'integer' }) attempts: number;
  @Column({ name: 'next_attempt_at', type: 'bigint', transformer: bigintNumber }) nextAttemptAt: number;
  @Column({ name: 'lease_until', type: 'bigint', nullable: true, transformer: bigintNumber }) leaseUntil: number | null;
  @Column({ name: 'last_error', type: 'text', nullable: true }) lastError: string | null;
  @Column({ name: 'delivered_at', type: 'bigint', nullable: true, transformer: bigintNumber })
  deliveredAt: number | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}

/** One attempt of a delivery. */
@Entity('alert_delivery_attempts')
export class AlertDeliveryAttemptEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'delivery_id', type: 'varchar', length: 40 }) deliveryId: string;
  @Column({ type: 'integer' }) attempt: number;
  @Column({ type: 'bigint', transformer: bigintNumber }) at: number;
  @Column({ type: 'integer' }) ok: number;
  @Column({ name: 'status_code', type: 'integer', nullable: true }) statusCode: number | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ name: 'duration_ms', type: 'integer' }) durationMs: number;
}
