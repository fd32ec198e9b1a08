import { Injectable, Logger, OnApplicationShutdown, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import {
  ApiError,
  Clock,
  isDatabaseUnavailable,
  MetricsService,
  microToRub,
  newId,
  RequestContext,
  RequestContexts,
} from '@app/common';
import type { Caller } from '@app/auth';
import type { FxStamp } from '@app/providers';
import { COUNTED_FLAG, limitSubject, RateLimitService, RateTicket } from '@app/governance';
import { AppConfig } from '@app/config';
import { BillingRepository, TopUpExtra, BudgetPeriod, ChargeRecord, isUniqueViolation } from './billing.repository';
import { CreditGrants } from './credit-grants';
import { BillingSpool, SpoolRecord } from './billing-spool';
import { ChargeBatcher } from './charge-batcher';
import { ChargeJournal, JournalCharge } from './charge-journal';
import { ReconciliationRepository } from './reconciliation.repository';
import { BalanceResponseDto, UsageResponseDto } from './dto/billing.dto';
import { LedgerEntryEntity } from './entities/ledger-entry.entity';

/** A hold on a team's balance for one request in flight. */
export interface Reservation {
  readonly id: string;
  readonly teamId: string;
  readonly requestId: string;
  readonly amountMicro: number;
  /** set when the hold was taken out of this replica's credit grant (no reservation row of its own) */
  readonly grantId?: string;
}

export interface ChargeDetails {
  endpoint: string;
  model: string | null;
  apiKeyId: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens?: number;
  /** free-form breakdown stored with the ledger entry (JSON) */
  breakdown?: Record<string, unknown>;
  /** USD-priced models: the CBR rate the prices were converted with (ledger fx_rate, fx_date) */
  fx?: FxStamp | null;
}

/** A keyed charge found already applied: nothing more is charged (see MeterSpec.chargeKey). */
export const ALREADY_CHARGED: SettledCharge = Object.freeze({
  chargedMicro: 0,
  balanceAfterMicro: null,
  ledgerEntryId: null,
  alreadyCharged: true,
});

/**
 * One hold for a request made of several charged steps (a RAG chat: query embeddings, rerank, then
 * the answer), taken before the first of them runs. Each step's meter() takes its own hold out of
 * it instead of the balance (`MeterSpec.within`), so a request the balance cannot cover is refused
 * before anything is paid; what is left is released by the last step or by `close`.
 */
export interface RequestHold {
  readonly reservation: Reservation;
  /** what is still held for the steps to come (µRUB) */
  readonly remainingMicro: number;
  /** Releases what is left; later steps then hold from the balance. Safe to call twice. */
  close(): Promise<void>;
}

/** Why a hold was refused, and how much could have been held instead (µRUB). */
interface Refusal {
  amountMicro: number;
  team: { balanceMicro: number; reservedMicro: number };
  budget?: { period: BudgetPeriod; spentMicro: number; heldMicro: number };
  affordableMicro: number;
}

/** The key a hold is taken for, with its budgets (µRUB per UTC day / month; null = none). */
export interface KeyBudget {
  apiKeyId: string;
  dayMicro: number | null;
  monthMicro: number | null;
}

export interface SettledCharge {
  chargedMicro: number;
  /** null when the database was unreachable and the charge was spooled (applied when it returns) */
  balanceAfterMicro: number | null;
  ledgerEntryId: number | null;
  /** true when the charge's key was charged before (MeterSpec.chargeKey): this run charged nothing */
  alreadyCharged?: boolean;
}

/** Told about every committed charge (alerts on balance and budgets); see BillingService.onCharged. */
export type ChargeListener = (teamId: string, apiKeyId: string | null) => void;

/** Charges above their hold (provider counts higher than the gateway's estimate), for operators. */
export interface BillingStats {
  overruns: number;
  overrunMicro: number;
  spooled: number;
  spoolPending: number;
}

export interface LedgerView {
  id: number;
  kind: string;
  requestId: string | null;
  reference: string | null;
  endpoint: string | null;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  amountMicro: number;
  balanceAfterMicro: number;
  fxRate: string | null;
  fxDate: string | null;
  createdAt: number;
}

/**
 * Billing core used by every charged endpoint:
 *   const r = await billing.reserve(teamId, worstCaseMicro, requestId);   // 402 when not covered
 *   try { …call upstream…; await billing.settle(r, actualMicro, details) } catch { await billing.release(r) }
 * Reservations that are never closed (crash) expire after RESERVATION_TTL_SECONDS and are released
 * by a sweeper on any replica. On shutdown, holds still open in this process are released.
 */
@Injectable()
export class BillingService implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('Billing');
  private readonly inFlight = new Map<string, Reservation>();
  /** request holds opened here, with the function that books what a step took out of them */
  private readonly requestHolds = new WeakMap<RequestHold, (amountMicro: number) => void>();
  private sweeper?: NodeJS.Timeout;
  private replayer?: NodeJS.Timeout;
  private replaying: Promise<void> | null = null;
  private readonly spool: BillingSpool;
  private readonly counters = { overruns: 0, overrunMicro: 0, spooled: 0 };
  private readonly chargeListeners: ChargeListener[] = [];
  /** per-replica credit (BILLING_CREDIT_GRANTS): most holds need no database write */
  private readonly grants: CreditGrants | null;
  /** BILLING_DURABILITY=batched: charges against grants written off the response path */
  private readonly batcher: ChargeBatcher | null = null;
  private reconciling: Promise<void> | null = null;

  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    // unit specs construct the service without them: detached instances then
    private readonly metrics: MetricsService = new MetricsService(),
    private readonly requests: RequestContexts = new RequestContexts(),
    @Optional() private readonly rateLimits?: RateLimitService,
    // injected by BillingModule; a detached instance uses the spool of its configuration
    @Optional() spool?: BillingSpool,
    @Optional() private readonly reconciliation?: ReconciliationRepository,
  ) {
    this.spool = spool ?? BillingSpool.forConfig(config);
    const batched = config.billingCreditGrants && config.billingDurability === 'batched';
    this.grants = config.billingCreditGrants
      ? new CreditGrants(repo, clock, config.creditGrantTtlMs, async () => this.batcher?.drain())
      : null;
    if (batched)
      this.batcher = new ChargeBatcher(repo, new ChargeJournal(this.spool.dir), config.billingFlushMs, {
        committed: (c) => this.notifyCharged(c.teamId, c.charge.apiKeyId),
        grantGone: (c) => this.grants?.gone(c.teamId, c.grantId),
        unavailable: (c, err) => this.defer({ op: 'charge', ...c }, err),
        refused: (c, err) => this.spool.reject({ op: 'charge', ...c }, (err as Error).message),
      });
  }

  onModuleInit(): void {
    this.metrics.observeOpenReservations(() => this.inFlight.size + (this.grants?.holds ?? 0));
    let every = Math.min(60_000, Math.max(1_000, Math.floor(this.config.reservationTtlMs / 4)));
    // grants are renewed three times per their TTL, and idle ones returned within a second or two
    if (this.grants) every = Math.min(every, 1_000);
    this.sweeper = setInterval(
      () => void this.sweepExpired().catch((err: unknown) => this.logger.error({ err }, 'reservation sweep failed')),
      every,
    );
    this.sweeper.unref();
    this.replayer = setInterval(() => void this.replaySpool().then(() => this.reconcileJournals()), 5_000);
    this.replayer.unref();
    void this.replaySpool().then(() => this.reconcileJournals());
  }

  /** Batched charges applied in memory and not yet written (0 in the durable mode). */
  get unwrittenCharges(): number {
    return this.batcher?.pending ?? 0;
  }

  /** Writes the batched charges queued so far (the durable mode has none). */
  async flushCharges(): Promise<void> {
    await this.batcher?.drain();
  }

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

  onModuleDestroy(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.replayer) clearInterval(this.replayer);
  }

  /**
   * `listener` runs after every committed charge, synchronously: it must only schedule its work
   * (it never delays or fails the charge; a throwing listener is logged).
   */
  onCharged(listener: ChargeListener): void {
    this.chargeListeners.push(listener);
  }

  private notifyCharged(teamId: string, apiKeyId: string | null): void {
    for (const listener of this.chargeListeners) {
      try {
        listener(teamId, apiKeyId);
      } catch (err) {
        this.logger.error({ err }, 'charge listener failed');
      }
    }
  }

  stats(): BillingStats {
    return { ...this.counters, spoolPending: this.spool.pending };
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

  /** Runs after the HTTP server stopped taking requests and in-flight ones finished or timed out. */
  async onApplicationShutdown(): Promise<void> {
    const open = [...this.inFlight.values()];
    if (open.length) this.logger.warn(`releasing ${open.length} reservation(s) still open at shutdown`);
    await Promise.all(open.map((r) => this.release(r).catch(() => undefined)));
    // the batched charges: all written before the grants go back (a graceful stop loses nothing)
    await this.batcher?.close();
    await this.grants?.returnAll();
  }

  /**
   * Holds the worst case of one request: out of this replica's credit grant when there is one
   * (no database write), otherwise — `exact`, a key with budgets, a balance too small for a grant —
   * as a reservation row of its own.
   */
  async reserve(
    teamId: string,
    maxCostMicro: number,
    requestId: string,
    key?: KeyBudget,
    exact = false,
  ): Promise<Reservation> {
    const out = await this.tryReserve(teamId, Math.max(0, Math.ceil(maxCostMicro)), requestId, key, exact);
    if ('reservation' in out) return out.reservation;
    throw this.refusal(out.refused, 'up to');
  }

  /**
   * A flexible hold: `maxMicro` when the balance (and the key's budgets) cover it, otherwise as much
   * as they do, provided that is at least `minMicro`; refused (402) below that. The amount held is
   * the reservation's `amountMicro`. A few tries absorb concurrent holds taken between the refusal
   * that reported what was available and the smaller hold.
   */
  async reserveUpTo(
    teamId: string,
    maxMicro: number,
    minMicro: number,
    requestId: string,
    key?: KeyBudget,
    exact = false,
  ): Promise<Reservation> {
    const max = Math.max(0, Math.ceil(maxMicro));
    const min = Math.min(max, Math.max(0, Math.ceil(minMicro)));
    let want = max;
    for (let attempt = 0; ; attempt++) {
      // below the full amount the balance is small: a reservation row of its own, as without grants
      const out = await this.tryReserve(teamId, want, requestId, key, exact || want < max);
      if ('reservation' in out) return out.reservation;
      const fits = Math.min(want - 1, out.refused.affordableMicro);
      if (fits < min || attempt >= 3) throw this.refusal({ ...out.refused, amountMicro: min }, 'at least');
      want = fits;
    }
  }

  private async tryReserve(
    teamId: string,
    amountMicro: number,
    requestId: string,
    key: KeyBudget | undefined,
    exact: boolean,
  ): Promise<{ reservation: Reservation } | { refused: Refusal }> {
    const now = this.clock.now();
    const budgets = key ? budgetPeriods(key, now) : [];
    if (this.grants && !exact && budgets.length === 0) {
      const held = await this.grants.hold(teamId, amountMicro);
      if (held) return { reservation: { id: held.holdId, teamId, requestId, amountMicro, grantId: held.grantId } };
    }
    const reservation: Reservation = { id: newId(), teamId, requestId, amountMicro };
    const hold = {
      ...reservation,
      now,
      expiresAt: now + this.config.reservationTtlMs,
      apiKeyId: key?.apiKeyId ?? null,
      budgets,
    };
    let out = await this.repo.reserve(hold);
    // credit this replica keeps in its grants is given back before the request is refused
    if (!out.ok && out.team && !out.budget && (await this.grants?.trim(teamId))) out = await this.repo.reserve(hold);
    if (!out.ok) {
      if (!out.team) throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found');
      const team = { balanceMicro: out.team.balanceMicro, reservedMicro: out.team.reservedMicro };
      if (out.budget) {
        // the team's hold passed: what the budget leaves is what can be held
        const { period, spentMicro, heldMicro } = out.budget;
        const left = Math.max(0, period.capMicro - spentMicro - heldMicro);
        return { refused: { amountMicro, team, budget: out.budget, affordableMicro: left } };
      }
      return {
        refused: { amountMicro, team, affordableMicro: Math.max(0, team.balanceMicro - team.reservedMicro) },
      };
    }
    this.inFlight.set(reservation.id, reservation);
    return { reservation };
  }

  /** The 402 of a refused hold; `bound` says whether the amount is the request's worst case or its least. */
  private refusal(r: Refusal, bound: 'up to' | 'at least'): ApiError {
    const { amountMicro } = r;
    if (r.budget) {
      const { period, spentMicro, heldMicro } = r.budget;
      const per = period.period.startsWith('d:') ? 'daily' : 'monthly';
      const held = heldMicro > 0 ? ` (${fmt(heldMicro)} RUB more held by requests in flight)` : '';
      this.metrics.rateLimited('key', per === 'daily' ? 'budget_day' : 'budget_month');
      return new ApiError(
        402,
        'insufficient_quota',
        `API key budget exceeded: spent ${fmt(spentMicro)} RUB of the ${fmt(period.capMicro)} RUB ${per} budget${held}; this request requires ${bound} ${fmt(amountMicro)} RUB. ` +
          `The budget resets at ${new Date(period.end).toISOString()} (UTC).`,
        'key_budget_exceeded',
      );
    }
    const available = Math.max(0, r.team.balanceMicro - r.team.reservedMicro);
    const held =
      r.team.reservedMicro > 0
        ? ` (balance ${fmt(r.team.balanceMicro)} RUB, ${fmt(r.team.reservedMicro)} RUB held by requests in flight)`
        : '';
    const advice = bound === 'up to' ? 'Top up the team balance or lower max_tokens.' : 'Top up the team balance.';
    return ApiError.insufficientQuota(
      `Insufficient balance: ${fmt(available)} RUB available${held}, this request requires ${bound} ${fmt(amountMicro)} RUB. ${advice}`,
    );
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
      this.defer({ op: 'settle', reservationId: reservation.id, actualMicro: actual, charge: record, at: now }, err);
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
    await this.release(reservation).catch((e: unknown) =>
      this.logger.error({ err: e, reservationId: reservation.id }, 'release failed'),
    );
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
      this.defer({ op: 'charge', ...pending }, err);
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

  /**
   * THE money path of every charged operation: hold the worst case → run the work → settle the
   * exact cost (or release on failure). Callers never reserve, settle or release themselves.
   */
  async meter<T>(spec: MeterSpec<T>): Promise<{ result: T; charged: SettledCharge | null }> {
    // governance of the API key of the HTTP request this runs for (none for background work)
    // (the request's context, when unambiguous, carries the "counted" flag and takes the headers)
    const ctx = this.requests.get(spec.requestId);
    const caller = spec.caller?.teamId === spec.teamId ? spec.caller : undefined;
    const limits = caller?.limits;
    let ticket: RateTicket | null = null;
    if (caller && this.rateLimits) {
      const counted = ctx?.flags.has(COUNTED_FLAG) ?? false;
      ctx?.flags.add(COUNTED_FLAG);
      try {
        const admitted = await this.rateLimits.admit(limitSubject(caller), spec.estimatedTokens ?? 0, !counted);
        ticket = admitted.ticket;
        ctx?.setHeaders(admitted.headers);
      } catch (err) {
        if (err instanceof ApiError) ctx?.setHeaders(err.headers);
        throw err;
      }
    }
    const key: KeyBudget | undefined = caller
      ? {
          apiKeyId: caller.apiKeyId,
          dayMicro: limits?.budgetDayMicro ?? null,
          monthMicro: limits?.budgetMonthMicro ?? null,
        }
      : undefined;
    // tokens the request really used (0 when it failed before any billable work), for the TPM correction
    const used = { tokens: 0 };
    // the request's record waits for this work's charge, also when the client has gone meanwhile
    const done = ctx?.beginWork();
    try {
      const out = await this.meterHeld(spec, key, used, ctx);
      return { result: out.result, charged: out.charged };
    } finally {
      done?.();
      if (ticket)
        void this.rateLimits!.settleTokens(ticket, used.tokens).catch((err: unknown) =>
          this.logger.warn({ err }, 'token rate correction failed'),
        );
    }
  }

  private async meterHeld<T>(
    spec: MeterSpec<T>,
    key: KeyBudget | undefined,
    used: { tokens: number },
    ctx: RequestContext | undefined,
  ): Promise<{ result: T; charged: SettledCharge | null }> {
    const tokensOf = (d: ChargeDetails) => d.totalTokens ?? d.promptTokens + d.completionTokens;
    const chargeKey = spec.chargeKey ?? null;
    if (chargeKey !== null && (await this.repo.hasReference(spec.teamId, chargeKey))) {
      // charged before (a run that died after its charge committed): the work runs again, unheld and
      // uncharged, so a balance spent meanwhile does not refuse what was already paid
      this.logger.log({ requestId: spec.requestId, chargeKey }, 'charged before under its key: running uncharged');
      return { result: await spec.run(0), charged: ALREADY_CHARGED };
    }
    const hold = spec.within
      ? await this.takeFrom(spec.within.hold, spec.holdMicro, spec.within.last === true, spec.minMicro, key)
      : spec.minMicro !== undefined
        ? await this.reserveUpTo(spec.teamId, spec.holdMicro, spec.minMicro, spec.requestId, key)
        : await this.reserve(spec.teamId, spec.holdMicro, spec.requestId, key);
    let result: T;
    const started = performance.now();
    ctx?.beginUpstream(started);
    try {
      result = await spec.run(hold.amountMicro);
    } catch (err) {
      ctx?.addUpstream(performance.now() - started, true);
      let partial: MeteredCharge | null = null;
      try {
        partial = spec.chargeOnFailure?.(err) ?? null;
      } finally {
        if (partial) {
          used.tokens = tokensOf(partial.details);
          this.observe(ctx, partial, await this.settle(hold, partial.costMicro, partial.details, chargeKey));
        } else
          await this.release(hold).catch((e: unknown) =>
            this.logger.error({ err: e, reservationId: hold.id }, 'release failed'),
          );
      }
      throw err;
    }
    ctx?.addUpstream(performance.now() - started, true);
    let charge: MeteredCharge | null;
    try {
      charge = spec.charge(result);
    } catch (err) {
      await this.release(hold).catch(() => undefined);
      throw err;
    }
    if (!charge) {
      await this.release(hold);
      return { result, charged: null };
    }
    used.tokens = tokensOf(charge.details);
    const charged = await this.settle(hold, charge.costMicro, charge.details, chargeKey);
    if (!charged.alreadyCharged) this.observe(ctx, charge, charged);
    return { result, charged };
  }

  /**
   * Holds `holdMicro` — the worst case of every charged step of one request — before any of them
   * runs (402 / key budget refusal like reserve, nothing charged). Pass the result as
   * `MeterSpec.within` to each step; the step marked `last` releases what is left once its own hold
   * is taken. A hold nobody closes (the request ended before its last step) expires with the
   * reservation TTL like any abandoned hold.
   */
  async openRequestHold(spec: {
    teamId: string;
    requestId: string;
    caller?: Caller;
    holdMicro: number;
    /** a flexible hold (see MeterSpec.minMicro): at least this much, up to `holdMicro` */
    minMicro?: number;
  }): Promise<RequestHold> {
    const caller = spec.caller?.teamId === spec.teamId ? spec.caller : undefined;
    const key: KeyBudget | undefined = caller
      ? {
          apiKeyId: caller.apiKeyId,
          dayMicro: caller.limits?.budgetDayMicro ?? null,
          monthMicro: caller.limits?.budgetMonthMicro ?? null,
        }
      : undefined;
    // a reservation row of its own: its steps split it (see takeFrom)
    const reservation =
      spec.minMicro !== undefined
        ? await this.reserveUpTo(spec.teamId, spec.holdMicro, spec.minMicro, spec.requestId, key, true)
        : await this.reserve(spec.teamId, spec.holdMicro, spec.requestId, key, true);
    // the parent is not kept alive by the sweeper: only the holds of running steps are
    this.inFlight.delete(reservation.id);
    let remaining = reservation.amountMicro;
    let closed = false;
    const hold = {
      reservation,
      get remainingMicro() {
        return closed ? 0 : remaining;
      },
      take: (amount: number) => {
        remaining -= amount;
      },
      close: async () => {
        if (closed) return;
        closed = true;
        await this.release(reservation).catch((err: unknown) =>
          this.logger.error({ err, reservationId: reservation.id }, 'release of a request hold failed'),
        );
      },
    };
    this.requestHolds.set(hold, hold.take);
    return hold;
  }

  /**
   * A step's hold taken out of the request's hold (no balance check: the money is already held).
   * Should the step need more than is left (the request's worst case was exceeded), it holds what is
   * left and its settle charges the exact cost anyway, as for any provider count above its hold —
   * unless the step's hold is flexible (`minMicro`): then what is left is what it may spend.
   */
  private async takeFrom(
    parent: RequestHold,
    holdMicro: number,
    last: boolean,
    minMicro?: number,
    key?: KeyBudget,
  ): Promise<Reservation> {
    const take = this.requestHolds.get(parent);
    const amountMicro = Math.min(Math.max(0, Math.ceil(holdMicro)), parent.remainingMicro);
    if (amountMicro < holdMicro && (minMicro === undefined || amountMicro < minMicro))
      this.logger.warn(
        { requestId: parent.reservation.requestId, neededMicro: holdMicro, leftMicro: parent.remainingMicro },
        "a step's hold exceeds what its request still holds",
      );
    const child: Reservation = {
      id: newId(),
      teamId: parent.reservation.teamId,
      requestId: parent.reservation.requestId,
      amountMicro,
    };
    if (!take || !(await this.repo.split(parent.reservation.id, { ...child, now: this.clock.now() }))) {
      // closed (or released by the sweeper): the step holds from the balance like any other
      return minMicro !== undefined
        ? this.reserveUpTo(child.teamId, holdMicro, minMicro, child.requestId, key)
        : this.reserve(child.teamId, holdMicro, child.requestId);
    }
    take(amountMicro);
    this.inFlight.set(child.id, child);
    if (last) {
      this.requestHolds.delete(parent);
      await parent.close();
    }
    return child;
  }

  /** A settled charge in the metrics (tokens and RUB by model) and in the request's access-log line. */
  private observe(ctx: RequestContext | undefined, charge: MeteredCharge, settled: SettledCharge): void {
    const d = charge.details;
    this.metrics.charged(d.model, d.promptTokens, d.completionTokens, settled.chargedMicro);
    ctx?.addCharge(d.model, d.promptTokens, d.completionTokens, settled.chargedMicro, d.breakdown);
    if (ctx && d.fx) ctx.fx = { rate: String(d.fx.rate), date: d.fx.date };
  }

  /**
   * Gives back the credit this replica's grants hold for the team and no running request uses
   * (before the team is deleted: a grant is an open reservation, which would otherwise read as a
   * request in progress). Grants of other replicas go back on their own once idle (2 s).
   */
  async returnFreeCredit(teamId: string): Promise<void> {
    await this.grants?.trim(teamId);
  }

  /** Frees the hold; nothing is charged. Safe to call twice; spooled when the database is away. */
  async release(reservation: Reservation): Promise<void> {
    if (reservation.grantId) {
      const { id: holdId, grantId, teamId, amountMicro } = reservation;
      return this.grants!.released({ holdId, grantId, teamId, amountMicro });
    }
    this.inFlight.delete(reservation.id);
    const now = this.clock.now();
    try {
      await this.repo.release(reservation.id, now);
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      this.defer({ op: 'release', reservationId: reservation.id, at: now }, err);
    }
  }

  private defer(record: SpoolRecord, cause: unknown): void {
    this.spool.append(record);
    this.counters.spooled++;
    this.logger.warn(
      { reservationId: holdOf(record), op: record.op, cause: (cause as Error).message },
      'database unavailable: billing write spooled to disk, applied when it returns',
    );
  }

  /** Releases reservations past their expiry (crashed requests). Returns how many were released. */
  async sweepExpired(limit = 500): Promise<number> {
    await this.grants?.renew();
    // holds of requests still running on this replica are kept alive (long streams outlive the TTL)
    if (this.inFlight.size > 0)
      await this.repo.extend([...this.inFlight.keys()], this.clock.now() + this.config.reservationTtlMs);
    const ids = await this.repo.findExpiredOpen(this.clock.now(), limit);
    let released = 0;
    for (const id of ids) {
      if (await this.repo.release(id, this.clock.now(), 'expired')) released++;
    }
    if (released) this.logger.warn(`released ${released} expired reservation(s)`);
    return released;
  }

  /**
   * A key's budgets changed: its spend counters are recomputed from the ledger for the current
   * periods (holds in flight kept) and dropped for the others.
   */
  async resyncKeySpend(key: KeyBudget): Promise<void> {
    await this.repo.resyncSpend(key.apiKeyId, budgetPeriods(key, this.clock.now()));
  }

  /** What a key spent and holds in the current UTC day and month (µRUB), for the admin API. */
  async keySpend(apiKeyId: string): Promise<{ dayMicro: number; monthMicro: number; heldMicro: number }> {
    const periods = budgetPeriods({ apiKeyId, dayMicro: 0, monthMicro: 0 }, this.clock.now());
    const [day, month] = periods;
    const sums = await this.repo.spentSince(apiKeyId, [day.start, month.start]);
    const rows = await this.repo.spendOf(
      apiKeyId,
      periods.map((p) => p.period),
    );
    const held = Math.max(rows.get(day.period)?.heldMicro ?? 0, rows.get(month.period)?.heldMicro ?? 0);
    return { dayMicro: sums[0], monthMicro: sums[1], heldMicro: held };
  }

  /** What a team's charges came to in the current UTC day and month (µRUB). */
  async teamSpend(teamId: string): Promise<{ dayMicro: number; monthMicro: number }> {
    const [day, month] = budgetPeriods({ apiKeyId: '', dayMicro: 0, monthMicro: 0 }, this.clock.now());
    const [dayMicro, monthMicro] = await this.repo.teamSpentSince(teamId, [day.start, month.start]);
    return { dayMicro, monthMicro };
  }

  async topUp(
    teamId: string,
    amountMicro: number,
    reference: string | null,
    extra: TopUpExtra = {},
  ): Promise<{ applied: boolean; balanceMicro: number }> {
    const out = await this.repo.topUp(teamId, amountMicro, reference, this.clock.now(), extra);
    if (!out) throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found');
    return out;
  }

  async balance(teamId: string): Promise<{ balanceMicro: number; reservedMicro: number }> {
    const team = await this.repo.findTeam(teamId);
    if (!team) throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found');
    if (!this.grants) return { balanceMicro: team.balanceMicro, reservedMicro: team.reservedMicro };
    // "held by requests in flight": credit granted to replicas and not held by a request is not
    // counted (this replica knows its own requests' holds; other replicas' are not visible here)
    const granted = await this.repo.grantedMicro(teamId);
    const reservedMicro = Math.max(0, team.reservedMicro - granted + this.grants.heldFor(teamId));
    return { balanceMicro: team.balanceMicro, reservedMicro };
  }

  async balanceView(teamId: string): Promise<BalanceResponseDto> {
    const b = await this.balance(teamId);
    return {
      team_id: teamId,
      balance_rub: microToRub(b.balanceMicro),
      reserved_rub: microToRub(b.reservedMicro),
      available_rub: microToRub(Math.max(0, b.balanceMicro - b.reservedMicro)),
      currency: 'RUB',
    };
  }

  /** One page of the team's ledger, newest first; `next_before` continues it. */
  async usagePage(teamId: string, limit: number, before?: number): Promise<UsageResponseDto> {
    const rows = await this.usage(teamId, limit + 1, before);
    const page = rows.slice(0, limit);
    return {
      object: 'list',
      data: page.map((e) => ({
        id: e.id,
        kind: e.kind,
        request_id: e.requestId,
        reference: e.reference,
        endpoint: e.endpoint,
        model: e.model,
        prompt_tokens: e.promptTokens,
        completion_tokens: e.completionTokens,
        total_tokens: e.totalTokens,
        amount_rub: microToRub(e.amountMicro),
        balance_after_rub: microToRub(e.balanceAfterMicro),
        fx_rate: e.fxRate === null ? null : Number(e.fxRate),
        fx_date: e.fxDate,
        created_at: new Date(e.createdAt).toISOString(),
      })),
      has_more: rows.length > limit,
      next_before: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  async usage(teamId: string, limit: number, beforeId?: number): Promise<LedgerView[]> {
    return (await this.repo.listLedger(teamId, limit, beforeId)).map(toView);
  }

  async ledger(teamId: string): Promise<LedgerView[]> {
    return (await this.repo.listLedgerAscending(teamId)).map(toView);
  }
}

function toView(e: LedgerEntryEntity): LedgerView {
  return {
    id: Number(e.id),
    kind: e.kind,
    requestId: e.requestId,
    reference: e.reference,
    endpoint: e.endpoint,
    model: e.model,
    promptTokens: e.promptTokens,
    completionTokens: e.completionTokens,
    totalTokens: e.totalTokens,
    amountMicro: e.amountMicro,
    balanceAfterMicro: e.balanceAfterMicro,
    fxRate: e.fxRate ?? null,
    fxDate: e.fxDate ?? null,
    createdAt: e.createdAt,
  };
}

function fmt(micro: number): string {
  return microToRub(micro)
    .toFixed(6)
    .replace(/0{1,4}$/, '');
}

/** What the work cost, and what the ledger entry says about it. */
export interface MeteredCharge {
  costMicro: number;
  details: ChargeDetails;
}

export interface MeterSpec<T> {
  teamId: string;
  requestId: string;
  /**
   * The API key the work runs for (its rate limits and budget apply); absent for background work
   * (ingestion), which is governed when its request was admitted.
   */
  caller?: Caller;
  /** the worst case the work may cost (held before it runs; 402 when the balance cannot cover it) */
  holdMicro: number;
  /**
   * Makes the hold flexible: when the balance (or the key's budget, or what the request's hold has
   * left) cannot cover `holdMicro`, as much as it can is held, if that is at least `minMicro`
   * (402 below it). `run` is told the amount held and must keep the work within it.
   */
  minMicro?: number;
  /** tokens known before the call (the prompt), counted against tokens-per-minute limits at admission; the rest is added at settle */
  estimatedTokens?: number;
  /**
   * The request's hold (openRequestHold) this step's hold is taken out of, instead of the balance;
   * `last` releases what is left of it once this step's hold is taken (the answer of a RAG chat).
   */
  within?: { hold: RequestHold; last?: boolean };
  run: (heldMicro: number) => Promise<T>;
  /** the exact charge for a finished run; null charges nothing (the hold is released) */
  charge: (result: T) => MeteredCharge | null;
  /**
   * A run that failed after the provider did billable work (a stream cut after text was delivered):
   * the charge for that part, or null (the hold is released). The error is rethrown either way.
   */
  chargeOnFailure?: (err: unknown) => MeteredCharge | null;
  /**
   * The charge's own key, for work that may run more than once (an ingestion re-run after its
   * replica died): the ledger holds it (unique per team), so the work is charged once. A run whose
   * key is already charged runs without a hold and is not charged (`charged.alreadyCharged`).
   */
  chargeKey?: string;
}

/** The budget periods of a key at `now` (UTC): 'd:YYYY-MM-DD' and 'm:YYYY-MM', each [start, end). */
export function budgetPeriods(key: KeyBudget, now: number): BudgetPeriod[] {
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  const out: BudgetPeriod[] = [];
  if (key.dayMicro !== null) {
    const start = Date.UTC(y, mo, d.getUTCDate());
    out.push({
      period: `d:${new Date(start).toISOString().slice(0, 10)}`,
      capMicro: key.dayMicro,
      start,
      end: start + 86_400_000,
    });
  }
  if (key.monthMicro !== null) {
    const start = Date.UTC(y, mo, 1);
    out.push({
      period: `m:${new Date(start).toISOString().slice(0, 7)}`,
      capMicro: key.monthMicro,
      start,
      end: Date.UTC(y, mo + 1, 1),
    });
  }
  return out;
}

/** The hold a spooled write is for (its reservation, or the request's hold out of a grant). */
function holdOf(rec: SpoolRecord): string {
  return rec.op === 'charge' ? rec.holdId : rec.reservationId;
}
