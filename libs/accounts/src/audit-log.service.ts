import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/common';
import { roleAtLeast } from '@app/auth';
import { isOperator, Principal } from './access';
import { AuditEntryEntity, AuditFilter, AuditTrail } from './audit';
import { AuditNamesRepository } from './audit/audit-names.repository';
import { auditEntryView, AuditEntryView, detailsText, namesWanted } from './audit/audit-view';
import { AuditFilterQueryDto, AuditListDto, AuditQueryDto } from './dto/audit.dto';

/** The readable CSV export's columns: ids for machines, names for people. */
const EXPORT_COLUMNS: [string, (e: AuditEntryView) => unknown][] = [
  ['id', (e) => e.id],
  ['at', (e) => e.at],
  ['team_id', (e) => e.team_id],
  ['team', (e) => e.team?.name],
  ['actor_type', (e) => e.actor_type],
  ['actor_id', (e) => e.actor_id],
  ['actor', (e) => e.actor.label],
  ['actor_email', (e) => e.actor.email],
  ['action', (e) => e.action],
  ['target_type', (e) => e.target_type],
  ['target_id', (e) => e.target_id],
  ['target', (e) => e.target?.label],
  ['amount_rub', (e) => e.details.amount_rub],
  ['email', (e) => e.details.email],
  ['role', (e) => e.details.role],
  ['details', (e) => detailsText(e.details)],
  ['ip', (e) => e.ip],
  ['user_agent', (e) => e.user_agent],
];

/** The page CSV (`format=csv`) keeps its original columns. */
const PAGE_COLUMNS = [
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

const EXPORT_BATCH = 500;

/**
 * One RFC 4180 field: quoted when it holds a comma, quote or line break. A value a spreadsheet would
 * run as a formula (starting with = + - @, a tab or a carriage return) gets a leading apostrophe.
 */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return String(v); // a number is never a formula: -7 stays -7
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const csvLine = (cells: unknown[]): string => `${cells.map(csvField).join(',')}\r\n`;

/**
 * Reading the audit log: who may read which part (operators every team; a team's admins and owners
 * their team), the filters, cursor pages and the CSV export, every record with readable names.
 */
@Injectable()
export class AuditLogService {
  constructor(
    private readonly trail: AuditTrail,
    private readonly names: AuditNamesRepository,
  ) {}

  /** 400 without a team for non-operators, 404 for a team they are not in, 403 below admin. */
  authorize(p: Principal, q: AuditFilterQueryDto): void {
    if (isOperator(p)) return;
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

  async page(q: AuditQueryDto): Promise<{ list: AuditListDto; rows: AuditEntryEntity[] }> {
    const limit = q.limit ?? 100;
    const rows = await this.trail.list({ ...(await this.filter(q)), before: q.cursor }, limit + 1);
    const page = rows.slice(0, limit);
    const nextCursor = rows.length > limit ? Number(page[page.length - 1].seq) : null;
    return { list: { object: 'list', data: await this.views(page), next_cursor: nextCursor }, rows: page };
  }

  /** The page as CSV with the original columns (`format=csv`). */
  pageCsv(list: AuditListDto): string {
    return [PAGE_COLUMNS.join(','), ...list.data.map((d) => csvLine(PAGE_COLUMNS.map((c) => d[c])).slice(0, -2))]
      .join('\r\n')
      .concat('\r\n');
  }

  /**
   * Every matching record as readable CSV lines, newest first, read in batches so the whole log is
   * never held in memory; `write` resolves when the line may be followed by the next.
   */
  async exportCsv(q: AuditFilterQueryDto, write: (chunk: string) => Promise<void>): Promise<void> {
    const filter = await this.filter(q);
    await write(csvLine(EXPORT_COLUMNS.map(([name]) => name)));
    let before: number | undefined;
    for (;;) {
      const rows = await this.trail.list({ ...filter, before }, EXPORT_BATCH);
      if (rows.length === 0) return;
      let chunk = '';
      for (const v of await this.views(rows)) chunk += csvLine(EXPORT_COLUMNS.map(([, get]) => get(v)));
      await write(chunk);
      if (rows.length < EXPORT_BATCH) return;
      before = Number(rows[rows.length - 1].seq);
    }
  }

  private async filter(q: AuditFilterQueryDto): Promise<AuditFilter> {
    let actors: string[] | undefined;
    if (q.actor_email) {
      const email = q.actor_email.trim().toLowerCase();
      actors = [...(await this.names.userIdsByEmail(email)), email];
    }
    return {
      teamId: q.team_id,
      actor: q.actor,
      actors,
      action: q.action,
      targetType: q.target_type,
      target: q.target,
      from: q.from ? Date.parse(q.from) : undefined,
      to: q.to ? Date.parse(q.to) : undefined,
    };
  }

  private async views(rows: AuditEntryEntity[]): Promise<AuditEntryView[]> {
    const names = await this.names.resolve(namesWanted(rows));
    return rows.map((e) => auditEntryView(e, names));
  }
}
