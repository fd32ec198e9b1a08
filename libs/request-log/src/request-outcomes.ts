import { Injectable } from '@nestjs/common';
import { RequestLogRepository } from './request-log.repository';

/** How many of a team's logged requests failed or were refused (HTTP status ≥ 400) — for error-rate alerts. */
@Injectable()
export class RequestOutcomes {
  constructor(private readonly repo: RequestLogRepository) {}

  /** The team's requests logged at or after `since` (epoch ms), and those answered with a status ≥ 400. */
  since(teamId: string, since: number): Promise<{ total: number; errors: number }> {
    return this.repo.outcomesSince(teamId, since);
  }
}
