import { Injectable } from '@nestjs/common';
import { Clock } from '@app/common';
import { ApiKeysService } from '@app/auth';
import type { Actor } from '@app/accounts/audit';
import { DataPolicyRepository } from './data-policy.repository';
import { DataPolicyDto, PutDataPolicyDto } from './dto/data-policy.dto';
import { OPEN_POLICY, parseStoredPolicy, type DataPolicy } from './policy';
import { canonicalPolicy, withDefaults } from './policy-validation';

/**
 * A team's data policy: validated (custom patterns compiled), stored, audit-logged. The policy is
 * read on every request with the caller (ApiKeysService puts the effective policy on the Caller), so
 * a change drops the team's cached key lookups here, in Redis and on the other replicas.
 */
@Injectable()
export class DataPolicyService {
  constructor(
    private readonly repo: DataPolicyRepository,
    private readonly keys: ApiKeysService,
    private readonly clock: Clock,
  ) {}

  async get(teamId: string): Promise<DataPolicyDto> {
    const row = await this.repo.find(teamId);
    const policy = parseStoredPolicy<DataPolicy>(row?.policy) ?? OPEN_POLICY;
    return view(withDefaults(policy), row?.updatedAt ?? null);
  }

  async put(teamId: string, body: PutDataPolicyDto, actor: Actor): Promise<DataPolicyDto> {
    const policy = withDefaults(canonicalPolicy(body, 'body'));
    const now = this.clock.now();
    await this.repo.put(teamId, JSON.stringify(policy), now, {
      actor,
      teamId,
      action: 'team.data_policy.update',
      targetType: 'team',
      targetId: teamId,
    });
    await this.keys.forgetTeam(teamId);
    return view(policy, now);
  }
}

function view(p: DataPolicy, updatedAt: number | null): DataPolicyDto {
  return { ...p, updated_at: updatedAt === null ? null : new Date(updatedAt).toISOString() };
}
