import { Injectable, Optional } from '@nestjs/common';
import { MetricsService, RequestContexts } from '@app/common';
import { findProviderDefinition } from '@app/providers';
import { DataPolicyRepository } from './data-policy.repository';
import { parseStoredPolicy, type DataPolicy } from './policy';
import { withDefaults } from './policy-validation';
import { RequestProtection, type Jurisdiction, type ProtectedModel } from './request-protection';

/** What the protection needs of the caller: its team and the effective policy the key lookup put on it. */
export interface PolicyHolder {
  teamId: string;
  dataPolicy?: DataPolicy | null;
}

/** Where a catalog model's provider keeps the data (its definition's jurisdiction). */
export function jurisdictionOf(m: ProtectedModel): Jurisdiction {
  return findProviderDefinition(m.provider)?.jurisdiction ?? 'foreign';
}

/**
 * Hands each model call the data policy of its caller as a RequestProtection, reporting to the
 * request's context (request log) and to gateway_data_protection_requests_total.
 */
@Injectable()
export class DataProtection {
  constructor(
    @Optional() private readonly metrics?: MetricsService,
    @Optional() private readonly requests?: RequestContexts,
    @Optional() private readonly policies?: DataPolicyRepository,
  ) {}

  /** Work done for a team without a caller (knowledge-base ingestion): the team's own policy. */
  async forTeam(teamId: string): Promise<RequestProtection> {
    const row = await this.policies?.find(teamId);
    const stored = parseStoredPolicy<DataPolicy>(row?.policy);
    const policy = stored ? withDefaults(stored) : null;
    return this.forRequest({
      teamId,
      dataPolicy: policy && (policy.residency !== 'any' || policy.pii !== 'off') ? policy : null,
    });
  }

  forRequest(caller: PolicyHolder, requestId?: string): RequestProtection {
    const context = requestId !== undefined ? this.requests?.get(requestId) : undefined;
    const counted = new Set<string>();
    return new RequestProtection(caller.dataPolicy ?? null, jurisdictionOf, {
      context,
      count: (action) => {
        if (counted.has(action)) return;
        counted.add(action);
        this.metrics?.dataProtection(caller.teamId, action);
      },
    });
  }
}
