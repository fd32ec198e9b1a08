import { Injectable, Optional } from '@nestjs/common';
import { MetricsService, RequestContexts } from '@app/common';
import { findProviderDefinition } from '@app/providers';
import type { DataPolicy } from './policy';
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
  ) {}

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
