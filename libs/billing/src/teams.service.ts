import { Injectable } from '@nestjs/common';
import { ApiError, Clock, newId } from '@app/common';
import { TransactionHook } from '@app/database';
import { BillingRepository } from './billing.repository';
import { TeamEntity } from './entities/team.entity';

export interface TeamView {
  id: string;
  name: string;
  balanceMicro: number;
  reservedMicro: number;
  createdAt: number;
  /** requests / tokens per minute stored on the team (null: the env default) */
  rpmLimit: number | null;
  tpmLimit: number | null;
  /** the request log's level for the team (docs/request-log.md) */
  requestLogBodies: RequestLogBodies;
  /** days records / bodies are kept (null: the env default) */
  requestLogRetentionDays: number | null;
  requestLogBodyRetentionDays: number | null;
  /** /v1/responses may reach MCP servers the team has not registered (docs/mcp.md) */
  mcpAdhocServers: boolean;
}

/** none: no record; metadata: records without bodies (the default); full: with redacted, capped bodies (docs/decisions/request-log-levels.md) */
export const REQUEST_LOG_LEVELS = ['none', 'metadata', 'full'] as const;
export type RequestLogBodies = (typeof REQUEST_LOG_LEVELS)[number];

export type TeamPatch = Partial<{
  name: string;
  rpmLimit: number | null;
  tpmLimit: number | null;
  requestLogBodies: RequestLogBodies;
  requestLogRetentionDays: number | null;
  requestLogBodyRetentionDays: number | null;
  mcpAdhocServers: boolean;
}>;

/** Team workspaces are billing accounts: they live in billing, with their balance. */
@Injectable()
export class TeamsService {
  private readonly changeListeners: ((teamId: string) => void)[] = [];

  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: Clock,
  ) {}

  /** Creates the team; `within` runs in the creating transaction (its audit record). */
  async create(
    name: string,
    openingBalanceMicro: number,
    id: string = newId(),
    within?: TransactionHook<TeamView>,
  ): Promise<TeamView> {
    const team = await this.repo.createTeam(
      { id, name, now: this.clock.now() },
      openingBalanceMicro,
      openingBalanceMicro > 0 ? 'opening-balance' : null,
      within && ((m, row) => within(m, toView(row))),
    );
    return toView(team);
  }

  /** Idempotent creation for bootstrap: insert-if-absent. */
  async ensure(id: string, name: string): Promise<void> {
    await this.repo.ensureTeam(id, name, this.clock.now());
  }

  async get(id: string): Promise<TeamView> {
    const team = await this.repo.findTeam(id);
    if (!team) throw ApiError.notFound(`Team ${id} not found.`, 'team_not_found', 'id');
    return toView(team);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.repo.findTeam(id)) !== null;
  }

  /** One page of teams in id order; `after` is the last id of the previous page. */
  async list(limit: number, after?: string): Promise<{ teams: TeamView[]; hasMore: boolean }> {
    const rows = await this.repo.listTeams(limit + 1, after);
    return { teams: rows.slice(0, limit).map(toView), hasMore: rows.length > limit };
  }

  /** Changes name or limits; `within` runs in the same transaction with the team before and after. */
  async update(
    id: string,
    patch: TeamPatch,
    within?: TransactionHook<{ before: TeamView; after: TeamView }>,
  ): Promise<TeamView> {
    const team = await this.repo.updateTeam(
      id,
      patch,
      this.clock.now(),
      within && ((m, c) => within(m, { before: toView(c.before), after: toView(c.after) })),
    );
    if (!team) throw ApiError.notFound(`Team ${id} not found.`, 'team_not_found', 'id');
    for (const listener of this.changeListeners) listener(id);
    return toView(team);
  }

  /** Called with the team's id after each update made through this process (caches of team settings). */
  onChange(listener: (teamId: string) => void): void {
    this.changeListeners.push(listener);
  }
}

function toView(team: TeamEntity): TeamView {
  return {
    id: team.id,
    name: team.name,
    balanceMicro: team.balanceMicro,
    reservedMicro: team.reservedMicro,
    createdAt: team.createdAt,
    rpmLimit: team.rpmLimit ?? null,
    tpmLimit: team.tpmLimit ?? null,
    requestLogBodies: (REQUEST_LOG_LEVELS as readonly string[]).includes(team.requestLogBodies ?? '')
      ? (team.requestLogBodies as RequestLogBodies)
      : 'metadata',
    requestLogRetentionDays: team.requestLogRetentionDays ?? null,
    requestLogBodyRetentionDays: team.requestLogBodyRetentionDays ?? null,
    mcpAdhocServers: team.mcpAdhocServers === true,
  };
}
