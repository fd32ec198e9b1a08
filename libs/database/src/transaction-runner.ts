import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/**
 * Runs a unit of work in one database transaction.
 * - Postgres: a real transaction per call (pool connection); callers lock rows they decide on.
 * - SQLite: one connection serves the process and SQLite serialises writers, so transactions are
 *   queued here (FIFO) instead of interleaving on the shared connection.
 */
@Injectable()
export class TransactionRunner {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly serialise: boolean;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.serialise = dataSource.options.type !== 'postgres';
  }

  get isPostgres(): boolean {
    return !this.serialise;
  }

  /**
   * SQLite: runs `work` in the FIFO slot of the serialised transactions (no ORM transaction is open
   * meanwhile; `work` opens its own on the raw connection, see SqliteGroupCommit). Postgres: runs it.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (!this.serialise) return work();
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!this.serialise) return this.dataSource.transaction(work);
    const result = this.tail.then(() => this.dataSource.transaction(work));
    this.tail = result.catch(() => undefined);
    return result;
  }
}
