import { Injectable } from '@nestjs/common';
import { ApiError, Clock, microToRub } from '@app/common';
import { BillingRepository, SummaryRow } from './billing.repository';
import { KeyNamesRepository } from './key-names.repository';
import { SummaryGroupBy, UsageSummaryGroupDto, UsageSummaryQueryDto, UsageSummaryResponseDto } from './dto/billing.dto';

const DAY_MS = 86_400_000;
/** The widest range one summary covers (a year and a day, so a leap year fits). */
export const MAX_SUMMARY_DAYS = 366;
const DEFAULT_DAYS = 30;

/**
 * The [from, to) of a summary query in ms: `to` defaults to now, `from` to 30 days before `to`;
 * 400 invalid_value for an unreadable, reversed or longer than MAX_SUMMARY_DAYS range.
 */
export function summaryRange(q: { from?: string; to?: string }, now: number): { from: number; to: number } {
  const to = q.to !== undefined ? Date.parse(q.to) : now;
  const from = q.from !== undefined ? Date.parse(q.from) : to - DEFAULT_DAYS * DAY_MS;
  if (!Number.isFinite(from)) throw ApiError.badRequest('from must be an ISO 8601 date-time.', 'from', 'invalid_value');
  if (!Number.isFinite(to)) throw ApiError.badRequest('to must be an ISO 8601 date-time.', 'to', 'invalid_value');
  if (from >= to) throw ApiError.badRequest('from must be earlier than to.', 'from', 'invalid_value');
  if (to - from > MAX_SUMMARY_DAYS * DAY_MS)
    throw ApiError.badRequest(`The range from..to may cover at most ${MAX_SUMMARY_DAYS} days.`, 'to', 'invalid_value');
  return { from, to };
}

/**
 * Requests, tokens and RUB of a team's charges grouped by model, UTC day, API key or endpoint —
 * computed in the database (GROUP BY over the ledger), so the sums equal the ledger's.
 */
@Injectable()
export class UsageSummaryService {
  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: Clock,
    private readonly keyNames: KeyNamesRepository,
  ) {}

  async summary(teamId: string, q: UsageSummaryQueryDto): Promise<UsageSummaryResponseDto> {
    const { from, to } = summaryRange(q, this.clock.now());
    const groupBy: SummaryGroupBy = q.group_by ?? 'model';
    const rows = await this.repo.summary(teamId, from, to, groupBy);
    const total: SummaryRow = rows.reduce(
      (a, r) => ({
        group: null,
        requests: a.requests + r.requests,
        promptTokens: a.promptTokens + r.promptTokens,
        completionTokens: a.completionTokens + r.completionTokens,
        totalTokens: a.totalTokens + r.totalTokens,
        spentMicro: a.spentMicro + r.spentMicro,
      }),
      { group: null, requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, spentMicro: 0 },
    );
    return {
      object: 'usage.summary',
      team_id: teamId,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      group_by: groupBy,
      data: groupBy === 'key' ? await this.withKeyNames(teamId, rows) : rows.map((r) => view(r, groupBy)),
      total: view(total, groupBy),
    };
  }

  /** Spend by key, each group with the key's name, prefix and creator's e-mail beside its id. */
  private async withKeyNames(teamId: string, rows: SummaryRow[]): Promise<UsageSummaryGroupDto[]> {
    const ids = rows.filter((r) => r.group !== null).map((r) => String(r.group));
    const names = await this.keyNames.forTeam(teamId, ids);
    return rows.map((r) => {
      const k = r.group === null ? undefined : names.get(String(r.group));
      return k
        ? { ...view(r, 'key'), key_name: k.name, key_prefix: k.prefix, key_created_by_email: k.createdByEmail }
        : view(r, 'key');
    });
  }
}

function view(r: SummaryRow, groupBy: SummaryGroupBy): UsageSummaryGroupDto {
  const group =
    r.group === null
      ? null
      : groupBy === 'day'
        ? new Date(Number(r.group) * DAY_MS).toISOString().slice(0, 10)
        : String(r.group);
  return {
    group,
    requests: r.requests,
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
    total_tokens: r.totalTokens,
    amount_rub: microToRub(r.spentMicro),
  };
}
