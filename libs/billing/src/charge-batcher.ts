import { Logger } from '@nestjs/common';
import { BillingRepository, isUniqueViolation } from './billing.repository';
import { ChargeJournal, JournalCharge } from './charge-journal';
import { isDatabaseUnavailable } from '@app/common';

/** What the batcher tells its owner (BillingService) about each charge it wrote or could not. */
export interface BatchOutcomes {
  /** the charge is committed (listeners of committed charges run) */
  committed(c: JournalCharge): void;
  /** the database no longer holds the charge's grant: the replica stops holding from it */
  grantGone(c: JournalCharge): void;
  /** the database is unreachable: the charge goes to the durable spool */
  unavailable(c: JournalCharge, err: unknown): void;
  /** the database refused the charge for good */
  refused(c: JournalCharge, err: unknown): void;
}

/**
 * BILLING_DURABILITY=batched: charges applied in memory against the replica's credit grant are
 * written to the database off the response path, in batches at most `flushMs` apart. A charge is
 * journalled (ChargeJournal) before its answer leaves; a flush writes every charge queued so far
 * (each one statement, the group commit folding them into a few commits), fsyncs the journal and
 * drops the journal segments whose charges are all written. `drain` (before a grant goes back to
 * the balance) writes what is queued; `close` (shutdown) writes everything.
 */
export class ChargeBatcher {
  private readonly logger = new Logger('ChargeBatcher');
  private queue: JournalCharge[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly repo: BillingRepository,
    private readonly journal: ChargeJournal,
    private readonly flushMs: number,
    private readonly outcomes: BatchOutcomes,
  ) {}

  /** Charges applied in memory and not yet committed (or spooled). */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Queues the charge once it is in the journal; false when the journal cannot take it (disk full,
   * data directory gone): the caller then writes the charge durably before its answer.
   */
  add(c: JournalCharge): boolean {
    try {
      this.journal.append(c);
    } catch (err) {
      this.logger.error({ err, holdId: c.holdId }, 'billing journal write failed: this charge is written durably');
      return false;
    }
    this.queue.push(c);
    this.schedule();
    return true;
  }

  private schedule(): void {
    if (this.timer || this.flushing) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.flushMs);
  }

  /** Writes everything queued now (a flush in progress first). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queue.length === 0) return;
    this.flushing = this.write().finally(() => {
      this.flushing = null;
      if (this.queue.length) this.schedule();
    });
    await this.flushing;
  }

  /**
   * Until every charge queued before the call is written (charges added meanwhile go with a later
   * batch: a replica under load is not held up by its own new charges).
   */
  async drain(): Promise<void> {
    await this.flush();
  }

  /** Shutdown (no request runs any more): every charge written, the journal removed. */
  async close(): Promise<void> {
    while (this.queue.length || this.flushing) await this.flush();
    await this.journal.close();
  }

  private async write(): Promise<void> {
    this.journal.rotate();
    const batch = this.queue;
    this.queue = [];
    await Promise.all(batch.map((c) => this.writeOne(c)));
    // every charge of the batch is committed or in the spool (fsync'ed): the journal has what came after
    await this.journal.sync();
    // charges queued while the disk was flushed keep the current segment
    await this.journal.written(this.queue.length === 0);
  }

  private async writeOne(c: JournalCharge): Promise<void> {
    try {
      const out = await this.repo.chargeFromGrant(
        { grantId: c.grantId, holdId: c.holdId, teamId: c.teamId, actualMicro: c.actualMicro },
        c.charge,
        c.at,
      );
      if (!out.ok) return this.outcomes.refused(c, new Error(`team ${c.teamId} not found`));
      if (out.grantOpen === false) this.outcomes.grantGone(c);
      this.outcomes.committed(c);
    } catch (err) {
      // written before (a flush that committed and then failed to report it): the ledger names the hold
      if (isUniqueViolation(err)) return;
      if (isDatabaseUnavailable(err)) return this.outcomes.unavailable(c, err);
      this.logger.error({ err, holdId: c.holdId }, 'batched charge refused by the database');
      this.outcomes.refused(c, err);
    }
  }
}
