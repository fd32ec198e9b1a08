import { ApiKeysService, CreatedApiKey } from '@app/auth';
import { TeamsService, TeamView } from '@app/billing';
import { rubToMicro } from '@app/common';
import type { TestApp } from '../support/test-app';

export { AdminClient } from '../support/admin-client';

let seq = 0;

/**
 * Test data made through the real services (same rules and repositories as production), for medium
 * specs that hold a TestApp. E2E specs, which only speak HTTP, use AdminClient (re-exported here).
 */
export class Factories {
  constructor(private readonly t: TestApp) {}

  /** A team with `balanceRub` (opening balance written to the ledger like an admin top-up). */
  team(balanceRub = 100, name = `team-${++seq}`): Promise<TeamView> {
    return this.t.get(TeamsService).create(name, rubToMicro(balanceRub));
  }

  /** An API key of the team (the raw key is returned once, as the admin API does). */
  key(teamId: string, name: string | null = `key-${++seq}`): Promise<CreatedApiKey> {
    return this.t.get(ApiKeysService).create(teamId, name);
  }

  /** A team with a balance and one key. */
  async teamWithKey(balanceRub = 100): Promise<{ team: TeamView; key: CreatedApiKey }> {
    const team = await this.team(balanceRub);
    return { team, key: await this.key(team.id) };
  }
}
