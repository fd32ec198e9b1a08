import { Injectable, Optional } from '@nestjs/common';
import { MetricsService } from '@app/common';

/** Which limit refused a request. */
export interface RateLimitRejection {
  scope: 'key' | 'team';
  /** 'requests' (per minute) or 'tokens' (per minute) */
  limit: 'requests' | 'tokens';
  teamId: string;
  apiKeyId: string;
}

export type RateLimitListener = (event: RateLimitRejection) => void;

/**
 * Every 429 of the rate limiter is published here: counted in `gateway_rate_limited_total`
 * {scope, kind} and passed to listeners (they run synchronously; a throwing listener is ignored).
 * `counts()` keeps totals.
 */
@Injectable()
export class RateLimitEvents {
  private readonly listeners = new Set<RateLimitListener>();
  private readonly totals = { requests: 0, tokens: 0 };

  constructor(@Optional() private readonly metrics?: MetricsService) {}

  /** Returns the unsubscribe function. */
  onRejected(listener: RateLimitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  rejected(event: RateLimitRejection): void {
    this.totals[event.limit]++;
    this.metrics?.rateLimited(event.scope, event.limit);
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        /* a metrics listener never breaks a request */
      }
    }
  }

  counts(): { requests: number; tokens: number } {
    return { ...this.totals };
  }
}
