import type { EntityManager } from 'typeorm';

/**
 * Work a caller adds to a repository's write transaction — the audit record of the change — so it
 * commits or rolls back with the change. `result` is what the write produced (the row written, or
 * the rows before and after).
 */
export type TransactionHook<R = void> = (m: EntityManager, result: R) => Promise<void>;

/** One state change as a repository describes it; who made it comes from the request being served. */
export interface RecordedChange {
  teamId: string | null;
  /** e.g. `file.create`, `document.delete` */
  action: string;
  targetType: string;
  targetId: string;
  before?: unknown;
  after?: unknown;
}

/**
 * The audit log as a port: repositories call `record` inside the transaction of the change they
 * write, so the record exists exactly when the change does. Bound by the accounts' audit module
 * (the actor is the caller of the HTTP request or CLI command being served).
 */
export abstract class ChangeRecorder {
  abstract record(m: EntityManager, change: RecordedChange): Promise<void>;
}

/** The transaction a port's method joins (a repository's write passes its own). */
export type TransactionManager = EntityManager;
