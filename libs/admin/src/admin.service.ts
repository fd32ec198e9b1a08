import { Injectable } from '@nestjs/common';
import { ApiError, microToRub, rubToMicro } from '@app/common';
import { ApiKeyPatch, ApiKeysService, ApiKeyView } from '@app/auth';
import {
  BillingService,
  TeamPatch,
  TeamsService,
  TeamView,
  UsageSummaryQueryDto,
  UsageSummaryResponseDto,
  UsageSummaryService,
} from '@app/billing';
import {
  ApiKeyDto,
  ApiKeyListDto,
  CreatedApiKeyDto,
  TeamDto,
  TeamLimitsDto,
  TeamListDto,
  TopUpResultDto,
  UpdateApiKeyDto,
  UpdateTeamDto,
} from './dto/admin.dto';

/** Orchestrates teams (billing) and keys (auth) for the admin API. */
@Injectable()
export class AdminService {
  constructor(
    private readonly teams: TeamsService,
    private readonly keys: ApiKeysService,
    private readonly billing: BillingService,
    private readonly summaries: UsageSummaryService,
  ) {}

  async createTeam(name: string, balanceRub: number): Promise<TeamDto> {
    const team = await this.teams.create(name, rubToMicro(balanceRub));
    return { id: team.id, name: team.name, balance_rub: microToRub(team.balanceMicro) };
  }

  async getTeam(id: string): Promise<TeamLimitsDto> {
    return teamView(await this.teams.get(id));
  }

  async listTeams(limit: number, after?: string): Promise<TeamListDto> {
    const page = await this.teams.list(limit, after);
    return {
      object: 'list',
      data: page.teams.map(teamView),
      has_more: page.hasMore,
      next_after: page.hasMore ? page.teams[page.teams.length - 1].id : null,
    };
  }

  /** Name and limits of a team; the cached lookups of its keys are dropped so the limits apply (other replicas: within AUTH_CACHE_TTL_SECONDS). */
  async updateTeam(id: string, body: UpdateTeamDto): Promise<TeamLimitsDto> {
    if (body.name === null) throw ApiError.badRequest('name cannot be null.', 'name', 'invalid_value');
    const patch: TeamPatch = { name: body.name, rpmLimit: body.rpm_limit, tpmLimit: body.tpm_limit };
    const team = await this.teams.update(id, patch);
    if (body.rpm_limit !== undefined || body.tpm_limit !== undefined) await this.keys.forgetTeam(id);
    return teamView(team);
  }

  async createKey(teamId: string, name: string | null): Promise<CreatedApiKeyDto> {
    if (!(await this.teams.exists(teamId)))
      throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found', 'id');
    const k = await this.keys.create(teamId, name);
    return {
      id: k.id,
      api_key: k.apiKey,
      prefix: k.prefix,
      name: k.name,
      created_at: new Date(k.createdAt).toISOString(),
    };
  }

  async listKeys(teamId: string): Promise<ApiKeyListDto> {
    if (!(await this.teams.exists(teamId)))
      throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found', 'id');
    const keys = await this.keys.listByTeam(teamId);
    return { object: 'list', data: await Promise.all(keys.map((k) => this.keyView(k))) };
  }

  /**
   * Name, rate limits and budgets of a key (null removes one). A budget change recomputes the
   * key's spend counters of the current day/month from the ledger.
   */
  async updateKey(id: string, body: UpdateApiKeyDto): Promise<ApiKeyDto> {
    const micro = (rub: number | null | undefined) =>
      rub === undefined ? undefined : rub === null ? null : rubToMicro(rub);
    const patch: ApiKeyPatch = {
      name: body.name,
      rpmLimit: body.rpm_limit,
      tpmLimit: body.tpm_limit,
      budgetDayMicro: micro(body.budget_rub_per_day),
      budgetMonthMicro: micro(body.budget_rub_per_month),
    };
    const key = await this.keys.update(id, patch);
    if (body.budget_rub_per_day !== undefined || body.budget_rub_per_month !== undefined) {
      await this.billing.resyncKeySpend({
        apiKeyId: key.id,
        dayMicro: key.budgetDayMicro,
        monthMicro: key.budgetMonthMicro,
      });
    }
    return this.keyView(key);
  }

  async getKey(id: string): Promise<ApiKeyDto> {
    return this.keyView(await this.keys.get(id));
  }

  revokeKey(id: string): Promise<void> {
    return this.keys.revoke(id);
  }

  async topUp(teamId: string, amountRub: number, reference: string | null): Promise<TopUpResultDto> {
    const r = await this.billing.topUp(teamId, rubToMicro(amountRub), reference);
    return { balance_rub: microToRub(r.balanceMicro), applied: r.applied };
  }

  async usageSummary(teamId: string, q: UsageSummaryQueryDto): Promise<UsageSummaryResponseDto> {
    if (!(await this.teams.exists(teamId)))
      throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found', 'id');
    return this.summaries.summary(teamId, q);
  }

  private async keyView(k: ApiKeyView): Promise<ApiKeyDto> {
    const spend = await this.billing.keySpend(k.id);
    const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
    return {
      id: k.id,
      team_id: k.teamId,
      prefix: k.prefix,
      name: k.name,
      created_at: new Date(k.createdAt).toISOString(),
      last_used_at: iso(k.lastUsedAt),
      revoked: k.revokedAt !== null,
      revoked_at: iso(k.revokedAt),
      rpm_limit: k.rpmLimit,
      tpm_limit: k.tpmLimit,
      budget_rub_per_day: k.budgetDayMicro === null ? null : microToRub(k.budgetDayMicro),
      budget_rub_per_month: k.budgetMonthMicro === null ? null : microToRub(k.budgetMonthMicro),
      spent_rub_today: microToRub(spend.dayMicro),
      spent_rub_this_month: microToRub(spend.monthMicro),
    };
  }
}

function teamView(t: TeamView): TeamLimitsDto {
  return {
    id: t.id,
    name: t.name,
    balance_rub: microToRub(t.balanceMicro),
    reserved_rub: microToRub(t.reservedMicro),
    created_at: new Date(t.createdAt).toISOString(),
    rpm_limit: t.rpmLimit,
    tpm_limit: t.tpmLimit,
  };
}
