import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { ApiError, Clock, MetricsService, RequestContext, RequestContexts } from '@app/common';
import { AppConfig } from '@app/config';
import { MemoryRateLimiter, RateLimitEvents, RateLimitService } from '@app/governance';
import { BillingRepository, ReserveOutcome } from './billing.repository';
import { BillingService } from './billing.service';

/** meter() governs the spec's caller: rate limits first (headers through the request's context), then the hold with the key's budgets. */
describe('BillingService.meter governance (unit)', () => {
  const clock = new (class extends Clock {
    override now(): number {
      return Date.UTC(2026, 10, 23, 12);
    }
  })();
  const reserves: Array<Record<string, unknown>> = [];
  const repo = {
    reserve: async (r: Record<string, unknown>): Promise<ReserveOutcome> => {
      reserves.push(r);
      return { ok: true };
    },
    settle: async (_id: string, actual: number) => ({
      ok: true,
      chargedMicro: actual,
      balanceAfterMicro: 0,
      ledgerId: 1,
    }),
    release: async () => true,
  };
  const config = AppConfig.fromEnv({
    BILLING_CREDIT_GRANTS: 'false',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'billing-gov-')),
  });
  const limits = new RateLimitService(new MemoryRateLimiter(), clock, config, new RateLimitEvents());
  const contexts = new RequestContexts();
  const billing = new BillingService(
    repo as unknown as BillingRepository,
    clock,
    config,
    new MetricsService(),
    contexts,
    limits,
  );

  /** a live request (as the request observer registers it) whose response records the headers set */
  let n = 0;
  const context = () => {
    const headers: Record<string, string> = {};
    const res = {
      headersSent: false,
      setHeader: (k: string, v: string) => (headers[k.toLowerCase()] = v),
    } as unknown as ServerResponse;
    const ctx = new RequestContext(`r${++n}`, 0, res);
    contexts.register(ctx);
    return { requestId: ctx.requestId, headers };
  };
  const caller = {
    teamId: 't1',
    apiKeyId: 'k1',
    keyPrefix: 'sk-x',
    limits: { keyRpm: 2, keyTpm: 100, teamRpm: null, teamTpm: null, budgetDayMicro: 5_000_000, budgetMonthMicro: null },
  };
  const spec = (tokens: number, requestId = 'background', withCaller = true) => ({
    teamId: 't1',
    requestId,
    caller: withCaller ? caller : undefined,
    holdMicro: 1000,
    estimatedTokens: 10,
    run: async () => 'ok',
    charge: () => ({
      costMicro: 900,
      details: { endpoint: '/v1/embeddings', model: 'm', apiKeyId: 'k1', promptTokens: tokens, completionTokens: 0 },
    }),
  });

  it('sets the rate headers, holds against the key budget, corrects tokens, refuses the third request with 429 before any hold', async () => {
    const one = context();
    await billing.meter(spec(40, one.requestId));
    expect(one.headers).toMatchObject({
      'x-ratelimit-limit-requests': '2',
      'x-ratelimit-remaining-requests': '1',
      'x-ratelimit-limit-tokens': '100',
      'x-ratelimit-remaining-tokens': '90',
    });
    expect(reserves[0]).toMatchObject({
      teamId: 't1',
      apiKeyId: 'k1',
      amountMicro: 1000,
      budgets: [{ period: 'd:2026-11-23', capMicro: 5_000_000 }],
    });
    await new Promise((r) => setImmediate(r)); // the settle correction is off the request path
    const two = context();
    await billing.meter(spec(10, two.requestId));
    expect(two.headers['x-ratelimit-remaining-tokens']).toBe('50'); // 100 − 40 (first, corrected) − 10 (estimate)
    const three = context();
    const err = await billing.meter(spec(10, three.requestId)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, type: 'requests' });
    expect(three.headers['retry-after']).toBe('30');
    expect(reserves).toHaveLength(2);
  });

  it('a request id shared by concurrent requests still counts against the limits (no headers then)', async () => {
    const a = context();
    contexts.register(new RequestContext(a.requestId, 0)); // a second live request with the same id
    const other = { ...caller, apiKeyId: 'k2' };
    const shared = () => billing.meter({ ...spec(1, a.requestId), caller: other });
    await shared();
    await shared();
    await expect(shared()).rejects.toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(a.headers).toEqual({});
  });

  it('outside a request (background work, no caller) nothing is limited and no key budget applies', async () => {
    reserves.length = 0;
    for (let i = 0; i < 5; i++) await billing.meter(spec(10, 'background', false));
    expect(reserves.map((r) => [r.apiKeyId, (r.budgets as unknown[]).length])).toEqual(
      Array.from({ length: 5 }, () => [null, 0]),
    );
  });
});
