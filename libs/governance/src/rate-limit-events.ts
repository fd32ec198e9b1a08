import { Injectable } from '@nestjs/common';

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
 * The hook for metrics: every 429 of the rate limiter is published here (listeners run
 * synchronously and must not throw; a throwing listener is ignored). `counts()` keeps totals.
 */
@Injectable()
export class RateLimitEvents {
  private readonly listeners = new Set<RateLimitListener>();
  private readonly totals = { requests: 0, tokens: 0 };

  /** Returns the unsubscribe function. */
  onRejected(listener: RateLimitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  rejected(event: RateLimitRejection): void {
    this.totals[event.limit]++;
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
