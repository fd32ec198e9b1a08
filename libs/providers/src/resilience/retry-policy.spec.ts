import { ProviderConnectionError, ProviderAbortError } from '../http/provider-http.client';
import { providerErrorFor } from '../http/upstream-errors';
import { ProviderError } from '../types';
import { backoffDelayMs, isRetryableError, retryDelayMs } from './retry-policy';

const S = { baseDelayMs: 100, maxDelayMs: 1_000, retryAfterMaxMs: 5_000 };
const status = (s: number, headers: Record<string, string> = {}) =>
  providerErrorFor({ status: s, message: 'x', headers });

describe('retry classification', () => {
  it.each([408, 409, 429, 500, 502, 503, 504, 529])('HTTP %i is retryable', (s) => {
    expect(isRetryableError(status(s))).toBe(true);
  });

  it.each([400, 401, 403, 404, 413, 422, 402, 501])('HTTP %i is not', (s) => {
    expect(isRetryableError(status(s))).toBe(false);
  });

  it('connection failures are retryable; unreadable bodies, the own deadline, aborts and other errors are not', () => {
    expect(
      isRetryableError(
        new ProviderConnectionError(
          'upstream',
          'Upstream request failed: the provider could not be reached (ECONNRESET)',
        ),
      ),
    ).toBe(true);
    expect(
      isRetryableError(new ProviderConnectionError('timeout', 'Upstream timed out (UND_ERR_CONNECT_TIMEOUT)')),
    ).toBe(true);
    expect(isRetryableError(new ProviderError('upstream', 'Upstream returned an unparsable JSON body', 200))).toBe(
      false,
    );
    expect(isRetryableError(new ProviderError('timeout', 'Upstream did not answer within 300 ms'))).toBe(false);
    expect(isRetryableError(new ProviderError('upstream', 'stream ended early'))).toBe(false);
    expect(isRetryableError(new ProviderAbortError())).toBe(false);
    expect(isRetryableError(new Error('boom'))).toBe(false);
  });
});

describe('backoff with full jitter', () => {
  it('stays within [0, min(max, base × 2^retry)] and reaches the ceiling', () => {
    for (let retry = 0; retry < 8; retry++) {
      const ceiling = Math.min(S.maxDelayMs, S.baseDelayMs * 2 ** retry);
      expect(backoffDelayMs(retry, S, () => 0)).toBe(0);
      expect(backoffDelayMs(retry, S, () => 0.999999999)).toBe(ceiling);
      for (let i = 0; i < 200; i++) {
        const d = backoffDelayMs(retry, S);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(ceiling);
        expect(Number.isInteger(d)).toBe(true);
      }
    }
    expect(backoffDelayMs(2, S, () => 0.5)).toBe(200);
  });

  it('jitter spreads the delays (not a fixed step)', () => {
    const seen = new Set(Array.from({ length: 100 }, () => backoffDelayMs(3, S)));
    expect(seen.size).toBeGreaterThan(20);
  });
});

describe('Retry-After', () => {
  it('is waited for when the provider gives one, up to the cap', () => {
    expect(retryDelayMs(status(429, { 'retry-after': '2' }), 0, S, () => 0)).toBe(2_000);
    expect(retryDelayMs(status(503, { 'retry-after': '3' }), 0, S, () => 0)).toBe(3_000);
    expect(retryDelayMs(status(429, { 'retry-after': '60' }), 0, S, () => 0)).toBe(5_000);
    expect(retryDelayMs(status(429, { 'retry-after-ms': '1500' }), 0, S, () => 0)).toBe(2_000);
  });

  it('without one, the backoff applies', () => {
    expect(retryDelayMs(status(500), 1, S, () => 0.5)).toBe(100);
    expect(retryDelayMs(new ProviderConnectionError('upstream', 'reset'), 0, S, () => 0.999999)).toBe(100);
  });
});
