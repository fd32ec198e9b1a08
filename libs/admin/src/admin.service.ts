import type { KeyDataPolicy } from '@app/data-protection/policy';
import { Injectable } from '@nestjs/common';
import { ApiError, Clock, microToRub, rubToMicro } from '@app/common';
import { ApiKeyChange, ApiKeyPatch, ApiKeysService, ApiKeyView, CreatedApiKey } from '@app/auth';
import { Actor, AuditRecord, AuditTrail } from '@app/accounts/audit';
import { TransactionHook } from '@app/database';
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
  RotatedApiKeyDto,
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
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
  ) {}

  /** Creates the team; with an actor, its audit record is written in the creating transaction. */
  async createTeam(name: string, balanceRub: number | string, actor?: Actor): Promise<TeamDto> {
    const audit = (a: Actor, team: TeamView): AuditRecord => ({
      actor: a,
      teamId: team.id,
      action: 'team.create',
      targetType: 'team',
      targetId: team.id,
      after: teamDto(team),
    });
    const team = await this.teams.create(name, rubToMicro(balanceRub), undefined, this.hook(actor, audit));
    return teamDto(team);
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
  async updateTeam(id: string, body: UpdateTeamDto, actor?: Actor): Promise<TeamLimitsDto> {
    if (body.name === null) throw ApiError.badRequest('name cannot be null.', 'name', 'invalid_value');
    if (body.request_log_bodies === null)
      throw ApiError.badRequest('request_log_bodies cannot be null.', 'request_log_bodies', 'invalid_value');
    const patch: TeamPatch = {
      name: body.name,
      rpmLimit: body.rpm_limit,
      tpmLimit: body.tpm_limit,
      requestLogBodies: body.request_log_bodies,
      requestLogRetentionDays: body.request_log_retention_days,
      requestLogBodyRetentionDays: body.request_log_body_retention_days,
      mcpAdhocServers: body.mcp_adhoc_servers,
    };
    const audit = (a: Actor, c: { before: TeamView; after: TeamView }): AuditRecord => ({
      actor: a,
      teamId: id,
      action: 'team.update',
      targetType: 'team',
      targetId: id,
      before: teamView(c.before),
      after: teamView(c.after),
    });
    const team = await this.teams.update(id, patch, this.hook(actor, audit));
    if (body.rpm_limit !== undefined || body.tpm_limit !== undefined) await this.keys.forgetTeam(id);
    return teamView(team);
  }

  async createKey(
    teamId: string,
    name: string | null,
    opts: {
      createdBy?: string | null;
      expiresAt?: string | null;
      allowedModels?: string[];
      dataPolicy?: KeyDataPolicy | null;
      allowedMcpTools?: string[];
      actor?: Actor;
    } = {},
  ): Promise<CreatedApiKeyDto> {
    if (!(await this.teams.exists(teamId)))
      throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found', 'id');
    const expiresAt = opts.expiresAt ? Date.parse(opts.expiresAt) : null;
    if (expiresAt !== null && expiresAt <= this.clock.now())
      throw ApiError.badRequest('expires_at must be in the future.', 'expires_at', 'invalid_value');
    const audit = (a: Actor, key: ApiKeyView): AuditRecord => ({
      actor: a,
      teamId,
      action: 'api_key.create',
      targetType: 'api_key',
      targetId: key.id,
      after: keyAuditView(key),
    });
    const k = await this.keys.create(teamId, name, {
      createdBy: opts.createdBy ?? null,
      expiresAt,
      allowedModels: opts.allowedModels,
      dataPolicy: opts.dataPolicy,
      allowedMcpTools: opts.allowedMcpTools,
      within: this.hook(opts.actor, audit),
    });
    return createdView(k);
  }

  /**
   * Rotation: a new secret as a new key with the old one's name, creator, limits, budgets, allowlist
   * and expiry; the old key keeps working for `graceSeconds` (never past its own expiry) or, with 0, is
   * revoked at once. Both changes are audit-logged as `api_key.rotate`, each in its transaction; the
   * new key is made first, so a failure never leaves the team without a working key.
   */
  async rotateKey(id: string, graceSeconds: number, actor?: Actor): Promise<RotatedApiKeyDto> {
    const old = await this.keys.get(id);
    const now = this.clock.now();
    if (old.revokedAt !== null)
      throw new ApiError(409, 'invalid_request_error', 'A revoked key cannot be rotated.', 'api_key_revoked', 'key_id');
    if (old.expiresAt !== null && old.expiresAt <= now)
      throw new ApiError(409, 'invalid_request_error', 'An expired key cannot be rotated.', 'key_expired', 'key_id');
    const record = (
      a: Actor,
      key: ApiKeyView,
      before: Record<string, unknown>,
      after: Record<string, unknown>,
    ): AuditRecord => ({
      actor: a,
      teamId: key.teamId,
      action: 'api_key.rotate',
      targetType: 'api_key',
      targetId: key.id,
      before,
      after,
    });
    const k = await this.keys.create(old.teamId, old.name, {
      createdBy: old.createdBy,
      expiresAt: old.expiresAt,
      allowedModels: old.allowedModels,
      inheritedDataPolicy: old.dataPolicy,
      allowedMcpTools: old.allowedMcpTools,
      limits: {
        rpmLimit: old.rpmLimit,
        tpmLimit: old.tpmLimit,
        budgetDayMicro: old.budgetDayMicro,
        budgetMonthMicro: old.budgetMonthMicro,
      },
      within: this.hook(actor, (a, key: ApiKeyView) =>
        record(a, key, { rotated_from: old.id }, { ...keyAuditView(key), rotated_from: old.id }),
      ),
    });
    let previousExpiresAt: number | null = null;
    const oldRecord = (a: Actor, c: ApiKeyChange, after: Record<string, unknown>) =>
      record(a, c.after, { ...keyAuditView(c.before), replaced_by: k.id }, { ...after, replaced_by: k.id });
    if (graceSeconds === 0) {
      await this.keys.revoke(
        id,
        this.hook(actor, (a, c: ApiKeyChange) => oldRecord(a, c, { revoked: true })),
      );
    } else {
      previousExpiresAt = Math.min(old.expiresAt ?? Infinity, now + graceSeconds * 1000);
      await this.keys.update(
        id,
        { expiresAt: previousExpiresAt },
        this.hook(actor, (a, c: ApiKeyChange) => oldRecord(a, c, keyAuditView(c.after))),
      );
    }
    return {
      ...createdView(k),
      rotated_from: old.id,
      previous_expires_at: previousExpiresAt === null ? null : new Date(previousExpiresAt).toISOString(),
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
  async updateKey(id: string, body: UpdateApiKeyDto, actor?: Actor): Promise<ApiKeyDto> {
    const micro = (rub: number | null | undefined) =>
      rub === undefined ? undefined : rub === null ? null : rubToMicro(rub);
    const patch: ApiKeyPatch = {
      name: body.name,
      rpmLimit: body.rpm_limit,
      tpmLimit: body.tpm_limit,
      budgetDayMicro: micro(body.budget_rub_per_day),
      budgetMonthMicro: micro(body.budget_rub_per_month),
      expiresAt:
        body.expires_at === undefined ? undefined : body.expires_at === null ? null : Date.parse(body.expires_at),
      allowedModels: body.allowed_models,
      dataPolicy: body.data_policy,
      allowedMcpTools: body.allowed_mcp_tools,
    };
    const audit = (a: Actor, c: ApiKeyChange): AuditRecord => ({
      actor: a,
      teamId: c.after.teamId,
      action: 'api_key.update',
      targetType: 'api_key',
      targetId: id,
      before: keyAuditView(c.before),
      after: keyAuditView(c.after),
    });
    const key = await this.keys.update(id, patch, this.hook(actor, audit));
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

  /** Revokes the key; with an actor, the audit record is written in the revoking transaction (not when it was revoked already). */
  async revokeKey(id: string, actor?: Actor): Promise<void> {
    const audit = (a: Actor, c: ApiKeyChange): AuditRecord => ({
      actor: a,
      teamId: c.after.teamId,
      action: 'api_key.revoke',
      targetType: 'api_key',
      targetId: id,
      before: { revoked: false },
      after: { revoked: true },
    });
    await this.keys.revoke(id, this.hook(actor, audit));
  }

  /**
   * Adds funds. The note and the actor are kept in the ledger entry's details, and the audit record
   * (`team.top_up`) is written in the top-up's transaction.
   */
  async topUp(
    teamId: string,
    amountRub: number | string,
    reference: string | null,
    note: string | null = null,
    actor?: Actor,
  ): Promise<TopUpResultDto> {
    const details =
      note !== null || actor
        ? JSON.stringify({ note, actor: actor ? { type: actor.type, id: actor.id } : null })
        : null;
    const micro = rubToMicro(amountRub);
    const r = await this.billing.topUp(teamId, micro, reference, {
      details,
      within: actor
        ? (m, balanceMicro) =>
            this.audit.writeIn(m, {
              actor,
              teamId,
              action: 'team.top_up',
              targetType: 'team',
              targetId: teamId,
              after: { amount_rub: microToRub(micro), reference, note, balance_rub: microToRub(balanceMicro) },
            })
        : undefined,
    });
    return { balance_rub: microToRub(r.balanceMicro), applied: r.applied };
  }

  /** The hook that writes the audit record of a change in its transaction; none without an actor. */
  private hook<R>(
    actor: Actor | undefined,
    record: (actor: Actor, result: R) => AuditRecord,
  ): TransactionHook<R> | undefined {
    return actor ? (m, result) => this.audit.writeIn(m, record(actor, result)) : undefined;
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
      created_by: k.createdBy,
      expires_at: iso(k.expiresAt),
      allowed_models: k.allowedModels,
      data_policy: k.dataPolicy,
      allowed_mcp_tools: k.allowedMcpTools,
    };
  }
}

function createdView(k: CreatedApiKey): CreatedApiKeyDto {
  return {
    id: k.id,
    api_key: k.apiKey,
    prefix: k.prefix,
    name: k.name,
    created_at: new Date(k.createdAt).toISOString(),
    expires_at: k.expiresAt === null ? null : new Date(k.expiresAt).toISOString(),
    allowed_models: k.allowedModels,
    data_policy: k.dataPolicy,
    allowed_mcp_tools: k.allowedMcpTools,
  };
}

function teamDto(t: TeamView): TeamDto {
  return { id: t.id, name: t.name, balance_rub: microToRub(t.balanceMicro) };
}

/** A key's settings as its audit records show them (no spend, never the secret). */
function keyAuditView(k: ApiKeyView): Record<string, unknown> {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return {
    id: k.id,
    prefix: k.prefix,
    name: k.name,
    revoked: k.revokedAt !== null,
    rpm_limit: k.rpmLimit,
    tpm_limit: k.tpmLimit,
    budget_rub_per_day: k.budgetDayMicro === null ? null : microToRub(k.budgetDayMicro),
    budget_rub_per_month: k.budgetMonthMicro === null ? null : microToRub(k.budgetMonthMicro),
    created_by: k.createdBy,
    expires_at: iso(k.expiresAt),
    allowed_models: k.allowedModels,
    data_policy: k.dataPolicy,
    allowed_mcp_tools: k.allowedMcpTools,
  };
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
    request_log_bodies: t.requestLogBodies,
    request_log_retention_days: t.requestLogRetentionDays,
    request_log_body_retention_days: t.requestLogBodyRetentionDays,
    mcp_adhoc_servers: t.mcpAdhocServers,
  };
}
