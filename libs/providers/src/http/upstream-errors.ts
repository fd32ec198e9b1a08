/**
 * Provider-neutral pieces of error mapping: status → error kind, Retry-After parsing and a
 * readable fallback message for bodies that are not the provider's error JSON.
 * Each adapter's `mapError` extracts its own message format and then calls `providerErrorFor`.
 */
import { ProviderError, ProviderErrorKind } from '../types';

/**
 * 400/404/409/413/422 → invalid_request (the provider's message goes to the caller);
 * 401/403 → auth; 429 → rate_limited; 408/504 → timeout; everything else (5xx, 529, odd 4xx like
 * 402 "no credits" that are the gateway's problem, not the caller's) → upstream.
 */
export function errorKindForStatus(status: number): ProviderErrorKind {
  switch (status) {
    case 400:
    case 404:
    case 409:
    case 413:
    case 422:
      return 'invalid_request';
    case 401:
    case 403:
      return 'auth';
    case 429:
      return 'rate_limited';
    case 408:
    case 504:
      return 'timeout';
    default:
      return 'upstream';
  }
}

/** Case-insensitive header lookup on a flattened header record. */
export function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/**
 * Retry delay in whole seconds from `retry-after-ms` (preferred, more precise) or `retry-after`
 * (delta-seconds, or an HTTP date read against `nowMs`, the gateway's clock — without it a date is
 * not read). Undefined when neither is present or readable.
 */
export function parseRetryAfterSeconds(headers: Record<string, string>, nowMs?: number): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) {
    return Math.ceil(Number(ms) / 1000);
  }
  const value = headerValue(headers, 'retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value));
  const at = Date.parse(value);
  if (Number.isNaN(at) || nowMs === undefined) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Parse a protobuf Duration string such as "41s" or "0.5s" into whole seconds (rounded up). */
export function parseDurationSeconds(value: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)s\s*$/.exec(value);
  return match ? Math.ceil(Number(match[1])) : undefined;
}

/** A message for a body the adapter could not read as the provider's error JSON. */
export function fallbackErrorMessage(status: number, body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  if (text === '' || text.startsWith('<')) return `Upstream returned HTTP ${status}`;
  return `Upstream returned HTTP ${status}: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
}

export interface ProviderErrorDetails {
  status: number;
  message: string;
  headers: Record<string, string>;
  param?: string | null;
  /** provider-specific retry hint (e.g. Gemini RetryInfo); headers win when both are present */
  retryAfterSeconds?: number;
  /** override the status-derived kind (e.g. Anthropic's error.type says more than the status) */
  kind?: ProviderErrorKind;
  /** the gateway's clock when the answer arrived (reads an HTTP-date Retry-After) */
  nowMs?: number;
}

/** Statuses worth another attempt by the gateway's retries; 529 is Anthropic's "overloaded". */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

/**
 * Build the ProviderError for a non-2xx answer. Retry-After is carried on rate_limited and on the
 * other retryable statuses (a 503 may say when to come back); the client only sees it on a 429.
 */
export function providerErrorFor(details: ProviderErrorDetails): ProviderError {
  const kind = details.kind ?? errorKindForStatus(details.status);
  const retryAfter =
    kind === 'rate_limited' || RETRYABLE_STATUSES.has(details.status)
      ? (parseRetryAfterSeconds(details.headers, details.nowMs) ?? details.retryAfterSeconds)
      : undefined;
  return new ProviderError(kind, details.message, details.status, retryAfter, details.param ?? null);
}
