import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** A team's registered MCP server: where it is, its sealed headers, and the tools last read from it. */
@Entity('mcp_servers')
export class McpServerEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 64 }) name: string;
  @Column({ type: 'text' }) url: string;
  /** streamable_http | sse */
  @Column({ type: 'varchar', length: 16 }) transport: string;
  /** JSON object: header name → sealed value */
  @Column({ type: 'text' }) headers: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ name: 'price_per_call_micro', type: 'bigint', transformer: bigintNumber }) pricePerCallMicro: number;
  /** unknown | ok | error */
  @Column({ type: 'varchar', length: 16 }) status: string;
  @Column({ name: 'status_error', type: 'text', nullable: true }) statusError: string | null;
  /** JSON array of McpToolInfo */
  @Column({ type: 'text', nullable: true }) tools: string | null;
  @Column({ name: 'tools_refreshed_at', type: 'bigint', nullable: true, transformer: bigintNumber })
  toolsRefreshedAt: number | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}
