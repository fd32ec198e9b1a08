import { Logger } from '@nestjs/common';
import { ApiError, Clock, isDatabaseUnavailable, MetricsService, microToRub, newId } from '@app/common';
import { AppConfig } from '@app/config';
import { BillingRepository, BudgetPeriod } from '../billing.repository';
import { CreditGrants } from '../credit-grants';
import { budgetPeriods, KeyBudget, Reservation } from './billing.types';
import { BillingDurability } from './durability';

/** Why a hold was refused, and how much could have been held instead (µRUB). */
interface Refusal {
  amountMicro: number;
  team: { balanceMicro: number; reservedMicro: number };
  budget?: { period: BudgetPeriod; spentMicro: number; heldMicro: number };
  affordableMicro: number;
}

/**
 * Holds on a team's balance: out of this replica's credit grant, or as a reservation row of its own
 * (with the key's budgets), refused with 402 when not covered; released, or swept once expired.
 */
export class Reservations {
  private readonly logger = new Logger('Billing');
  /** reservation rows of requests running on this replica (kept alive by the sweeper) */
  readonly inFlight = new Map<string, Reservation>();

  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly grants: CreditGrants | null,
    private readonly durability: BillingDurability,
  ) {}

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
      this.durability.defer({ op: 'release', reservationId: reservation.id, at: now }, err);
    }
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
}

function fmt(micro: number): string {
  return microToRub(micro)
    .toFixed(6)
    .replace(/0{1,4}$/, '');
}
