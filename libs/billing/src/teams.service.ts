import { Injectable } from '@nestjs/common';
import { ApiError, Clock, newId } from '@app/common';
import { BillingRepository } from './billing.repository';

export interface TeamView {
  id: string;
  name: string;
  balanceMicro: number;
  reservedMicro: number;
  createdAt: number;
}

/** Team workspaces are billing accounts: they live in billing, with their balance. */
@Injectable()
export class TeamsService {
  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: Clock,
  ) {}

  async create(name: string, openingBalanceMicro: number, id: string = newId()): Promise<TeamView> {
    const team = await this.repo.createTeam({ id, name, now: this.clock.now() }, openingBalanceMicro, openingBalanceMicro > 0 ? 'opening-balance' : null);
    return { id: team.id, name: team.name, balanceMicro: team.balanceMicro, reservedMicro: team.reservedMicro, createdAt: team.createdAt };
  }

  /** Idempotent creation for bootstrap: insert-if-absent. */
  async ensure(id: string, name: string): Promise<void> {
    await this.repo.ensureTeam(id, name, this.clock.now());
  }

  async get(id: string): Promise<TeamView> {
    const team = await this.repo.findTeam(id);
    if (!team) throw ApiError.notFound(`Team ${id} not found.`, 'team_not_found', 'id');
    return { id: team.id, name: team.name, balanceMicro: team.balanceMicro, reservedMicro: team.reservedMicro, createdAt: team.createdAt };
  }

  async exists(id: string): Promise<boolean> {
    return (await this.repo.findTeam(id)) !== null;
  }
}
