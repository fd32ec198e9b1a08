import { Logger } from '@nestjs/common';
import { Clock, isDatabaseUnavailable } from '@app/common';
import { BillingRepository, isUniqueViolation } from '../billing.repository';
import { BillingSpool, SpoolRecord } from '../billing-spool';
import { ChargeJournal, JournalCharge } from '../charge-journal';
import { ReconciliationRepository } from '../reconciliation.repository';

/** What BillingService.stats() reports, counted by the parts that see it happen. */
export interface BillingCounters {
  overruns: number;
  overrunMicro: number;
  spooled: number;
}

/**
 * Billing writes that must not be lost while the database is away: they go to the spool on disk
 * and are replayed in order when it returns; the journals of replicas killed with batched charges
 * unwritten (BILLING_DURABILITY=batched) are reconciled into the ledger.
 */
export class BillingDurability {
  private readonly logger = new Logger('Billing');
  private replaying: Promise<void> | null = null;
  private reconciling: Promise<void> | null = null;

  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: Clock,
    readonly spool: BillingSpool,
    private readonly counters: BillingCounters,
    private readonly reconciliation?: ReconciliationRepository,
  ) {}

  /**
   * Journals of killed replicas (BILLING_DURABILITY=batched): the charges they applied in memory and
   * never wrote are written per grant as ONE ledger entry (`reconcile:<grant>`), those already in
   * the ledger left out; the dead replica's grant then goes back to the balance. Retried while the
   * database is away.
   */
  reconcileJournals(): Promise<void> {
    const reconciliation = this.reconciliation;
    if (!reconciliation) return Promise.resolve();
    this.reconciling ??= (async () => {
      for (const { file, charges } of ChargeJournal.orphans(this.spool.dir)) {
        const byGrant = new Map<string, JournalCharge[]>();
        for (const c of charges) byGrant.set(c.grantId, [...(byGrant.get(c.grantId) ?? []), c]);
        try {
          for (const [grantId, list] of byGrant) {
            const now = this.clock.now();
            const out = await reconciliation.reconcileGrant(list[0].teamId, grantId, list, now);
            await this.repo.release(grantId, now);
            if (out.reconciled > 0)
              this.logger.warn(
                { grantId, teamId: list[0].teamId, charges: out.reconciled, amountMicro: out.amountMicro },
                'charges of a replica that stopped before writing them: reconciled as one ledger entry',
              );
          }
          ChargeJournal.remove(file);
        } catch (err) {
          this.logger.warn({ err, file }, 'reconciling a billing journal failed; retried later');
          if (isDatabaseUnavailable(err)) break;
        }
      }
    })()
      .catch((err: unknown) => this.logger.error({ err }, 'billing journal reconciliation failed'))
      .finally(() => (this.reconciling = null));
    return this.reconciling;
  }

  /**
   * Applies spooled settles/releases in order until the database refuses again. Each write is
   * idempotent per reservation: a record applied before a crash is not charged twice.
   */
  replaySpool(): Promise<void> {
    this.replaying ??= (async () => {
      const records = this.spool.read();
      let done = 0;
      for (const rec of records) {
        try {
          if (rec.op === 'charge') {
            await this.repo
              .chargeFromGrant(
                { grantId: rec.grantId, holdId: rec.holdId, teamId: rec.teamId, actualMicro: rec.actualMicro },
                rec.charge,
                rec.at,
              )
              .catch((err: unknown) => {
                // applied before (the ledger names each hold once)
                if (!isUniqueViolation(err)) throw err;
              });
          } else if (rec.op === 'settle') {
            const out = await this.repo
              .settle(rec.reservationId, rec.actualMicro, rec.charge, rec.at)
              .catch((err: unknown) => {
                // a keyed charge applied meanwhile by another run: its hold is only released
                if (rec.charge.reference && isUniqueViolation(err)) return null;
                throw err;
              });
            if (out === null) await this.repo.release(rec.reservationId, rec.at);
            else if (!out.ok && out.status !== 'settled')
              this.spool.reject(rec, `reservation is ${out.status ?? 'missing'}`);
          } else {
            await this.repo.release(rec.reservationId, rec.at);
          }
          done++;
        } catch (err) {
          if (isDatabaseUnavailable(err)) break;
          this.logger.error(
            { err, reservationId: holdOf(rec) },
            'spooled billing write refused; moved to rejected.ndjson',
          );
          this.spool.reject(rec, (err as Error).message);
          done++;
        }
      }
      this.spool.drop(done);
      if (done > 0)
        this.logger.log(`billing spool: applied ${done} deferred write(s), ${records.length - done} still pending`);
    })().finally(() => (this.replaying = null));
    return this.replaying;
  }

  /** Spools a write the database refused for being away; it is applied when the database returns. */
  defer(record: SpoolRecord, cause: unknown): void {
    this.spool.append(record);
    this.counters.spooled++;
    this.logger.warn(
      { reservationId: holdOf(record), op: record.op, cause: (cause as Error).message },
      'database unavailable: billing write spooled to disk, applied when it returns',
    );
  }
}

/** The hold a spooled write is for (its reservation, or the request's hold out of a grant). */
function holdOf(rec: SpoolRecord): string {
  return rec.op === 'charge' ? rec.holdId : rec.reservationId;
}
