import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Database, Statement } from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { TransactionRunner } from './transaction-runner';

export type SqliteRow = Record<string, unknown>;

/**
 * Prepared-statement access for one unit of work inside a group commit (synchronous). Placeholders
 * are `$n` as in RawSql (rewritten to `?` once per statement text), so a repository can share SQL
 * text between its Postgres and SQLite paths.
 */
export interface SqliteStatements {
  /** INSERT / UPDATE / DELETE without RETURNING: rows changed */
  run(sql: string, params: unknown[]): number;
  /** SELECT or a write with RETURNING: every row */
  all(sql: string, params: unknown[]): SqliteRow[];
  /** either, shaped like RawSql.exec: rows (none for a plain write) and rows changed / returned */
  exec(sql: string, params: unknown[]): { rows: SqliteRow[]; affected: number };
}

type UnitResult = { ok: true; value: unknown } | { ok: false; err: unknown };

/** A batch's two ways to run (see commitBatch). */
type BatchTransactions = Record<'plain' | 'guarded', ReturnType<Database['transaction']>>;

/** A unit's own error, thrown out of a batch run without savepoints so the batch can run again with them. */
class UnitThrew extends Error {
  constructor(readonly unitError: unknown) {
    super('a unit of the batch threw');
  }
}

interface Pending {
  work: (q: SqliteStatements) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for the embedded SQLite database: units of work queued during one turn of the event
 * loop run together in ONE transaction (a unit that throws is rolled back alone: see commitBatch),
 * and every caller's promise settles only AFTER that transaction committed —
 * each answer still waits for its own durable write, but a burst of N requests pays one commit
 * instead of N, and no async round trip through the ORM per statement.
 *
 * Units are synchronous functions over prepared statements (better-sqlite3 runs them in place),
 * cached by SQL text. Batches run in the TransactionRunner's queue, so they never interleave with
 * the ORM transactions it serialises; should the connection be inside some other transaction the
 * batch waits for it to end. Only for SQLite (`available` is false on Postgres).
 */
@Injectable()
export class SqliteGroupCommit {
  readonly available: boolean;
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly statements = new Map<string, { stmt: Statement; order: number[] }>();
  private readonly q: SqliteStatements = {
    run: (sql, params) => {
      const p = this.prepare(sql);
      return p.stmt.run(...p.order.map((i) => params[i])).changes;
    },
    all: (sql, params) => {
      const p = this.prepare(sql);
      return p.stmt.all(...p.order.map((i) => params[i])) as SqliteRow[];
    },
    exec: (sql, params) => {
      const p = this.prepare(sql);
      const args = p.order.map((i) => params[i]);
      if (p.stmt.reader) {
        const rows = p.stmt.all(...args) as SqliteRow[];
        return { rows, affected: rows.length };
      }
      return { rows: [], affected: p.stmt.run(...args).changes };
    },
  };
  /** how many units ran, in how many commits, and how many batches ran again unit by unit (a unit threw) */
  readonly stats = { units: 0, commits: 0, reruns: 0 };

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly tx: TransactionRunner,
  ) {
    this.available = ds.options.type === 'better-sqlite3';
  }

  /**
   * Queues `work`; resolves with its result once the transaction that ran it has committed. `work`
   * may run twice (once more when another unit of its batch threw and the batch was rolled back), so
   * it only reads and writes the database and returns what it found.
   */
  run<T>(work: (q: SqliteStatements) => T): Promise<T> {
    if (!this.available) return Promise.reject(new Error('SqliteGroupCommit is for the SQLite database only'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.tx
            .exclusive(() => this.flush())
            .catch((err: unknown) => {
              // the connection is gone (shutdown): whatever is queued fails, nothing is left hanging
              const stranded = this.queue;
              this.queue = [];
              this.scheduled = false;
              for (const p of stranded) p.reject(err);
            });
        });
      }
    });
  }

  private get db(): Database {
    return (this.ds.driver as unknown as { databaseConnection: Database }).databaseConnection;
  }

  private prepare(sql: string): { stmt: Statement; order: number[] } {
    let p = this.statements.get(sql);
    if (!p) {
      const order: number[] = [];
      const text = sql.replace(/\$(\d+)(::\w+)?/g, (_, n: string) => {
        order.push(Number(n) - 1);
        return '?';
      });
      p = { stmt: this.db.prepare(text), order };
      this.statements.set(sql, p);
    }
    return p;
  }

  private batchTx?: BatchTransactions;

  /**
   * better-sqlite3 transactions (their BEGIN / SAVEPOINT / COMMIT statements are prepared once), both
   * one IMMEDIATE transaction for the whole batch: `plain` runs the units one after the other and
   * stops at the first that throws (everything is rolled back); `guarded` runs each unit in a nested
   * transaction (a savepoint) that rolls back alone when it throws. A batch runs plain first — units
   * rarely throw, and two savepoint statements per unit are a measurable share of a charge — and
   * guarded only when a unit threw.
   */
  private commitBatch(): BatchTransactions {
    if (!this.batchTx) {
      const unit = this.db.transaction((p: Pending) => p.work(this.q));
      this.batchTx = {
        plain: this.db.transaction((batch: Pending[], results: UnitResult[]) => {
          for (const p of batch) {
            let value: unknown;
            try {
              value = p.work(this.q);
            } catch (err) {
              throw new UnitThrew(err);
            }
            results.push({ ok: true, value });
          }
        }),
        guarded: this.db.transaction((batch: Pending[], results: UnitResult[]) => {
          for (const p of batch) {
            try {
              results.push({ ok: true, value: unit(p) });
            } catch (err) {
              results.push({ ok: false, err });
            }
          }
        }),
      };
    }
    return this.batchTx;
  }

  private async flush(): Promise<void> {
    // an ORM write outside the runner (an implicit transaction of save/insert) may be open: let it finish
    while (this.db.inTransaction) await new Promise((r) => setTimeout(r, 1));
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    if (batch.length === 0) return;
    let results: UnitResult[] = [];
    try {
      const tx = this.commitBatch();
      try {
        tx.plain.immediate(batch, results);
      } catch (err) {
        if (!(err instanceof UnitThrew)) throw err;
        // the whole batch was rolled back: a lone unit fails with its own error, a batch runs again
        // with a savepoint per unit, so only the unit at fault fails
        this.stats.reruns++;
        if (batch.length === 1) {
          batch[0].reject(err.unitError);
          return;
        }
        results = [];
        tx.guarded.immediate(batch, results);
      }
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    this.stats.units += batch.length;
    this.stats.commits++;
    batch.forEach((p, i) => {
      const r = results[i];
      if (r.ok) p.resolve(r.value);
      else p.reject(r.err);
    });
  }
}
