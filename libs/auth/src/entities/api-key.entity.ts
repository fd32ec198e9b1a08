import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** An API key is stored only as its SHA-256 hash plus a short display prefix. */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 200, nullable: true }) name: string | null;
  @Column({ type: 'varchar', length: 32 }) prefix: string;
  @Column({ name: 'key_hash', type: 'varchar', length: 64 }) keyHash: string;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'revoked_at', type: 'bigint', nullable: true, transformer: bigintNumber }) revokedAt: number | null;
  @Column({ name: 'last_used_at', type: 'bigint', nullable: true, transformer: bigintNumber }) lastUsedAt:
    number | null;
  /** requests / tokens per minute; null = the env default (DEFAULT_KEY_RPM_LIMIT / DEFAULT_KEY_TPM_LIMIT) */
  @Column({ name: 'rpm_limit', type: 'integer', nullable: true }) rpmLimit?: number | null;
  @Column({ name: 'tpm_limit', type: 'integer', nullable: true }) tpmLimit?: number | null;
  /** µRUB spend caps per UTC day / month; null = none */
  @Column({ name: 'budget_day_micro', type: 'bigint', nullable: true, transformer: bigintNumber }) budgetDayMicro?:
    number | null;
  @Column({ name: 'budget_month_micro', type: 'bigint', nullable: true, transformer: bigintNumber }) budgetMonthMicro?:
    number | null;
  /** the user who created the key (null: the admin API, the CLI or a bootstrap) */
  @Column({ name: 'created_by', type: 'varchar', length: 36, nullable: true }) createdBy?: string | null;
  /** epoch ms after which the key answers 401 key_expired; null = never */
  @Column({ name: 'expires_at', type: 'bigint', nullable: true, transformer: bigintNumber }) expiresAt?: number | null;
  /** JSON array of model keys the key may call; null or [] = all */
  @Column({ name: 'allowed_models', type: 'text', nullable: true }) allowedModels?: string | null;
  /** the key's own data policy (JSON; fields it leaves out are its team's); null = the team's */
  @Column({ name: 'data_policy', type: 'text', nullable: true }) dataPolicy?: string | null;
  /** JSON array of `server/tool` patterns the key may use through the MCP gateway; null or [] = none */
  @Column({ name: 'allowed_mcp_tools', type: 'text', nullable: true }) allowedMcpTools?: string | null;
}
