import { Injectable } from '@nestjs/common';
import { ApiKeysService } from '@app/auth';
import { ApiError, microToRub, rubToMicro } from '@app/common';
import {
  DataProtectionDto,
  RequestLogDetailDto,
  RequestLogListDto,
  RequestLogQueryDto,
  RequestLogRecordDto,
} from './dto/request-log.dto';
import { RequestLogFilter, RequestLogRepository, RequestLogRow } from './request-log.repository';
import type { RequestLogScope } from './request-log.guard';

/** CSV columns of the export, in order (usage flattened). */
export const CSV_COLUMNS = [
  'id',
  'created_at',
  'team_id',
  'endpoint',
  'model',
  'served_model',
  'provider',
  'status',
  'error_code',
  'stream',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'cost_rub',
  'latency_ms',
  'ttft_ms',
  'attempts',
  'fallback_path',
  'api_key_id',
  'key_prefix',
  'session_user_id',
  'user',
  'project_id',
  'knowledge_base_id',
  'client_ip',
  'user_agent',
] as const;

function view(r: RequestLogRow): RequestLogRecordDto {
  return {
    id: r.id,
    created_at: new Date(r.createdAt).toISOString(),
    team_id: r.teamId,
    endpoint: r.endpoint,
    model: r.model,
    served_model: r.servedModel,
    provider: r.provider,
    status: r.status,
    error_code: r.errorCode,
    stream: r.stream,
    usage: {
      input_tokens: r.inputTokens,
      output_tokens: r.outputTokens,
      cache_read_tokens: r.cacheReadTokens,
      cache_write_tokens: r.cacheWriteTokens,
      reasoning_tokens: r.reasoningTokens,
    },
    cost_rub: microToRub(r.costMicro),
    fx_rate: r.fxRate === null || r.fxRate === undefined ? null : Number(r.fxRate),
    fx_date: r.fxDate ?? null,
    latency_ms: r.latencyMs,
    ttft_ms: r.ttftMs,
    attempts: r.attempts,
    fallback_path: r.fallbackPath ? (JSON.parse(r.fallbackPath) as string[]) : null,
    api_key_id: r.apiKeyId,
    key_prefix: r.keyPrefix,
    session_user_id: r.sessionUserId,
    user: r.endUser,
    project_id: r.projectId,
    knowledge_base_id: r.knowledgeBaseId,
    client_ip: r.clientIp,
    user_agent: r.userAgent,
    data_protection: r.dataProtection ? (JSON.parse(r.dataProtection) as DataProtectionDto) : null,
    kind: r.kind === 'mcp_tool' ? 'mcp_tool' : 'model',
    mcp_server: r.mcpServer ?? null,
    mcp_tool: r.mcpTool ?? null,
    bytes: r.bytes ?? null,
  };
}

/** RFC 4180 field: quoted when it holds a comma, quote or line break; a leading =+-@ is defused for spreadsheets. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function instant(v: string | undefined, param: string): number | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw ApiError.badRequest(`${param} must be an ISO 8601 instant.`, param, 'invalid_value');
  return t;
}

/** Reads of the request log, scoped to one team (or every team for operators). */
@Injectable()
export class RequestLogService {
  constructor(
    private readonly repo: RequestLogRepository,
    private readonly keys: ApiKeysService,
  ) {}

  async list(scope: RequestLogScope, q: RequestLogQueryDto): Promise<RequestLogListDto> {
    const { rows, next } = await this.page(scope, q, q.limit ?? 50);
    return { object: 'list', data: rows.map(view), has_more: next !== null, next_cursor: next };
  }

  /** The record's author: the user who made the call with a session, or who created the API key it used. */
  private async authoredBy(r: RequestLogRow, userId: string): Promise<boolean> {
    if (r.sessionUserId === userId) return true;
    if (!r.apiKeyId) return false;
    const key = await this.keys.get(r.apiKeyId).catch(() => null);
    return key?.createdBy === userId;
  }

  async get(scope: RequestLogScope, id: string): Promise<RequestLogDetailDto> {
    const r = id.length <= 128 ? await this.repo.find(scope.teamId, id) : null;
    if (!r) throw ApiError.notFound(`No request ${id} in the request log.`, 'request_not_found', 'id');
    const names = await this.repo.names(r);
    const out: RequestLogDetailDto = {
      ...view(r),
      key_name: names.keyName,
      key_created_by_email: names.keyCreatorEmail,
      session_user_email: names.userEmail,
      project_name: names.projectName,
    };
    if (scope.bodiesOfUser !== null && !(await this.authoredBy(r, scope.bodiesOfUser))) return out;
    if (r.requestBody !== null) out.request_body = r.requestBody;
    if (r.responseBody !== null) out.response_body = r.responseBody;
    if (r.requestBody !== null || r.responseBody !== null) out.body_truncated = r.bodyTruncated;
    return out;
  }

  /** The CSV text of one page of records, and the cursor of the next. */
  async csv(scope: RequestLogScope, q: RequestLogQueryDto): Promise<{ body: string; next: string | null }> {
    const { rows, next } = await this.page(scope, q, q.limit ?? 1000);
    const lines = [CSV_COLUMNS.join(',')];
    for (const r of rows) {
      const v = view(r);
      const flat: Record<string, unknown> = { ...v, ...v.usage };
      lines.push(CSV_COLUMNS.map((c) => csvField(flat[c])).join(','));
    }
    return { body: `${lines.join('\r\n')}\r\n`, next };
  }

  private async page(
    scope: RequestLogScope,
    q: RequestLogQueryDto,
    limit: number,
  ): Promise<{ rows: RequestLogRow[]; next: string | null }> {
    const filter: RequestLogFilter = {
      teamId: scope.teamId,
      from: instant(q.from, 'from'),
      to: instant(q.to, 'to'),
      apiKeyId: q.api_key_id,
      user: q.user,
      model: q.model,
      endpoint: q.endpoint,
      kind: q.kind,
      status: q.status,
      projectId: q.project_id,
      minCostMicro: q.min_cost_rub === undefined ? undefined : rubToMicro(q.min_cost_rub),
    };
    if (q.cursor) {
      const [createdAt, seq] = q.cursor.split('.').map(Number);
      filter.before = { createdAt, seq };
    }
    const rows = await this.repo.list(filter, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { rows: page, next: rows.length > limit && last ? `${last.createdAt}.${last.seq}` : null };
  }
}
