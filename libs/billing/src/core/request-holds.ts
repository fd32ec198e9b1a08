import { Logger } from '@nestjs/common';
import { Clock, newId } from '@app/common';
import type { Caller } from '@app/auth';
import { BillingRepository } from '../billing.repository';
import type { BillingService } from '../billing.service';
import { KeyBudget, RequestHold, Reservation } from './billing.types';

/** The hold paths of BillingService a request's steps fall back to (the service's own methods). */
type HoldPaths = Pick<BillingService, 'reserve' | 'reserveUpTo' | 'release'>;

/** What BillingService.openRequestHold holds for. */
export interface RequestHoldSpec {
  teamId: string;
  requestId: string;
  caller?: Caller;
  holdMicro: number;
  /** a flexible hold (see MeterSpec.minMicro): at least this much, up to `holdMicro` */
  minMicro?: number;
}

/** One hold for a request made of several charged steps, and the steps' holds taken out of it. */
export class RequestHolds {
  private readonly logger = new Logger('Billing');
  /** request holds opened here, with the function that books what a step took out of them */
  private readonly requestHolds = new WeakMap<RequestHold, (amountMicro: number) => void>();

  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: Clock,
    private readonly inFlight: Map<string, Reservation>,
    private readonly billing: HoldPaths,
  ) {}

  /**
   * Holds `holdMicro` — the worst case of every charged step of one request — before any of them
   * runs (402 / key budget refusal like reserve, nothing charged). Pass the result as
   * `MeterSpec.within` to each step; the step marked `last` releases what is left once its own hold
   * is taken. A hold nobody closes (the request ended before its last step) expires with the
   * reservation TTL like any abandoned hold.
   */
  async open(spec: RequestHoldSpec): Promise<RequestHold> {
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
        ? await this.billing.reserveUpTo(spec.teamId, spec.holdMicro, spec.minMicro, spec.requestId, key, true)
        : await this.billing.reserve(spec.teamId, spec.holdMicro, spec.requestId, key, true);
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
        await this.billing
          .release(reservation)
          .catch((err: unknown) =>
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
  async takeFrom(
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
        ? this.billing.reserveUpTo(child.teamId, holdMicro, minMicro, child.requestId, key)
        : this.billing.reserve(child.teamId, holdMicro, child.requestId);
    }
    take(amountMicro);
    this.inFlight.set(child.id, child);
    if (last) {
      this.requestHolds.delete(parent);
      await parent.close();
    }
    return child;
  }
}
