import { Injectable, Logger } from '@nestjs/common';

/** What the resilience layer did, for metrics and logs (/metrics counts retries and fallbacks from these). */
export type ResilienceEvent =
  /** a retryable failure of `model` on `deployment`; another attempt follows after `delayMs` */
  | {
      type: 'retry';
      model: string;
      provider: string;
      deployment: string;
      retry: number;
      delayMs: number;
      status: number | null;
      requestId?: string;
    }
  /** `from` failed (after its retries) or is unavailable; `to` is tried next */
  | { type: 'fallback'; from: string; to: string; reason: 'failed' | 'unavailable'; requestId?: string }
  /** `deployment` of `model` failed and is skipped for `ms` (when another is available) */
  | { type: 'cooldown'; model: string; deployment: string; ms: number };

export type ResilienceListener = (event: ResilienceEvent) => void;

/**
 * A tiny synchronous event bus. Observability subscribes (`events.subscribe(e => …)`); the
 * resilience layer emits. A listener that throws is logged and never breaks a request.
 */
@Injectable()
export class ResilienceEvents {
  private readonly logger = new Logger('Resilience');
  private readonly listeners = new Set<ResilienceListener>();

  subscribe(listener: ResilienceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: ResilienceEvent): void {
    if (event.type === 'retry') this.logger.warn(event, 'retryable upstream failure: retrying');
    else if (event.type === 'fallback') this.logger.warn(event, 'falling back to the next model');
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.logger.error({ err }, 'resilience listener failed');
      }
    }
  }
}
