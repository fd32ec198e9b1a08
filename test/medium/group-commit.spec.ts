import { BillingService, TeamsService } from '@app/billing';
import { rubToMicro } from '@app/common';
import { PgGroupCommit, SqliteGroupCommit } from '@app/database';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
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

/**
 * Postgres: a batch whose units are single statements goes out as ONE pipeline (one round trip, one
 * implicit transaction) instead of BEGIN, a round trip per unit and COMMIT; a statement that fails
 * there rolls the pipeline back, and its batch is re-run one unit per transaction, so only it fails.
 */
const onPostgres = backendKind() === 'postgres' ? describe : describe.skip;
onPostgres('group commit pipelines single statements on postgres', () => {
  let t: TestApp;
  let batch: PgGroupCommit;
  /** client.query calls made on pooled connections while `counting` */
  let queries = 0;
  let counting = false;

  beforeAll(async () => {
    t = await createTestApp({ env: { BILLING_CREDIT_GRANTS: 'false' } });
    batch = t.get(PgGroupCommit);
    const pool = (t.get(DataSource).driver as unknown as { master: Pool }).master;
    pool.on('acquire', (client: PoolClient & { countedQueries?: boolean }) => {
      if (client.countedQueries) return;
      client.countedQueries = true;
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        if (counting) queries++;
        return query(...args);
      };
    });
  });
  afterAll(() => t?.close());

  const single = (sql: string, params: unknown[]) => batch.run((q) => q.query(sql, params), { singleStatement: true });

  it('five single-statement units: one query on the wire, one commit, each unit its own result', async () => {
    const before = { ...batch.stats };
    queries = 0;
    counting = true;
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        single('SELECT $1::int * 2 AS n, $2::text AS s, NULL::int AS z', [i, `u${i}`]),
      ),
    );
    counting = false;
    expect(results.map((r) => r.rows)).toEqual(
      Array.from({ length: 5 }, (_, i) => [{ n: i * 2, s: `u${i}`, z: null }]),
    );
    expect(results.every((r) => r.affected === 1)).toBe(true);
    expect(queries).toBe(1);
    expect(batch.stats.units - before.units).toBe(5);
    expect(batch.stats.commits - before.commits).toBe(1);
  });

  it('the pipeline is one transaction: its writes are committed together, and a failing statement fails alone', async () => {
    const ds = t.get(DataSource);
    await ds.query('CREATE TABLE IF NOT EXISTS gc_pipeline_probe (id int PRIMARY KEY, v int NOT NULL)');
    await ds.query('DELETE FROM gc_pipeline_probe');
    try {
      const insert = (id: number, v: number) =>
        single('INSERT INTO gc_pipeline_probe (id, v) VALUES ($1, $2)', [id, v]);
      const outcomes = await Promise.allSettled([insert(1, 10), insert(2, 20), insert(1, 99), insert(3, 30)]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
      const rows = (await ds.query('SELECT id, v FROM gc_pipeline_probe ORDER BY id')) as Array<{
        id: number;
        v: number;
      }>;
      expect(rows).toEqual([
        { id: 1, v: 10 },
        { id: 2, v: 20 },
        { id: 3, v: 30 },
      ]);
      // the connection the failed pipeline used was dropped, not reused with unknown prepared statements
      expect((await single('SELECT 1 AS one', [])).rows).toEqual([{ one: 1 }]);
    } finally {
      await ds.query('DROP TABLE IF EXISTS gc_pipeline_probe');
    }
  });
});

/**
 * SQLite: a batch runs without savepoints; only when one of its units throws is it rolled back and
 * run again with a savepoint per unit, so the units batched with the one at fault are committed
 * exactly once and its own writes are gone.
 */
const onSqlite = backendKind() === 'embedded' ? describe : describe.skip;
onSqlite('group commit on sqlite runs a batch again unit by unit only when a unit throws', () => {
  let t: TestApp;
  let batch: SqliteGroupCommit;
  const boom = new Error('unit fault');
  const rows = () => batch.run((q) => q.all('SELECT k, n FROM gc_probe ORDER BY k', []));

  beforeAll(async () => {
    t = await createTestApp({});
    batch = t.get(SqliteGroupCommit);
    await batch.run((q) => q.run('CREATE TABLE gc_probe (k TEXT PRIMARY KEY, n INTEGER NOT NULL)', []));
  });
  afterAll(() => t?.close());
  beforeEach(() => batch.run((q) => q.run('DELETE FROM gc_probe', [])));

  it('a batch where no unit throws runs each unit once, in one commit', async () => {
    const before = { ...batch.stats };
    const calls = [0, 0, 0];
    const results = await Promise.all(
      ['a', 'b', 'c'].map((k, i) =>
        batch.run((q) => {
          calls[i]++;
          return q.run('INSERT INTO gc_probe (k, n) VALUES ($1, 1)', [k]);
        }),
      ),
    );
    expect(results).toEqual([1, 1, 1]);
    expect(calls).toEqual([1, 1, 1]);
    expect(batch.stats.commits - before.commits).toBe(1);
    expect(batch.stats.reruns - before.reruns).toBe(0);
    expect(await rows()).toEqual([
      { k: 'a', n: 1 },
      { k: 'b', n: 1 },
      { k: 'c', n: 1 },
    ]);
  });

  it('units batched with one that throws are committed once each; its own writes are rolled back', async () => {
    const before = { ...batch.stats };
    let firstCalls = 0;
    const results = await Promise.allSettled([
      batch.run((q) => {
        firstCalls++;
        return q.run('INSERT INTO gc_probe (k, n) VALUES ($1, 1)', ['a']);
      }),
      batch.run((q) => {
        q.run('INSERT INTO gc_probe (k, n) VALUES ($1, 1)', ['b']);
        throw boom;
      }),
      // reads what the first unit wrote: after the re-run it must see one row, not two attempts' worth
      batch.run((q) => q.run('UPDATE gc_probe SET n = n + 1 WHERE k = $1', ['a'])),
      batch.run((q) => q.run('INSERT INTO gc_probe (k, n) VALUES ($1, 1)', ['c'])),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBe(boom);
    // ran once without savepoints (rolled back at the fault), then once more with them
    expect(firstCalls).toBe(2);
    expect(batch.stats.reruns - before.reruns).toBe(1);
    expect(batch.stats.commits - before.commits).toBe(1);
    expect(await rows()).toEqual([
      { k: 'a', n: 2 },
      { k: 'c', n: 1 },
    ]);
  });

  it('a lone unit that throws fails with its own error and leaves nothing behind', async () => {
    const before = { ...batch.stats };
    await expect(
      batch.run((q) => {
        q.run('INSERT INTO gc_probe (k, n) VALUES ($1, 1)', ['lone']);
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(batch.stats.commits - before.commits).toBe(0);
    expect(await rows()).toEqual([]);
  });
});
