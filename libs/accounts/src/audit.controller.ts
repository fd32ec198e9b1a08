import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiError } from '@app/common';
import { roleAtLeast } from '@app/auth';
import { CurrentPrincipal, isOperator, PeopleAuth, Principal } from './access';
import { AuditEntryEntity, AuditTrail } from './audit';
import { AuditEntryDto, AuditListDto, AuditQueryDto } from './dto/audit.dto';

const CSV_COLUMNS = [
  'id',
  'at',
  'actor_type',
  'actor_id',
  'ip',
  'user_agent',
  'team_id',
  'action',
  'target_type',
  'target_id',
  'diff',
] as const;

function view(e: AuditEntryEntity): AuditEntryDto {
  return {
    id: e.id,
    at: new Date(e.at).toISOString(),
    actor_type: e.actorType,
    actor_id: e.actorId,
    ip: e.ip,
    user_agent: e.userAgent,
    team_id: e.teamId,
    action: e.action,
    target_type: e.targetType,
    target_id: e.targetId,
    diff: e.diff === null ? null : (JSON.parse(e.diff) as unknown),
  };
}

/** RFC 4180 field: quoted when it holds a comma, quote or line break; a leading =+-@ is defused for spreadsheets. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

@ApiTags('Audit log')
@PeopleAuth()
@Controller('api/v1/audit-log')
export class AuditController {
  constructor(private readonly trail: AuditTrail) {}

  @Get()
  @ApiOperation({
    summary: 'The audit log, newest first (operators: every team; team admins and owners: their team with team_id)',
  })
  @ApiOkResponse({ type: AuditListDto })
  @ApiProduces('application/json', 'text/csv')
  async list(
    @CurrentPrincipal() p: Principal,
    @Query() q: AuditQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AuditListDto | string> {
    if (!isOperator(p)) {
      if (!q.team_id)
        throw ApiError.badRequest(
          'team_id is required (the audit log of a team you administer).',
          'team_id',
          'team_required',
        );
      const role = p.kind === 'session' ? p.session.roles[q.team_id] : undefined;
      if (!role) throw ApiError.notFound(`Team ${q.team_id} not found.`, 'team_not_found', 'team_id');
      if (!roleAtLeast(role, 'admin'))
        throw ApiError.forbidden('The audit log needs the admin role in the team.', 'insufficient_role');
    }
    const limit = q.limit ?? 100;
    const rows = await this.trail.list(
      {
        teamId: q.team_id,
        actor: q.actor,
        action: q.action,
        target: q.target,
        from: q.from ? Date.parse(q.from) : undefined,
        to: q.to ? Date.parse(q.to) : undefined,
        before: q.cursor,
      },
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const nextCursor = rows.length > limit ? Number(page[page.length - 1].seq) : null;
    const data = page.map(view);
    if (q.format === 'csv') {
      res.setHeader('content-type', 'text/csv; charset=utf-8');
      res.setHeader('content-disposition', 'attachment; filename="audit-log.csv"');
      if (nextCursor !== null) res.setHeader('x-next-cursor', String(nextCursor));
      const lines = [CSV_COLUMNS.join(','), ...data.map((d) => CSV_COLUMNS.map((c) => csvField(d[c])).join(','))];
      return `${lines.join('\r\n')}\r\n`;
    }
    return { object: 'list', data, next_cursor: nextCursor };
  }
}
