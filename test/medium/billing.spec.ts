import { BillingService, TeamsService } from '@app/billing';
import { BillingRepository } from '@app/billing/billing.repository';
import { ApiError, newId, rubToMicro } from '@app/common';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/** Real repositories against a real database (SQLite; Postgres when GW_TEST_BACKEND=postgres). */
describe(`billing core on ${backendKind()}`, () => {
  let t: TestApp;
  let billing: BillingService;
  let teams: TeamsService;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));

  beforeAll(async () => {
    t = await createTestApp({ clock, env: { RESERVATION_TTL_SECONDS: '60' } });
    billing = t.get(BillingService);
    teams = t.get(TeamsService);
  });
  afterAll(() => t?.close());

  async function expectReplayMatches(teamId: string): Promise<void> {
    const entries = await billing.ledger(teamId);
    let running = 0;
    for (const e of entries) {
      running += e.amountMicro;
      expect(e.balanceAfterMicro).toBe(running);
    }
    expect((await billing.balance(teamId)).balanceMicro).toBe(running);
  }

  it('200 concurrent reservations against a balance that covers 50: exactly 50 succeed', async () => {
    const team = await teams.create('concurrency', rubToMicro(50)); // 50 RUB
    const each = rubToMicro(1);
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => billing.reserve(team.id, each, `req-${i}`)),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(50);
    expect(refused).toHaveLength(150);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(ApiError);
      expect((r.reason as ApiError).status).toBe(402);
      expect((r.reason as ApiError).type).toBe('insufficient_quota');
    }
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(50), reservedMicro: rubToMicro(50) });

    // settle all concurrently at varying actual costs, some above the reservation (charged in full: the charge is what the provider reports)
    const reservations = ok.map(
      (r) => (r as PromiseFulfilledResult<Awaited<ReturnType<BillingService['reserve']>>>).value,
    );
    await Promise.all(
      reservations.map((r, i) =>
        billing.settle(r, i % 10 === 0 ? rubToMicro(2) : rubToMicro(0.5), {
          endpoint: 'test',
          model: 'm',
          apiKeyId: null,
          promptTokens: 1,
          completionTokens: 1,
        }),
      ),
    );
    const after = await billing.balance(team.id);
    // 5 at 2 RUB (1 RUB over their holds) + 45 at 0.5 RUB = 32.5 RUB charged: the ledger is tokens × price, never capped
    expect(after).toEqual({ balanceMicro: rubToMicro(50 - 32.5), reservedMicro: 0 });
    expect(after.balanceMicro).toBeGreaterThanOrEqual(0);
    expect(billing.stats()).toMatchObject({ overruns: expect.any(Number), overrunMicro: expect.any(Number) });
    expect(billing.stats().overruns).toBeGreaterThanOrEqual(5);
    await expectReplayMatches(team.id);
  });

  it('concurrent reserve/settle/release cycles never drive the balance below zero', async () => {
    const team = await teams.create('churn', rubToMicro(10));
    await Promise.allSettled(
      Array.from({ length: 120 }, async (_, i) => {
        const r = await billing.reserve(team.id, rubToMicro(0.4), `c-${i}`);
        if (i % 3 === 0) await billing.release(r);
        else
          await billing.settle(r, rubToMicro(0.3), {
            endpoint: 'test',
            model: null,
            apiKeyId: null,
            promptTokens: 0,
            completionTokens: 0,
          });
      }),
    );
    const b = await billing.balance(team.id);
    expect(b.reservedMicro).toBe(0);
    expect(b.balanceMicro).toBeGreaterThanOrEqual(0);
    // at most floor(10 / 0.3) settles can have been paid for
    expect(b.balanceMicro).toBeLessThanOrEqual(rubToMicro(10));
    await expectReplayMatches(team.id);
  });

  it('settle charges exactly the actual cost, once; release charges nothing', async () => {
    const team = await teams.create('settle', rubToMicro(5));
    const r = await billing.reserve(team.id, rubToMicro(2), 'settle-1');
    const s = await billing.settle(r, 1234, {
      endpoint: '/x',
      model: 'm',
      apiKeyId: null,
      promptTokens: 10,
      completionTokens: 5,
    });
    expect(s.chargedMicro).toBe(1234);
    expect(s.balanceAfterMicro).toBe(rubToMicro(5) - 1234);
    await expect(
      billing.settle(r, 1234, { endpoint: '/x', model: 'm', apiKeyId: null, promptTokens: 10, completionTokens: 5 }),
    ).rejects.toMatchObject({ status: 503 });
    const r2 = await billing.reserve(team.id, rubToMicro(2), 'release-1');
    await billing.release(r2);
    await billing.release(r2); // idempotent
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(5) - 1234, reservedMicro: 0 });
    const usage = await billing.usage(team.id, 10);
    expect(usage[0]).toMatchObject({
      kind: 'charge',
      requestId: 'settle-1',
      endpoint: '/x',
      model: 'm',
      promptTokens: 10,
      completionTokens: 5,
      totalTokens: 15,
      amountMicro: -1234,
    });
    await expectReplayMatches(team.id);
  });

  it('expired reservations are released by the sweeper; a late settle still charges (the provider billed it)', async () => {
    const team = await teams.create('expiry', rubToMicro(3));
    // reserved by a replica that then crashed (a live replica keeps its own holds alive)
    const crashed = { id: newId(), teamId: team.id, requestId: 'crashed', amountMicro: rubToMicro(3) };
    expect(
      await t.get(BillingRepository).reserve({ ...crashed, now: clock.now(), expiresAt: clock.now() + 60_000 }),
    ).toEqual({ ok: true });
    const r = crashed;
    await expect(billing.reserve(team.id, rubToMicro(1), 'blocked')).rejects.toMatchObject({ status: 402 });
    expect(await billing.sweepExpired()).toBe(0); // not yet expired
    clock.advance(61_000);
    expect(await billing.sweepExpired()).toBeGreaterThanOrEqual(1);
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(3), reservedMicro: 0 });
    const late = await billing.settle(r, 100, {
      endpoint: 'x',
      model: null,
      apiKeyId: null,
      promptTokens: 0,
      completionTokens: 0,
    });
    expect(late.chargedMicro).toBe(100);
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(3) - 100, reservedMicro: 0 });
    // settled once: a second settle of the same reservation is refused and charges nothing
    await expect(
      billing.settle(r, 100, { endpoint: 'x', model: null, apiKeyId: null, promptTokens: 0, completionTokens: 0 }),
    ).rejects.toMatchObject({ status: 503 });
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(3) - 100, reservedMicro: 0 });
    const again = await billing.reserve(team.id, rubToMicro(1), 'after-expiry');
    await billing.release(again);
  });

  it('top-ups are idempotent by reference, also when raced', async () => {
    const team = await teams.create('topups', 0);
    const first = await billing.topUp(team.id, rubToMicro(100), 'inv-1');
    expect(first).toEqual({ applied: true, balanceMicro: rubToMicro(100) });
    const again = await billing.topUp(team.id, rubToMicro(100), 'inv-1');
    expect(again).toEqual({ applied: false, balanceMicro: rubToMicro(100) });
    const raced = await Promise.all(Array.from({ length: 10 }, () => billing.topUp(team.id, rubToMicro(7), 'inv-2')));
    expect(raced.filter((r) => r.applied)).toHaveLength(1);
    await billing.topUp(team.id, rubToMicro(1), null);
    await billing.topUp(team.id, rubToMicro(1), null); // no reference: always applied
    expect((await billing.balance(team.id)).balanceMicro).toBe(rubToMicro(109));
    await expectReplayMatches(team.id);
  });

  it('402 message states the balance and the required amount', async () => {
    const team = await teams.create('poor', rubToMicro(0.5));
    await expect(billing.reserve(team.id, rubToMicro(2), 'x')).rejects.toThrow(
      /0\.50? RUB available.*requires up to 2(\.00)? RUB/,
    );
  });
});
