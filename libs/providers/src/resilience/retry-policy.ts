/**
 * Pure retry rules: which upstream failures are worth another attempt, and how long to
 * wait before it (exponential backoff with full jitter, or the provider's Retry-After up to a cap).
 */
import { ProviderConnectionError } from '../http/provider-http.client';
import { RETRYABLE_STATUSES } from '../http/upstream-errors';
import { ProviderError } from '../types';

export interface BackoffSettings {
  /** first step; retry k (0-based) waits a random time in [0, min(maxDelayMs, baseDelayMs × 2^k)] */
  baseDelayMs: number;
  maxDelayMs: number;
  /** a Retry-After from the provider is waited for, but never longer than this */
  retryAfterMaxMs: number;
}

/**
 * Retryable: the connection failed (refused, reset, closed, connect timeout) or the provider
 * answered 408/409/429/500/502/503/504/529. Not retryable: other 4xx (the request itself is wrong,
 * or the credentials are), unreadable bodies, the gateway's own response deadline, caller aborts.
 */
export function isRetryableError(err: unknown): boolean {
  if (err instanceof ProviderConnectionError) return true;
  if (!(err instanceof ProviderError)) return false;
  return err.upstreamStatus !== undefined && RETRYABLE_STATUSES.has(err.upstreamStatus);
}

/** Full jitter: uniform in [0, min(max, base × 2^retry)], whole ms. `random` returns [0, 1). */
export function backoffDelayMs(
  retry: number,
  s: Pick<BackoffSettings, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** Math.max(0, retry));
  return Math.floor(Math.min(0.999999, Math.max(0, random())) * (ceiling + 1));
}

/** The wait before retry `retry` (0-based) after `err`: the provider's Retry-After (capped) when it gave one, else backoff. */
export function retryDelayMs(
  err: unknown,
  retry: number,
  s: BackoffSettings,
  random: () => number = Math.random,
): number {
  const hinted = err instanceof ProviderError ? err.retryAfterSeconds : undefined;
  if (hinted !== undefined && Number.isFinite(hinted) && hinted >= 0) return Math.min(hinted * 1000, s.retryAfterMaxMs);
  return backoffDelayMs(retry, s, random);
}
