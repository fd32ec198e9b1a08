import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, PoolClient, Submittable } from 'pg';
import { DataSource } from 'typeorm';
import { PgPipeline, pipelinable, PipelinedResult, PipelinedStatement } from './pg-pipeline';

export type PgRow = Record<string, unknown>;

/** Statement access for one unit of work inside a Postgres group commit (named prepared statements). */
export interface PgStatements {
  query(sql: string, params: unknown[]): Promise<{ rows: PgRow[]; affected: number }>;
}

interface Pending {
  work: (q: PgStatements) => Promise<unknown>;
  single: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** A unit whose statement was committed but which then threw on its result: its caller gets the error. */
class UnitFailure {
  constructor(readonly reason: unknown) {}
}

/** Most units in one transaction (a longer queue is committed in several). */
const MAX_BATCH = 256;

/**
 * Group commit for Postgres: units of work queued while the previous transaction was running are
 * run together in ONE transaction on one pooled connection, and each caller's promise settles only
 * after that transaction COMMITTED (durable before the answer, as before). Why it matters: every
 * request holds and charges the same team row, so single-statement transactions serialise on that
 * row lock for the duration of each commit's WAL flush — one flush per statement caps a team at a
 * few hundred requests per second. Batched, a flush serves every unit in the batch.
 *
 * Statements are prepared once per connection (named by a hash of their text), skipping the parse
 * and plan of each call. A batch whose units are all single statements (every billing write) goes
 * out as ONE pipeline: one round trip and one implicit transaction instead of BEGIN, a round trip
 * per unit and COMMIT (see `pipelined`). A batch that fails (a unit threw, a deadlock with another transaction) is
 * rolled back and its units re-run one per transaction, so only the unit at fault fails — units
 * must therefore be safe to re-run after a rollback (they are: a rolled-back unit changed nothing).
 * Only for Postgres (`available` is false on SQLite).
 */
@Injectable()
export class PgGroupCommit {
  readonly available: boolean;
  private queue: Pending[] = [];
  private running = false;
  private readonly names = new Map<string, string>();
  /** how many units ran and in how many commits */
  readonly stats = { units: 0, commits: 0 };

  constructor(@InjectDataSource() private readonly ds: DataSource) {
    this.available = ds.options.type === 'postgres';
  }

  /**
   * Queues `work`; resolves with its result once the transaction that ran it has committed.
   * `singleStatement`: the unit is one statement (atomic on its own), so when it is alone in its
   * batch — a quiet moment — it runs without BEGIN / COMMIT round trips.
   */
  run<T>(work: (q: PgStatements) => Promise<T>, options: { singleStatement?: boolean } = {}): Promise<T> {
    if (!this.available) return Promise.reject(new Error('PgGroupCommit is for Postgres only'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        work,
        single: options.singleStatement === true,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private get pool(): Pool {
    return (this.ds.driver as unknown as { master: Pool }).master;
  }

  /** The prepared statement's name: a hash of its text, the same on every connection. */
  private nameOf(sql: string): string {
    let name = this.names.get(sql);
    if (!name) {
      name = `gc_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
      this.names.set(sql, name);
    }
    return name;
  }

  private statements(client: PoolClient): PgStatements {
    return {
      query: async (sql, params) => {
        const r = await client.query({ name: this.nameOf(sql), text: sql, values: params });
        return { rows: r.rows as PgRow[], affected: r.rowCount ?? r.rows.length };
      },
    };
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        await this.commit(batch);
      }
    } finally {
      this.running = false;
      // a unit queued while the last commit was finishing
      if (this.queue.length > 0) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    let broken: unknown = null;
    /** the connection is not given back to the pool (a failed pipeline left its statements unknown) */
    let discard = false;
    let failure: { err: unknown } | null = null;
    const results: unknown[] = [];
    // the server going away while the client is checked out is emitted on the client: the query in
    // flight rejects with it, so the event itself only needs a listener (and marks the client broken)
    const onError = (err: unknown): void => {
      broken ??= err;
    };
    client.on('error', onError);
    try {
      const q = this.statements(client);
      if (batch.length === 1 && batch[0].single) {
        results.push(await batch[0].work(q));
      } else if (batch.every((p) => p.single)) {
        try {
          results.push(...(await this.pipelined(client, batch)));
        } catch (err) {
          discard = true;
          throw err;
        }
      } else {
        await client.query('BEGIN');
        try {
          for (const p of batch) results.push(await p.work(q));
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
          throw err;
        }
      }
    } catch (err) {
      failure = { err };
    } finally {
      // a connection whose ROLLBACK failed is broken: not given back to the pool
      client.removeListener('error', onError);
      client.release(broken ? (broken as Error) : discard ? true : undefined);
    }
    if (!failure) {
      this.stats.units += batch.length;
      this.stats.commits++;
      batch.forEach((p, i) => {
        const r = results[i];
        if (r instanceof UnitFailure) p.reject(r.reason);
        else p.resolve(r);
      });
    } else if (broken || batch.length === 1) {
      for (const p of batch) p.reject(failure.err);
    } else {
      // only the unit at fault should fail: each on its own
      for (const p of batch) await this.commit([p]);
    }
  }

  /**
   * A batch of single-statement units in ONE round trip: each unit runs against a recorder that
   * takes its statement, the statements go out as one pipeline (one implicit transaction, committed
   * at its Sync — see PgPipeline), and each unit then gets its own statement's result. Instead of
   * BEGIN, one round trip per unit and COMMIT: the same statements, prepared as before, and the same
   * all-or-nothing commit. A unit that does not hand over exactly one statement at once, or a
   * parameter the pipeline does not send as is, makes the batch fail here (nothing was sent): it is
   * then re-run one unit per transaction, like a batch with a failing unit.
   */
  private async pipelined(client: PoolClient, batch: Pending[]): Promise<unknown[]> {
    const statements: PipelinedStatement[] = [];
    const answers: Array<{ resolve: (r: PipelinedResult) => void; reject: (e: unknown) => void }> = [];
    const recorder: PgStatements = {
      query: (sql, params) =>
        new Promise((resolve, reject) => {
          statements.push({ name: this.nameOf(sql), text: sql, values: params });
          answers.push({ resolve, reject });
        }),
    };
    const works = batch.map((p) => p.work(recorder));
    // the units' own promises: settled below either way, their failures reported through the batch
    const settled = Promise.allSettled(works);
    const fail = async (err: unknown): Promise<never> => {
      for (const a of answers) a.reject(err);
      await settled;
      throw err;
    };
    if (statements.length !== batch.length || !statements.every((s) => pipelinable(s.values)))
      return fail(new Error('group commit: a unit could not be pipelined'));
    const pipeline = new PgPipeline(statements);
    client.query(pipeline as unknown as Submittable);
    let answered: PipelinedResult[];
    try {
      answered = await pipeline.done;
    } catch (err) {
      return fail(err);
    }
    answered.forEach((r, i) => answers[i].resolve(r));
    const outcomes = await settled;
    // committed already: a unit that threw on its own result is reported to its caller alone
    return outcomes.map((o) => (o.status === 'fulfilled' ? o.value : new UnitFailure(o.reason)));
  }
}
