import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { Brackets, DataSource, Repository, SelectQueryBuilder } from 'typeorm';
import { RawSql } from '@app/database';
import { RequestLogEntity } from './entities/request-log.entity';

/** rows per INSERT statement (keeps every batch under both drivers' parameter limits) */
const INSERT_CHUNK = 250;

/** The columns written, in the order `pushRow` appends their values. */
const COLUMNS = [
  'id',
  'team_id',
  'created_at',
  'expires_at',
  'bodies_expire_at',
  'method',
  'endpoint',
  'model',
  'served_model',
  'provider',
  'attempts',
  'fallback_path',
  'status',
  'error_code',
  'stream',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'cost_micro',
  'fx_rate',
  'fx_date',
  'latency_ms',
  'ttft_ms',
  'api_key_id',
  'key_prefix',
  'session_user_id',
  'end_user',
  'project_id',
  'knowledge_base_id',
  'client_ip',
  'user_agent',
  'request_body',
  'response_body',
  'body_truncated',
  'data_protection',
  'kind',
  'mcp_server',
  'mcp_tool',
  'bytes',
] as const;

/** Postgres casts of the non-text columns (the JSON values arrive as text). */
const PG_TYPES: Partial<Record<(typeof COLUMNS)[number], string>> = {
  created_at: 'bigint',
  expires_at: 'bigint',
  bodies_expire_at: 'bigint',
  attempts: 'integer',
  status: 'integer',
  stream: 'integer',
  input_tokens: 'integer',
  output_tokens: 'integer',
  cache_read_tokens: 'integer',
  cache_write_tokens: 'integer',
  reasoning_tokens: 'integer',
  cost_micro: 'bigint',
  latency_ms: 'integer',
  ttft_ms: 'integer',
  body_truncated: 'integer',
  bytes: 'integer',
};

function pushRow(p: unknown[], r: RequestLogEntity): void {
  p.push(
    r.id,
    r.teamId,
    r.createdAt,
    r.expiresAt,
    r.bodiesExpireAt,
    r.method,
    r.endpoint,
    r.model,
    r.servedModel,
    r.provider,
    r.attempts,
    r.fallbackPath,
    r.status,
    r.errorCode,
    r.stream ? 1 : 0,
    r.inputTokens,
    r.outputTokens,
    r.cacheReadTokens,
    r.cacheWriteTokens,
    r.reasoningTokens,
    r.costMicro,
    r.fxRate,
    r.fxDate,
    r.latencyMs,
    r.ttftMs,
    r.apiKeyId,
    r.keyPrefix,
    r.sessionUserId,
    r.endUser,
    r.projectId,
    r.knowledgeBaseId,
    r.clientIp,
    r.userAgent,
    r.requestBody,
    r.responseBody,
    r.bodyTruncated ? 1 : 0,
    r.dataProtection ?? null,
    r.kind ?? null,
    r.mcpServer ?? null,
    r.mcpTool ?? null,
    r.bytes ?? null,
  );
}

export interface RequestLogFilter {
  /** null: every team (operators) */
  teamId: string | null;
  from?: number;
  to?: number;
  apiKeyId?: string;
  user?: string;
  model?: string;
  endpoint?: string;
  kind?: 'model' | 'mcp_tool';
  status?: 'ok' | 'error' | '4xx' | '5xx';
  projectId?: string;
  minCostMicro?: number;
  /** the last record of the previous page (newest first) */
  before?: { createdAt: number; seq: number };
}

export type RequestLogRow = RequestLogEntity & { seq: number };

/** The request log's table: batched inserts, filtered pages, retention deletes. */
@Injectable()
export class RequestLogRepository {
  private readonly raw: RawSql;
  private readonly insertCache = new Map<number, string>();

  constructor(
    @InjectRepository(RequestLogEntity) private readonly rows: Repository<RequestLogEntity>,
    @InjectDataSource() ds: DataSource,
  ) {
    this.raw = new RawSql(ds);
  }

  /**
   * One multi-row INSERT per chunk, through RawSql: the query builder's per-row work (metadata
   * lookups, value escaping, RETURNING of the generated keys) is most of a batch's cost.
   */
  async insertMany(records: RequestLogEntity[]): Promise<void> {
    if (this.raw.pg) return this.insertJson(records);
    for (let i = 0; i < records.length; i += INSERT_CHUNK) {
      const chunk = records.slice(i, i + INSERT_CHUNK);
      const params: unknown[] = [];
      for (const r of chunk) pushRow(params, r);
      await this.raw.execNative(this.insertSql(chunk.length), params);
    }
  }

  /** Postgres: the whole batch as ONE JSON parameter, expanded by the server (no per-value driver work). */
  private async insertJson(records: RequestLogEntity[]): Promise<void> {
    const rows = records.map((r) => {
      const p: unknown[] = [];
      pushRow(p, r);
      return p;
    });
    const t = this.raw.table(RequestLogEntity);
    const cols = COLUMNS.join(', ');
    const picks = COLUMNS.map((c, i) => `(v->>${i})::${PG_TYPES[c] ?? 'text'}`).join(', ');
    await this.raw.exec(`INSERT INTO ${t} (${cols}) SELECT ${picks} FROM jsonb_array_elements($1::jsonb) AS v`, [
      JSON.stringify(rows),
    ]);
  }

  /** SQLite's multi-row INSERT for `rows` records, with `?` placeholders in pushRow's order. */
  private insertSql(rows: number): string {
    let sql = this.insertCache.get(rows);
    if (!sql) {
      const tuple = `(${COLUMNS.map(() => '?').join(', ')})`;
      sql = `INSERT INTO ${this.raw.table(RequestLogEntity)} (${COLUMNS.join(', ')}) VALUES ${Array(rows).fill(tuple).join(', ')}`;
      if (this.insertCache.size > 64) this.insertCache.clear();
      this.insertCache.set(rows, sql);
    }
    return sql;
  }

  /** A team's records created at or after `since`, and how many of them have an HTTP status ≥ 400. */
  async outcomesSince(teamId: string, since: number): Promise<{ total: number; errors: number }> {
    const r = await this.rows
      .createQueryBuilder('r')
      .select('COUNT(*)', 'total')
      .addSelect('COALESCE(SUM(CASE WHEN r.status >= 400 THEN 1 ELSE 0 END), 0)', 'errors')
      .where('r.team_id = :teamId AND r.created_at >= :since', { teamId, since })
      .getRawOne<{ total: string | number; errors: string | number }>();
    return { total: Number(r?.total ?? 0), errors: Number(r?.errors ?? 0) };
  }

  async list(f: RequestLogFilter, limit: number): Promise<RequestLogRow[]> {
    const q = this.filtered(f);
    if (f.before)
      q.andWhere(
        new Brackets((w) =>
          w
            .where('r.created_at < :bc', { bc: f.before!.createdAt })
            .orWhere('r.created_at = :bc AND r.seq < :bs', { bs: f.before!.seq }),
        ),
      );
    const rows = await q.orderBy('r.created_at', 'DESC').addOrderBy('r.seq', 'DESC').limit(limit).getMany();
    return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
  }

  /** The newest record with this request id (of the team; any team when teamId is null). */
  async find(teamId: string | null, id: string): Promise<RequestLogRow | null> {
    const q = this.rows.createQueryBuilder('r').where('r.id = :id', { id });
    if (teamId !== null) q.andWhere('r.team_id = :teamId', { teamId });
    const row = await q.orderBy('r.seq', 'DESC').limit(1).getOne();
    return row ? { ...row, seq: Number(row.seq) } : null;
  }

  /**
   * Readable names for a record's detail: the key's name and its creator's e-mail, the session
   * user's e-mail, the project's name (null where there is none, or the row is gone).
   */
  async names(r: { apiKeyId: string | null; sessionUserId: string | null; projectId: string | null }): Promise<{
    keyName: string | null;
    keyCreatorEmail: string | null;
    userEmail: string | null;
    projectName: string | null;
  }> {
    const one = async (sql: string, id: string | null): Promise<Record<string, unknown> | null> =>
      id === null ? null : ((await this.raw.exec(sql, [id])).rows[0] ?? null);
    const users = this.raw.table('users');
    const [key, user, project] = await Promise.all([
      one(
        `SELECT k.name AS name, u.email AS creator FROM ${this.raw.table('api_keys')} k ` +
          `LEFT JOIN ${users} u ON u.id = k.created_by WHERE k.id = $1`,
        r.apiKeyId,
      ),
      one(`SELECT email FROM ${users} WHERE id = $1`, r.sessionUserId),
      one(`SELECT name FROM ${this.raw.table('projects')} WHERE id = $1`, r.projectId),
    ]);
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    return {
      keyName: text(key?.name),
      keyCreatorEmail: text(key?.creator),
      userEmail: text(user?.email),
      projectName: text(project?.name),
    };
  }

  /** Deletes up to `batch` records past their retention; returns how many. */
  async deleteExpired(now: number, batch: number): Promise<number> {
    const t = this.raw.table(RequestLogEntity);
    const { affected } = await this.raw.exec(
      `DELETE FROM ${t} WHERE seq IN (SELECT seq FROM ${t} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
      [now, batch],
    );
    return affected;
  }

  /** Clears the bodies of up to `batch` records past their body retention; returns how many. */
  async clearExpiredBodies(now: number, batch: number): Promise<number> {
    const t = this.raw.table(RequestLogEntity);
    const { affected } = await this.raw.exec(
      `UPDATE ${t} SET request_body = NULL, response_body = NULL, bodies_expire_at = NULL WHERE seq IN (SELECT seq FROM ${t} WHERE bodies_expire_at <= $1 ORDER BY bodies_expire_at LIMIT $2)`,
      [now, batch],
    );
    return affected;
  }

  private filtered(f: RequestLogFilter): SelectQueryBuilder<RequestLogEntity> {
    const q = this.rows.createQueryBuilder('r').where('1 = 1');
    if (f.teamId !== null) q.andWhere('r.team_id = :teamId', { teamId: f.teamId });
    if (f.from !== undefined) q.andWhere('r.created_at >= :from', { from: f.from });
    if (f.to !== undefined) q.andWhere('r.created_at < :to', { to: f.to });
    if (f.apiKeyId) q.andWhere('r.api_key_id = :apiKeyId', { apiKeyId: f.apiKeyId });
    if (f.user)
      q.andWhere(new Brackets((w) => w.where('r.end_user = :user').orWhere('r.session_user_id = :user')), {
        user: f.user,
      });
    if (f.model)
      q.andWhere(new Brackets((w) => w.where('r.model = :model').orWhere('r.served_model = :model')), {
        model: f.model,
      });
    if (f.endpoint) q.andWhere('r.endpoint = :endpoint', { endpoint: f.endpoint });
    if (f.kind === 'model') q.andWhere('r.kind IS NULL');
    if (f.kind === 'mcp_tool') q.andWhere("r.kind = 'mcp_tool'");
    if (f.projectId) q.andWhere('r.project_id = :projectId', { projectId: f.projectId });
    if (f.minCostMicro !== undefined) q.andWhere('r.cost_micro >= :minCost', { minCost: f.minCostMicro });
    if (f.status === 'ok') q.andWhere('r.status < 400');
    if (f.status === 'error') q.andWhere('r.status >= 400');
    if (f.status === '4xx') q.andWhere('r.status >= 400 AND r.status < 500');
    if (f.status === '5xx') q.andWhere('r.status >= 500');
    return q;
  }
}
