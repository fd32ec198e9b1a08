import { Injectable } from '@nestjs/common';
import { ApiError, microToRub, rubToMicro } from '@app/common';
import { ApiKeysService } from '@app/auth';
import { BillingService, TeamsService } from '@app/billing';
import { CreatedApiKeyDto, TeamDetailsDto, TeamDto, TopUpResultDto } from './dto/admin.dto';

/** Orchestrates teams (billing) and keys (auth) for the admin API. */
@Injectable()
export class AdminService {
  constructor(
    private readonly teams: TeamsService,
    private readonly keys: ApiKeysService,
    private readonly billing: BillingService,
  ) {}

  async createTeam(name: string, balanceRub: number): Promise<TeamDto> {
    const team = await this.teams.create(name, rubToMicro(balanceRub));
    return { id: team.id, name: team.name, balance_rub: microToRub(team.balanceMicro) };
  }

  async getTeam(id: string): Promise<TeamDetailsDto> {
    const t = await this.teams.get(id);
    return { id: t.id, name: t.name, balance_rub: microToRub(t.balanceMicro), reserved_rub: microToRub(t.reservedMicro), created_at: new Date(t.createdAt).toISOString() };
  }

  async createKey(teamId: string, name: string | null): Promise<CreatedApiKeyDto> {
    if (!(await this.teams.exists(teamId))) throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found', 'id');
    const k = await this.keys.create(teamId, name);
    return { id: k.id, api_key: k.apiKey, prefix: k.prefix, name: k.name, created_at: new Date(k.createdAt).toISOString() };
  }

  revokeKey(id: string): Promise<void> {
    return this.keys.revoke(id);
  }

  async topUp(teamId: string, amountRub: number, reference: string | null): Promise<TopUpResultDto> {
    const r = await this.billing.topUp(teamId, rubToMicro(amountRub), reference);
    return { balance_rub: microToRub(r.balanceMicro), applied: r.applied };
  }
}
