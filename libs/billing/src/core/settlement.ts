import { Logger } from '@nestjs/common';
import { ApiError, Clock, isDatabaseUnavailable } from '@app/common';
import { AppConfig } from '@app/config';
import { BillingRepository, ChargeRecord, isUniqueViolation } from '../billing.repository';
import { ChargeBatcher } from '../charge-batcher';
import { ChargeJournal, JournalCharge } from '../charge-journal';
import { CreditGrants } from '../credit-grants';
import type { BillingService } from '../billing.service';
import { ALREADY_CHARGED, ChargeDetails, ChargeListener, Reservation, SettledCharge } from './billing.types';
import { BillingCounters, BillingDurability } from './durability';

/**
 * Settlement: the exact charge of a hold — one ledger entry, from its reservation row or out of a
 * credit grant (written at once, or batched under BILLING_DURABILITY=batched), spooled while the
 * database is away — and the listeners told about every committed charge.
 */
export class Settlement {
  private readonly logger = new Logger('Billing');
  private readonly chargeListeners: ChargeListener[] = [];
  /** BILLING_DURABILITY=batched: charges against grants written off the response path */
  readonly batcher: ChargeBatcher | null = null;

  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: Clock,
    config: AppConfig,
    private readonly grants: CreditGrants | null,
    private readonly counters: BillingCounters,
    private readonly durability: BillingDurability,
    private readonly inFlight: Map<string, Reservation>,
    /** the service's release (a charge found applied before only releases its hold) */
    private readonly billing: Pick<BillingService, 'release'>,
  ) {
    const batched = config.billingCreditGrants && config.billingDurability === 'batched';
    if (batched)
      this.batcher = new ChargeBatcher(repo, new ChargeJournal(durability.spool.dir), config.billingFlushMs, {
        committed: (c) => this.notifyCharged(c.teamId, c.charge.apiKeyId),
        grantGone: (c) => this.grants?.gone(c.teamId, c.grantId),
        unavailable: (c, err) => durability.defer({ op: 'charge', ...c }, err),
        refused: (c, err) => durability.spool.reject({ op: 'charge', ...c }, (err as Error).message),
      });
  }

  /**
   * `listener` runs after every committed charge, synchronously: it must only schedule its work
   * (it never delays or fails the charge; a throwing listener is logged).
   */
  onCharged(listener: ChargeListener): void {
    this.chargeListeners.push(listener);
  }

  notifyCharged(teamId: string, apiKeyId: string | null): void {
    for (const listener of this.chargeListeners) {
      try {
        listener(teamId, apiKeyId);
      } catch (err) {
        this.logger.error({ err }, 'charge listener failed');
      }
    }
  }

  /**
   * Charges the actual cost — what the provider reported, even above the hold — and writes one
   * ledger entry (tokens × price, always). The excess over the hold comes from the balance, which
   * may go below zero by at most that excess; the team is then refused (402) until topped up. Such
   * overruns are logged and counted. When the database is unreachable the charge is spooled to
   * disk and applied when it returns: never dropped.
   */
  async settle(
    reservation: Reservation,
    actualCostMicro: number,
    details: ChargeDetails,
    chargeKey: string | null = null,
  ): Promise<SettledCharge> {
    const actual = Math.max(0, Math.round(actualCostMicro));
    if (actual > reservation.amountMicro) {
      this.counters.overruns++;
      this.counters.overrunMicro += actual - reservation.amountMicro;
      this.logger.warn(
        {
          requestId: reservation.requestId,
          actual,
          reserved: reservation.amountMicro,
          excess: actual - reservation.amountMicro,
        },
        'actual cost exceeded the hold; the excess is charged to the balance',
      );
    }
    const record: ChargeRecord = {
      requestId: reservation.requestId,
      apiKeyId: details.apiKeyId,
      endpoint: details.endpoint,
      model: details.model,
      promptTokens: details.promptTokens,
      completionTokens: details.completionTokens,
      totalTokens: details.totalTokens ?? details.promptTokens + details.completionTokens,
      details: details.breakdown ? JSON.stringify(details.breakdown) : null,
      reference: chargeKey,
      fxRate: details.fx ? String(details.fx.rate) : null,
      fxDate: details.fx?.date ?? null,
    };
    const now = this.clock.now();
    if (reservation.grantId) return this.chargeFromGrant(reservation, reservation.grantId, actual, record, now);
    let out;
    try {
      out = await this.repo.settle(reservation.id, actual, record, now);
    } catch (err) {
      if (chargeKey !== null && isUniqueViolation(err)) return this.chargedBefore(reservation, chargeKey);
      if (!isDatabaseUnavailable(err)) throw err;
      this.durability.defer(
        { op: 'settle', reservationId: reservation.id, actualMicro: actual, charge: record, at: now },
        err,
      );
      this.inFlight.delete(reservation.id);
      return { chargedMicro: actual, balanceAfterMicro: null, ledgerEntryId: null };
    }
    this.inFlight.delete(reservation.id);
    if (!out.ok) {
      this.logger.error(
        { requestId: reservation.requestId, reservationId: reservation.id, status: out.status },
        'settle on a closed reservation: nothing charged',
      );
      throw ApiError.unavailable(
        'The balance hold for this request was already closed; nothing was charged.',
        'reservation_closed',
      );
    }
    this.notifyCharged(reservation.teamId, details.apiKeyId);
    return { chargedMicro: out.chargedMicro, balanceAfterMicro: out.balanceAfterMicro, ledgerEntryId: out.ledgerId };
  }

  /**
   * A keyed charge whose key the ledger already holds (the same work charged by an earlier run that
   * committed its charge concurrently): the statement rolled back whole, so the hold is released and
   * nothing is charged.
   */
  private async chargedBefore(reservation: Reservation, chargeKey: string): Promise<SettledCharge> {
    this.logger.warn(
      { requestId: reservation.requestId, chargeKey },
      'charge already applied under its key: this run is not charged',
    );
    await this.billing
      .release(reservation)
      .catch((e: unknown) => this.logger.error({ err: e, reservationId: reservation.id }, 'release failed'));
    return ALREADY_CHARGED;
  }

  private async chargeFromGrant(
    reservation: Reservation,
    grantId: string,
    actual: number,
    record: ChargeRecord,
    now: number,
  ): Promise<SettledCharge> {
    const hold = { holdId: reservation.id, grantId, teamId: reservation.teamId, amountMicro: reservation.amountMicro };
    const pending: JournalCharge = {
      grantId,
      holdId: hold.holdId,
      teamId: hold.teamId,
      actualMicro: actual,
      charge: record,
      at: now,
    };
    // batched: applied against the grant in memory now, journalled, written with the next batch
    if (this.batcher && !record.reference && this.batcher.add(pending)) {
      this.grants!.charged(hold, actual, true);
      return { chargedMicro: actual, balanceAfterMicro: null, ledgerEntryId: null };
    }
    let out;
    try {
      out = await this.repo.chargeFromGrant({ ...hold, actualMicro: actual }, record, now);
    } catch (err) {
      if (record.reference && isUniqueViolation(err)) return this.chargedBefore(reservation, record.reference);
      if (!isDatabaseUnavailable(err)) throw err;
      this.durability.defer({ op: 'charge', ...pending }, err);
      // the grant still holds the money: requests go on holding from it (RFC 4006's granted units)
      // while the charges wait in the spool
      this.grants!.charged(hold, actual, true);
      return { chargedMicro: actual, balanceAfterMicro: null, ledgerEntryId: null };
    }
    if (!out.ok) {
      this.grants!.charged(hold, actual, false);
      throw ApiError.notFound(`Team ${reservation.teamId} not found.`, 'team_not_found');
    }
    this.grants!.charged(hold, actual, out.grantOpen === true);
    this.notifyCharged(reservation.teamId, record.apiKeyId);
    return { chargedMicro: out.chargedMicro, balanceAfterMicro: out.balanceAfterMicro, ledgerEntryId: out.ledgerId };
  }
}
