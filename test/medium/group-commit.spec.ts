import { BillingService, TeamsService } from '@app/billing';
import { rubToMicro } from '@app/common';
import { PgGroupCommit, SqliteGroupCommit } from '@app/database';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/**
 * Group commit of billing writes: concurrent holds and settles share transactions, each
 * caller resumes only once its unit is committed, and a unit that fails is rolled back alone.
 */
describe(`group commit on ${backendKind()}`, () => {
  let t: TestApp;
  let billing: BillingService;
  let teams: TeamsService;
  let batch: SqliteGroupCommit | PgGroupCommit;

  beforeAll(async () => {
    // every hold a write of its own (with credit grants holds write nothing: test/billing/credit-grants)
    t = await createTestApp({ env: { BILLING_CREDIT_GRANTS: 'false' } });
    billing = t.get(BillingService);
    teams = t.get(TeamsService);
    const sqlite = t.get(SqliteGroupCommit);
    batch = sqlite.available ? sqlite : t.get(PgGroupCommit);
    expect(batch.available).toBe(true);
  });
  afterAll(() => t?.close());

  it('100 concurrent reservations and settles take far fewer commits than units, and every charge is exact', async () => {
    const team = await teams.create('group-commit', rubToMicro(100));
    const before = { ...batch.stats };
    const holds = await Promise.all(
      Array.from({ length: 100 }, (_, i) => billing.reserve(team.id, rubToMicro(1), `gc-${i}`)),
    );
    await Promise.all(
      holds.map((h) =>
        billing.settle(h, rubToMicro(0.25), {
          endpoint: 'test',
          model: 'm',
          apiKeyId: null,
          promptTokens: 1,
          completionTokens: 1,
        }),
      ),
    );
    const units = batch.stats.units - before.units;
    const commits = batch.stats.commits - before.commits;
    expect(units).toBe(200);
    expect(commits).toBeLessThan(units / 4);
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(75), reservedMicro: 0 });
    expect((await billing.ledger(team.id)).filter((e) => e.kind === 'charge')).toHaveLength(100);
  });

  it('the caller resumes after the commit: what it waited for is visible to a fresh read', async () => {
    const team = await teams.create('group-commit-visible', rubToMicro(10));
    const hold = await billing.reserve(team.id, rubToMicro(3), 'gc-visible');
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(10), reservedMicro: rubToMicro(3) });
    await billing.settle(hold, rubToMicro(2), {
      endpoint: 'test',
      model: 'm',
      apiKeyId: null,
      promptTokens: 1,
      completionTokens: 1,
    });
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(8), reservedMicro: 0 });
  });

  it('a unit that throws fails alone: the units batched with it are committed', async () => {
    const team = await teams.create('group-commit-fault', rubToMicro(10));
    const boom = new Error('unit fault');
    const run = (work: () => void): Promise<unknown> =>
      batch instanceof SqliteGroupCommit ? batch.run(() => work()) : batch.run(async () => work());
    const results = await Promise.allSettled([
      billing.reserve(team.id, rubToMicro(1), 'gc-a'),
      run(() => {
        throw boom;
      }),
      billing.reserve(team.id, rubToMicro(1), 'gc-b'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBe(boom);
    expect(await billing.balance(team.id)).toEqual({ balanceMicro: rubToMicro(10), reservedMicro: rubToMicro(2) });
  });
});
