import { Logger } from '@nestjs/common';
import { Clock, newId } from '@app/common';
import { BillingRepository } from './billing.repository';

/** How many of a request's worst-case holds one grant asks for. */
const HOLDS_PER_GRANT = 64;
/** The fewest holds of the request at hand a grant must cover, or the request holds exactly. */
const MIN_HOLDS_PER_GRANT = 4;
/** One grant takes at most this fraction (1/n) of what the team has available. */
const AVAILABLE_SHARE = 8;
/** A grant nobody held from for this long goes back to the balance. */
const IDLE_RETURN_MS = 2_000;

/** One grant of a team's balance to this replica, as this replica sees it. */
interface Grant {
  readonly id: string;
  readonly teamId: string;
  /** granted and not held by any request running here (µRUB) */
  free: number;
  /** requests holding from it now, and how much they hold (µRUB) */
  holds: number;
  held: number;
  lastUsed: number;
}

/** What a request holds out of a grant. */
export interface GrantHold {
  readonly holdId: string;
  readonly grantId: string;
  readonly teamId: string;
  readonly amountMicro: number;
}

/**
 * Per-replica credit control (in the spirit of RFC 4006): instead of one database commit per
 * request to hold its worst case, a replica takes credit from a team's balance in bulk — a grant,
 * one reservation row — and holds each request's worst case out of it in memory. The request's
 * charge is then its only database write: it lowers the balance and the grant together. A request
 * that fails releases its hold in memory (no write at all).
 *
 * Money rules:
 * - a grant is taken under the same conditional UPDATE as any hold (`reserved + amount <= balance`),
 *   at most 1/8 of what is available, so the grants of all replicas never exceed the balance and
 *   one replica never takes it all; a request's hold never exceeds what its grant has free;
 * - a grant is renewed by its replica (`expires_at`) on every sweep; a replica that dies stops
 *   renewing, and the sweeper of any replica returns its grant to the balance once it expires
 *   (CREDIT_GRANT_TTL_SECONDS, plus one sweep interval);
 * - a grant nobody held from for 2 s, and every grant at shutdown, is returned at once;
 * - where a grant cannot cover at least 4 of the request's holds (a small balance), or the key has
 *   budgets, or the request holds for several steps, the request holds exactly as before.
 */
export class CreditGrants {
  private readonly logger = new Logger('CreditGrants');
  /** per team: its grants on this replica, newest last */
  private readonly grants = new Map<string, Grant[]>();
  /** grants being taken, per team: requests arriving meanwhile wait for it instead of taking another */
  private readonly taking = new Map<string, Promise<boolean>>();

  constructor(
    private readonly repo: BillingRepository,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    /**
     * Runs before any credit goes back to the balance: charges applied in memory against a grant
     * (BILLING_DURABILITY=batched) are written first, so the credit returned is what is really left.
     */
    private readonly beforeReturn: () => Promise<void> = async () => undefined,
  ) {}

  /** Requests holding from grants on this replica now. */
  get holds(): number {
    let n = 0;
    for (const list of this.grants.values()) for (const g of list) n += g.holds;
    return n;
  }

  /** What requests running here hold out of the team's grants (µRUB). */
  heldFor(teamId: string): number {
    return (this.grants.get(teamId) ?? []).reduce((sum, g) => sum + g.held, 0);
  }

  /**
   * Holds `amountMicro` out of a grant of this replica, taking a new grant when none has it free.
   * null when no grant can be had for it: the caller then holds exactly (and refuses with 402 when
   * the balance cannot cover even that).
   */
  async hold(teamId: string, amountMicro: number): Promise<GrantHold | null> {
    // a burst of requests shares each grant being taken; when it is used up the next one is taken,
    // until the balance can grant no more (bounded: each round adds credit or ends)
    for (let round = 0; round < 16; round++) {
      const taken = this.takeFree(teamId, amountMicro);
      if (taken) return taken;
      const pending = this.taking.get(teamId);
      if (pending) {
        if (!(await pending)) return this.takeFree(teamId, amountMicro);
        continue;
      }
      const granting = this.grant(teamId, amountMicro);
      this.taking.set(teamId, granting);
      let granted: boolean;
      try {
        granted = await granting;
      } finally {
        this.taking.delete(teamId);
      }
      if (!granted) return this.takeFree(teamId, amountMicro);
    }
    return null;
  }

  /** The request's charge was committed; `grantOpen` false: the database no longer holds its grant. */
  charged(hold: GrantHold, actualMicro: number, grantOpen: boolean): void {
    const g = this.find(hold);
    if (!g) return;
    g.holds--;
    g.held -= hold.amountMicro;
    if (!grantOpen) return this.forget(g);
    g.free = Math.max(0, g.free + hold.amountMicro - actualMicro);
  }

  /** A batched charge found its grant closed in the database: no request holds from it any more. */
  gone(teamId: string, grantId: string): void {
    const g = this.grants.get(teamId)?.find((x) => x.id === grantId);
    if (g) this.forget(g);
  }

  /** The request ended without a charge: its hold is free again. */
  released(hold: GrantHold): void {
    const g = this.find(hold);
    if (!g) return;
    g.holds--;
    g.held -= hold.amountMicro;
    g.free += hold.amountMicro;
  }

  /**
   * Run by the sweeper: grants idle for 2 s (or superseded by a newer grant and no longer held from)
   * go back to the balance, the others have their expiry pushed.
   */
  async renew(): Promise<void> {
    const now = this.clock.now();
    const keep: string[] = [];
    const done: Grant[] = [];
    for (const list of this.grants.values()) {
      list.forEach((g, i) => {
        const superseded = i < list.length - 1;
        if (g.holds === 0 && (superseded || now - g.lastUsed >= IDLE_RETURN_MS)) done.push(g);
        else keep.push(g.id);
      });
    }
    for (const g of done) this.forget(g);
    await this.repo.extend(keep, now + this.ttlMs);
    if (done.length) await this.beforeReturn();
    await Promise.all(done.map((g) => this.giveBack(g)));
  }

  /**
   * Gives back what this replica's grants of the team have free (holds of running requests stay),
   * before a request is refused for want of balance: credit left in a grant too small for the
   * request at hand must not make it fail.
   */
  async trim(teamId: string): Promise<boolean> {
    const list = this.grants.get(teamId) ?? [];
    let returned = false;
    if (list.some((g) => g.free > 0)) await this.beforeReturn();
    for (const g of list) {
      const amount = g.free;
      if (amount <= 0) continue;
      g.free = 0;
      if (g.holds === 0) {
        this.forget(g);
        await this.giveBack(g);
      } else if (!(await this.repo.shrinkGrant(g.id, amount, this.clock.now()).catch(() => false))) continue;
      returned = true;
    }
    return returned;
  }

  /** Every grant back to the balance (shutdown, after the requests in flight ended). */
  async returnAll(): Promise<void> {
    await this.beforeReturn();
    const all = [...this.grants.values()].flat();
    this.grants.clear();
    await Promise.all(all.map((g) => this.giveBack(g)));
  }

  private takeFree(teamId: string, amountMicro: number): GrantHold | null {
    const list = this.grants.get(teamId);
    const g = list?.[list.length - 1];
    if (!g || g.free < amountMicro) return null;
    g.free -= amountMicro;
    g.holds++;
    g.held += amountMicro;
    g.lastUsed = this.clock.now();
    return { holdId: newId(), grantId: g.id, teamId, amountMicro };
  }

  private async grant(teamId: string, amountMicro: number): Promise<boolean> {
    const hold = Math.max(1, amountMicro);
    const now = this.clock.now();
    const id = newId();
    const granted = await this.repo.grantCredit({
      id,
      teamId,
      wantMicro: hold * HOLDS_PER_GRANT,
      minMicro: hold * MIN_HOLDS_PER_GRANT,
      share: AVAILABLE_SHARE,
      now,
      expiresAt: now + this.ttlMs,
    });
    if (granted <= 0) return false;
    const list = this.grants.get(teamId) ?? [];
    list.push({ id, teamId, free: granted, holds: 0, held: 0, lastUsed: now });
    this.grants.set(teamId, list);
    return true;
  }

  private find(hold: GrantHold): Grant | undefined {
    return this.grants.get(hold.teamId)?.find((g) => g.id === hold.grantId);
  }

  private forget(g: Grant): void {
    const list = this.grants.get(g.teamId);
    if (!list) return;
    const rest = list.filter((x) => x !== g);
    if (rest.length) this.grants.set(g.teamId, rest);
    else this.grants.delete(g.teamId);
  }

  private async giveBack(g: Grant): Promise<void> {
    try {
      await this.repo.release(g.id, this.clock.now());
    } catch (err) {
      // it expires and is returned by a sweeper instead
      this.logger.warn({ err, grantId: g.id }, 'returning a credit grant failed');
    }
  }
}
