import { Injectable, Logger, OnApplicationShutdown, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { ApiError, Clock, MetricsService, RequestContext, RequestContexts } from '@app/common';
import { COUNTED_FLAG, limitSubject, RateLimitService, RateTicket } from '@app/governance';
import { AppConfig } from '@app/config';
import { BillingRepository } from './billing.repository';
import { CreditGrants } from './credit-grants';
import { BillingSpool } from './billing-spool';
import { ReconciliationRepository } from './reconciliation.repository';
import { BalanceResponseDto, UsageResponseDto } from './dto/billing.dto';
import {
  ALREADY_CHARGED,
  BillingStats,
  ChargeDetails,
  ChargeListener,
  KeyBudget,
  LedgerView,
  MeteredCharge,
  MeterSpec,
  RequestHold,
  Reservation,
  SettledCharge,
} from './core/billing.types';
import { BillingCounters, BillingDurability } from './core/durability';
import { Reservations } from './core/reservations';
import { RequestHolds, RequestHoldSpec } from './core/request-holds';
import { Settlement } from './core/settlement';
import { TeamLedger } from './core/team-ledger';

export * from './core/billing.types';

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
  private sweeper?: NodeJS.Timeout;
  private replayer?: NodeJS.Timeout;
  private readonly spool: BillingSpool;
  private readonly counters: BillingCounters = { overruns: 0, overrunMicro: 0, spooled: 0 };
  /** per-replica credit (BILLING_CREDIT_GRANTS): most holds need no database write */
  private readonly grants: CreditGrants | null;
  private readonly durability: BillingDurability;
  private readonly holds: Reservations;
  private readonly requestHolds: RequestHolds;
  private readonly settlement: Settlement;
  private readonly teamLedger: TeamLedger;

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
    @Optional() reconciliation?: ReconciliationRepository,
  ) {
    this.spool = spool ?? BillingSpool.forConfig(config);
    this.grants = config.billingCreditGrants
      ? new CreditGrants(repo, clock, config.creditGrantTtlMs, async () => this.settlement.batcher?.drain())
      : null;
    this.durability = new BillingDurability(repo, clock, this.spool, this.counters, reconciliation);
    this.holds = new Reservations(repo, clock, config, metrics, this.grants, this.durability);
    this.requestHolds = new RequestHolds(repo, clock, this.holds.inFlight, this);
    this.settlement = new Settlement(
      repo,
      clock,
      config,
      this.grants,
      this.counters,
      this.durability,
      this.holds.inFlight,
      this,
    );
    this.teamLedger = new TeamLedger(repo, clock, this.grants);
  }

  onModuleInit(): void {
    this.metrics.observeOpenReservations(() => this.holds.inFlight.size + (this.grants?.holds ?? 0));
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
    return this.settlement.batcher?.pending ?? 0;
  }

  /** Writes the batched charges queued so far (the durable mode has none). */
  async flushCharges(): Promise<void> {
    await this.settlement.batcher?.drain();
  }

  /** Writes the unwritten charges of replicas that were killed (see BillingDurability.reconcileJournals). */
  reconcileJournals(): Promise<void> {
    return this.durability.reconcileJournals();
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
    this.settlement.onCharged(listener);
  }

  stats(): BillingStats {
    return { ...this.counters, spoolPending: this.spool.pending };
  }

  /** Applies the spooled billing writes in order (see BillingDurability.replaySpool). */
  replaySpool(): Promise<void> {
    return this.durability.replaySpool();
  }

  /** Runs after the HTTP server stopped taking requests and in-flight ones finished or timed out. */
  async onApplicationShutdown(): Promise<void> {
    const open = [...this.holds.inFlight.values()];
    if (open.length) this.logger.warn(`releasing ${open.length} reservation(s) still open at shutdown`);
    await Promise.all(open.map((r) => this.release(r).catch(() => undefined)));
    // the batched charges: all written before the grants go back (a graceful stop loses nothing)
    await this.settlement.batcher?.close();
    await this.grants?.returnAll();
  }

  /**
   * Holds the worst case of one request: out of this replica's credit grant when there is one
   * (no database write), otherwise — `exact`, a key with budgets, a balance too small for a grant —
   * as a reservation row of its own.
   */
  async reserve(...args: Parameters<Reservations['reserve']>): Promise<Reservation> {
    return this.holds.reserve(...args);
  }

  /**
   * A flexible hold: `maxMicro` when the balance (and the key's budgets) cover it, otherwise as much
   * as they do, provided that is at least `minMicro`; refused (402) below that. The amount held is
   * the reservation's `amountMicro`. A few tries absorb concurrent holds taken between the refusal
   * that reported what was available and the smaller hold.
   */
  async reserveUpTo(...args: Parameters<Reservations['reserveUpTo']>): Promise<Reservation> {
    return this.holds.reserveUpTo(...args);
  }

  /** Charges the exact cost of a hold (see Settlement.settle): never dropped, spooled while the database is away. */
  async settle(...args: Parameters<Settlement['settle']>): Promise<SettledCharge> {
    return this.settlement.settle(...args);
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
      ? await this.requestHolds.takeFrom(
          spec.within.hold,
          spec.holdMicro,
          spec.within.last === true,
          spec.minMicro,
          key,
        )
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
   * Holds the worst case of every charged step of one request before any of them runs; pass the
   * result as `MeterSpec.within` to each step (see RequestHolds.open).
   */
  async openRequestHold(spec: RequestHoldSpec): Promise<RequestHold> {
    return this.requestHolds.open(spec);
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
    return this.holds.release(reservation);
  }

  /** Releases reservations past their expiry (crashed requests). Returns how many were released. */
  async sweepExpired(limit = 500): Promise<number> {
    return this.holds.sweepExpired(limit);
  }

  /**
   * A key's budgets changed: its spend counters are recomputed from the ledger for the current
   * periods (holds in flight kept) and dropped for the others.
   */
  async resyncKeySpend(key: KeyBudget): Promise<void> {
    return this.teamLedger.resyncKeySpend(key);
  }

  /** What a key spent and holds in the current UTC day and month (µRUB), for the admin API. */
  async keySpend(apiKeyId: string): Promise<{ dayMicro: number; monthMicro: number; heldMicro: number }> {
    return this.teamLedger.keySpend(apiKeyId);
  }

  /** What a team's charges came to in the current UTC day and month (µRUB). */
  async teamSpend(teamId: string): Promise<{ dayMicro: number; monthMicro: number }> {
    return this.teamLedger.teamSpend(teamId);
  }

  async topUp(...args: Parameters<TeamLedger['topUp']>): Promise<{ applied: boolean; balanceMicro: number }> {
    return this.teamLedger.topUp(...args);
  }

  async balance(teamId: string): Promise<{ balanceMicro: number; reservedMicro: number }> {
    return this.teamLedger.balance(teamId);
  }

  async balanceView(teamId: string): Promise<BalanceResponseDto> {
    return this.teamLedger.balanceView(teamId);
  }

  /** One page of the team's ledger, newest first; `next_before` continues it. */
  async usagePage(teamId: string, limit: number, before?: number): Promise<UsageResponseDto> {
    return this.teamLedger.usagePage(teamId, limit, before);
  }

  async usage(teamId: string, limit: number, beforeId?: number): Promise<LedgerView[]> {
    return this.teamLedger.usage(teamId, limit, beforeId);
  }

  async ledger(teamId: string): Promise<LedgerView[]> {
    return this.teamLedger.ledger(teamId);
  }
}
