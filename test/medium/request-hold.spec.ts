import { BillingService, TeamsService } from '@app/billing';
import { rubToMicro } from '@app/common';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/**
 * A request hold (BillingService.openRequestHold) against a real database: the steps metered within
 * it take their holds out of it (no other request can take that money meanwhile), each settles its
 * exact cost, and the last step releases what is left.
 */
describe(`request holds on ${backendKind()}`, () => {
  let t: TestApp;
  let billing: BillingService;
  let teams: TeamsService;

  beforeAll(async () => {
    t = await createTestApp();
    billing = t.get(BillingService);
    teams = t.get(TeamsService);
  });
  afterAll(() => t?.close());

  const step = (
    teamId: string,
    hold: Awaited<ReturnType<BillingService['openRequestHold']>>,
    micro: number,
    last = false,
  ) =>
    billing.meter({
      teamId,
      requestId: 'req-hold',
      holdMicro: micro * 2,
      within: { hold, last },
      run: async () => micro,
      charge: (cost) => ({
        costMicro: cost,
        details: { endpoint: 'test', model: 'm', apiKeyId: null, promptTokens: 1, completionTokens: 0 },
      }),
    });

  it('steps hold from the request hold; a concurrent request cannot take that money; the last step releases the rest', async () => {
    const team = await teams.create('hold', rubToMicro(10));
    const hold = await billing.openRequestHold({ teamId: team.id, requestId: 'req-hold', holdMicro: rubToMicro(8) });
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(10), reservedMicro: rubToMicro(8) });
    // 2 RUB are free: 20 concurrent 1-RUB requests elsewhere → exactly 2 admitted
    const others = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => billing.reserve(team.id, rubToMicro(1), `other-${i}`)),
    );
    expect(others.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    for (const r of others) if (r.status === 'fulfilled') await billing.release(r.value);

    await step(team.id, hold, rubToMicro(1)); // holds 2, charges 1
    expect(hold.remainingMicro).toBe(rubToMicro(6));
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(9), reservedMicro: rubToMicro(6) });
    await step(team.id, hold, rubToMicro(1.5), true); // holds 3, charges 1.5, releases the other 3
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(7.5), reservedMicro: 0 });
    const charges = (await billing.ledger(team.id)).filter((e) => e.kind === 'charge').map((e) => e.amountMicro);
    expect(charges.sort((x, y) => x - y)).toEqual([-rubToMicro(1.5), -rubToMicro(1)]);
  });

  it('a request hold the balance cannot cover is refused (402) and holds nothing; close releases an unused one', async () => {
    const team = await teams.create('small', rubToMicro(1));
    await expect(
      billing.openRequestHold({ teamId: team.id, requestId: 'r', holdMicro: rubToMicro(2) }),
    ).rejects.toMatchObject({ status: 402 });
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(1), reservedMicro: 0 });
    const hold = await billing.openRequestHold({ teamId: team.id, requestId: 'r', holdMicro: rubToMicro(1) });
    expect((await billing.balance(team.id)).reservedMicro).toBe(rubToMicro(1));
    await hold.close();
    await hold.close();
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(1), reservedMicro: 0 });
  });
});
