import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** A team workspace: the billing account every request is charged to. */
@Entity('teams')
export class TeamEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  /** µRUB */
  @Column({ name: 'balance_micro', type: 'bigint', transformer: bigintNumber }) balanceMicro: number;
  /** µRUB held by open reservations */
  @Column({ name: 'reserved_micro', type: 'bigint', transformer: bigintNumber }) reservedMicro: number;
  /** requests / tokens per minute for the whole team; null = the env default (DEFAULT_TEAM_RPM_LIMIT / DEFAULT_TEAM_TPM_LIMIT) */
  @Column({ name: 'rpm_limit', type: 'integer', nullable: true }) rpmLimit?: number | null;
  @Column({ name: 'tpm_limit', type: 'integer', nullable: true }) tpmLimit?: number | null;
  /** request log: none | metadata | full (null = metadata); retention in days (null = the env default) */
  @Column({ name: 'request_log_bodies', type: 'varchar', length: 16, nullable: true }) requestLogBodies?: string | null;
  @Column({ name: 'request_log_retention_days', type: 'integer', nullable: true }) requestLogRetentionDays?:
    number | null;
  @Column({ name: 'request_log_body_retention_days', type: 'integer', nullable: true }) requestLogBodyRetentionDays?:
    number | null;
  /** /v1/responses may use MCP servers the team has not registered (null = false) */
  @Column({ name: 'mcp_adhoc_servers', type: 'boolean', nullable: true }) mcpAdhocServers?: boolean | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  /** set when the team was deleted: the row stays for its ledger history, the team answers 404 */
  @Column({ name: 'deleted_at', type: 'bigint', nullable: true, transformer: bigintNumber }) deletedAt?: number | null;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}
