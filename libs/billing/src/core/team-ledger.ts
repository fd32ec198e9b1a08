import { ApiError, Clock, microToRub } from '@app/common';
import { BillingRepository, TopUpExtra } from '../billing.repository';
import { CreditGrants } from '../credit-grants';
import { BalanceResponseDto, UsageResponseDto } from '../dto/billing.dto';
import { LedgerEntryEntity } from '../entities/ledger-entry.entity';
import { budgetPeriods, KeyBudget, LedgerView } from './billing.types';

/** A team's money as read back: balance, top-ups, the ledger's pages, and what keys and teams spent. */
export class TeamLedger {
  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: Clock,
    private readonly grants: CreditGrants | null,
  ) {}

  /**
   * A key's budgets changed: its spend counters are recomputed from the ledger for the current
   * periods (holds in flight kept) and dropped for the others.
   */
  async resyncKeySpend(key: KeyBudget): Promise<void> {
    await this.repo.resyncSpend(key.apiKeyId, budgetPeriods(key, this.clock.now()));
  }

  /** What a key spent and holds in the current UTC day and month (µRUB), for the admin API. */
  async keySpend(apiKeyId: string): Promise<{ dayMicro: number; monthMicro: number; heldMicro: number }> {
    const periods = budgetPeriods({ apiKeyId, dayMicro: 0, monthMicro: 0 }, this.clock.now());
    const [day, month] = periods;
    const sums = await this.repo.spentSince(apiKeyId, [day.start, month.start]);
    const rows = await this.repo.spendOf(
      apiKeyId,
      periods.map((p) => p.period),
    );
    const held = Math.max(rows.get(day.period)?.heldMicro ?? 0, rows.get(month.period)?.heldMicro ?? 0);
    return { dayMicro: sums[0], monthMicro: sums[1], heldMicro: held };
  }

  /** What a team's charges came to in the current UTC day and month (µRUB). */
  async teamSpend(teamId: string): Promise<{ dayMicro: number; monthMicro: number }> {
    const [day, month] = budgetPeriods({ apiKeyId: '', dayMicro: 0, monthMicro: 0 }, this.clock.now());
    const [dayMicro, monthMicro] = await this.repo.teamSpentSince(teamId, [day.start, month.start]);
    return { dayMicro, monthMicro };
  }

  async topUp(
    teamId: string,
    amountMicro: number,
    reference: string | null,
    extra: TopUpExtra = {},
  ): Promise<{ applied: boolean; balanceMicro: number }> {
    const out = await this.repo.topUp(teamId, amountMicro, reference, this.clock.now(), extra);
    if (!out) throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found');
    return out;
  }

  async balance(teamId: string): Promise<{ balanceMicro: number; reservedMicro: number }> {
    const team = await this.repo.findTeam(teamId);
    if (!team) throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found');
    if (!this.grants) return { balanceMicro: team.balanceMicro, reservedMicro: team.reservedMicro };
    // "held by requests in flight": credit granted to replicas and not held by a request is not
    // counted (this replica knows its own requests' holds; other replicas' are not visible here)
    const granted = await this.repo.grantedMicro(teamId);
    const reservedMicro = Math.max(0, team.reservedMicro - granted + this.grants.heldFor(teamId));
    return { balanceMicro: team.balanceMicro, reservedMicro };
  }

  async balanceView(teamId: string): Promise<BalanceResponseDto> {
    const b = await this.balance(teamId);
    return {
      team_id: teamId,
      balance_rub: microToRub(b.balanceMicro),
      reserved_rub: microToRub(b.reservedMicro),
      available_rub: microToRub(Math.max(0, b.balanceMicro - b.reservedMicro)),
      currency: 'RUB',
    };
  }

  /** One page of the team's ledger, newest first; `next_before` continues it. */
  async usagePage(teamId: string, limit: number, before?: number): Promise<UsageResponseDto> {
    const rows = await this.usage(teamId, limit + 1, before);
    const page = rows.slice(0, limit);
    return {
      object: 'list',
      data: page.map((e) => ({
        id: e.id,
        kind: e.kind,
        request_id: e.requestId,
        reference: e.reference,
        endpoint: e.endpoint,
        model: e.model,
        prompt_tokens: e.promptTokens,
        completion_tokens: e.completionTokens,
        total_tokens: e.totalTokens,
        amount_rub: microToRub(e.amountMicro),
        balance_after_rub: microToRub(e.balanceAfterMicro),
        fx_rate: e.fxRate === null ? null : Number(e.fxRate),
        fx_date: e.fxDate,
        created_at: new Date(e.createdAt).toISOString(),
      })),
      has_more: rows.length > limit,
      next_before: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  async usage(teamId: string, limit: number, beforeId?: number): Promise<LedgerView[]> {
    return (await this.repo.listLedger(teamId, limit, beforeId)).map(toView);
  }

  async ledger(teamId: string): Promise<LedgerView[]> {
    return (await this.repo.listLedgerAscending(teamId)).map(toView);
  }
}

function toView(e: LedgerEntryEntity): LedgerView {
  return {
    id: Number(e.id),
    kind: e.kind,
    requestId: e.requestId,
    reference: e.reference,
    endpoint: e.endpoint,
    model: e.model,
    promptTokens: e.promptTokens,
    completionTokens: e.completionTokens,
    totalTokens: e.totalTokens,
    amountMicro: e.amountMicro,
    balanceAfterMicro: e.balanceAfterMicro,
    fxRate: e.fxRate ?? null,
    fxDate: e.fxDate ?? null,
    createdAt: e.createdAt,
  };
}
