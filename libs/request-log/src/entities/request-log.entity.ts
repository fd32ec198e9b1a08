import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** 0/1 integer columns read as booleans (one column type on both drivers). */
const flag = {
  to: (v: boolean | undefined) => (v === undefined ? v : v ? 1 : 0),
  from: (v: number | boolean | null) => v === 1 || v === true,
};

/** One model call as the request log keeps it (see docs/request-log.md). */
@Entity('request_log')
export class RequestLogEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) seq?: number | string;
  /** the response's x-request-id */
  @Column({ type: 'varchar', length: 128 }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36, nullable: true }) teamId: string | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'expires_at', type: 'bigint', transformer: bigintNumber }) expiresAt: number;
  @Column({ name: 'bodies_expire_at', type: 'bigint', nullable: true, transformer: bigintNumber })
  bodiesExpireAt: number | null;
  @Column({ type: 'varchar', length: 8 }) method: string;
  @Column({ type: 'varchar', length: 200 }) endpoint: string;
  @Column({ type: 'varchar', length: 200, nullable: true }) model: string | null;
  @Column({ name: 'served_model', type: 'varchar', length: 200, nullable: true }) servedModel: string | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) provider: string | null;
  @Column({ type: 'integer' }) attempts: number;
  /** JSON array of catalog model keys */
  @Column({ name: 'fallback_path', type: 'text', nullable: true }) fallbackPath: string | null;
  @Column({ type: 'integer' }) status: number;
  @Column({ name: 'error_code', type: 'varchar', length: 100, nullable: true }) errorCode: string | null;
  @Column({ type: 'integer', transformer: flag }) stream: boolean;
  @Column({ name: 'input_tokens', type: 'integer' }) inputTokens: number;
  @Column({ name: 'output_tokens', type: 'integer' }) outputTokens: number;
  @Column({ name: 'cache_read_tokens', type: 'integer' }) cacheReadTokens: number;
  @Column({ name: 'cache_write_tokens', type: 'integer' }) cacheWriteTokens: number;
  @Column({ name: 'reasoning_tokens', type: 'integer' }) reasoningTokens: number;
  /** µRUB, = the ledger's amount */
  @Column({ name: 'cost_micro', type: 'bigint', transformer: bigintNumber }) costMicro: number;
  @Column({ name: 'latency_ms', type: 'integer' }) latencyMs: number;
  @Column({ name: 'ttft_ms', type: 'integer', nullable: true }) ttftMs: number | null;
  @Column({ name: 'api_key_id', type: 'varchar', length: 36, nullable: true }) apiKeyId: string | null;
  @Column({ name: 'key_prefix', type: 'varchar', length: 32, nullable: true }) keyPrefix: string | null;
  @Column({ name: 'session_user_id', type: 'varchar', length: 36, nullable: true }) sessionUserId: string | null;
  @Column({ name: 'end_user', type: 'varchar', length: 256, nullable: true }) endUser: string | null;
  @Column({ name: 'project_id', type: 'varchar', length: 64, nullable: true }) projectId: string | null;
  @Column({ name: 'knowledge_base_id', type: 'varchar', length: 64, nullable: true }) knowledgeBaseId: string | null;
  /** USD-priced models: the CBR rate (RUB per USD, decimal string) and its date the charge used */
  @Column({ name: 'fx_rate', type: 'varchar', length: 32, nullable: true }) fxRate: string | null;
  @Column({ name: 'fx_date', type: 'varchar', length: 10, nullable: true }) fxDate: string | null;
  @Column({ name: 'client_ip', type: 'varchar', length: 64, nullable: true }) clientIp: string | null;
  @Column({ name: 'user_agent', type: 'varchar', length: 512, nullable: true }) userAgent: string | null;
  @Column({ name: 'request_body', type: 'text', nullable: true }) requestBody: string | null;
  @Column({ name: 'response_body', type: 'text', nullable: true }) responseBody: string | null;
  @Column({ name: 'body_truncated', type: 'integer', transformer: flag }) bodyTruncated: boolean;
  /** the data policy applied and the entity counts by type (JSON; never values); null: no policy */
  @Column({ name: 'data_protection', type: 'text', nullable: true }) dataProtection?: string | null;
  /** null: a model call; `mcp_tool`: a tool call through the MCP gateway */
  @Column({ type: 'varchar', length: 16, nullable: true }) kind?: string | null;
  @Column({ name: 'mcp_server', type: 'varchar', length: 64, nullable: true }) mcpServer?: string | null;
  @Column({ name: 'mcp_tool', type: 'varchar', length: 200, nullable: true }) mcpTool?: string | null;
  /** bytes of a tool call's result */
  @Column({ type: 'integer', nullable: true }) bytes?: number | null;
}
