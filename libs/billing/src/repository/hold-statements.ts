import { EntityManager } from 'typeorm';
import { SqlRow } from '@app/database';
import {
  BudgetPeriod,
  BudgetRefusal,
  ChargeRecord,
  chargeReference,
  fxColumns,
  HoldRequest,
  ledgerColumns,
  ReserveOutcome,
  SettleOutcome,
} from './billing-records';
import { BillingStatements } from './billing-statements';

class Refused extends Error {
  constructor(readonly budget: BudgetRefusal | null) {
    super('refused');
  }
}

type Row = SqlRow;

/**
 * The per-request holds: reserve (with the key's budgets), settle, split, extend and release. On
 * Postgres each of reserve, settle and release is ONE statement; all three run through group commit.
 */
export class HoldStatements extends BillingStatements {
  async reserve(r: HoldRequest): Promise<ReserveOutcome> {
    const { teams, reservations } = this.T;
    if (r.apiKeyId && r.budgets?.length)
      return this.reserveWithinBudget({ ...r, apiKeyId: r.apiKeyId, budgets: r.budgets });
    let ok: boolean;
    if (this.pg) {
      const res = await this.pgBatch.run(
        (q) =>
          q.query(
            `WITH t AS (UPDATE ${teams} SET reserved_micro = reserved_micro + $2::bigint, updated_at = $3::bigint
                      WHERE id = $1 AND balance_micro - reserved_micro >= $2::bigint RETURNING id)
           INSERT INTO ${reservations} (id, team_id, request_id, amount_micro, status, charged_micro, created_at, expires_at, closed_at, api_key_id)
           SELECT $4, t.id, $5, $2::bigint, 'open', NULL, $3::bigint, $6::bigint, NULL, $7 FROM t RETURNING id`,
            [r.teamId, r.amountMicro, r.now, r.id, r.requestId, r.expiresAt, r.apiKeyId ?? null],
          ),
        { singleStatement: true },
      );
      ok = res.rows.length === 1;
    } else {
      ok = await this.sqliteBatch.run((q) => {
        const held = q.run(
          `UPDATE ${teams} SET reserved_micro = reserved_micro + $2, updated_at = $3 WHERE id = $1 AND balance_micro - reserved_micro >= $2`,
          [r.teamId, r.amountMicro, r.now],
        );
        if (held !== 1) return false;
        q.run(
          `INSERT INTO ${reservations} (id, team_id, request_id, amount_micro, status, charged_micro, created_at, expires_at, closed_at, api_key_id) VALUES ($1, $2, $3, $4, 'open', NULL, $5, $6, NULL, $7)`,
          [r.id, r.teamId, r.requestId, r.amountMicro, r.now, r.expiresAt, r.apiKeyId ?? null],
        );
        return true;
      });
    }
    return ok ? { ok: true } : { ok: false, team: await this.findTeam(r.teamId) };
  }

  /**
   * A hold for a key with budgets, in ONE transaction: the team hold (same rule as `reserve`), then
   * for each period held += amount under the condition spent + held + amount <= cap (Postgres locks
   * the counter row and re-checks the condition, SQLite serialises writers), then the reservation
   * naming the periods. Any refusal rolls back everything.
   */
  private async reserveWithinBudget(
    r: HoldRequest & { apiKeyId: string; budgets: BudgetPeriod[] },
  ): Promise<ReserveOutcome> {
    const { teams, reservations, spend } = this.T;
    const day = r.budgets.find((b) => b.period.startsWith('d:'))?.period ?? null;
    const month = r.budgets.find((b) => b.period.startsWith('m:'))?.period ?? null;
    try {
      await this.tx.run(async (m) => {
        // the team row first, then the key's counters: the order settle and release lock them in
        // (Postgres runs their counter update last), so concurrent holds and settles cannot deadlock
        const held = await this.sql.exec(
          `UPDATE ${teams} SET reserved_micro = reserved_micro + $2, updated_at = $3 WHERE id = $1 AND balance_micro - reserved_micro >= $2`,
          [r.teamId, r.amountMicro, r.now],
          m,
        );
        if (held.affected !== 1) throw new Refused(null);
        for (const b of r.budgets) {
          const hold = () =>
            this.sql.exec(
              `UPDATE ${spend} SET held_micro = held_micro + $3 WHERE api_key_id = $1 AND period = $2 AND spent_micro + held_micro + $3 <= $4`,
              [r.apiKeyId, b.period, r.amountMicro, b.capMicro],
              m,
            );
          if ((await hold()).affected === 1) continue;
          let row = (
            await this.sql.exec(
              `SELECT spent_micro, held_micro FROM ${spend} WHERE api_key_id = $1 AND period = $2`,
              [r.apiKeyId, b.period],
              m,
            )
          ).rows[0];
          if (!row) {
            await this.seedSpend(r.apiKeyId, b, m);
            if ((await hold()).affected === 1) continue;
            row = (
              await this.sql.exec(
                `SELECT spent_micro, held_micro FROM ${spend} WHERE api_key_id = $1 AND period = $2`,
                [r.apiKeyId, b.period],
                m,
              )
            ).rows[0];
          }
          throw new Refused({
            period: b,
            spentMicro: Number(row?.spent_micro ?? 0),
            heldMicro: Number(row?.held_micro ?? 0),
          });
        }
        await this.sql.exec(
          `INSERT INTO ${reservations} (id, team_id, request_id, amount_micro, status, charged_micro, created_at, expires_at, closed_at, api_key_id, budget_day, budget_month)
           VALUES ($1, $2, $3, $4, 'open', NULL, $5, $6, NULL, $7, $8, $9)`,
          [r.id, r.teamId, r.requestId, r.amountMicro, r.now, r.expiresAt, r.apiKeyId, day, month],
          m,
        );
      });
      return { ok: true };
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      if (err.budget) return { ok: false, team: await this.findTeam(r.teamId), budget: err.budget };
      return { ok: false, team: await this.findTeam(r.teamId) };
    }
  }

  /** The period's counter row, its spend read from the ledger (a concurrent seed of the same row wins). */
  private async seedSpend(apiKeyId: string, b: BudgetPeriod, m: EntityManager): Promise<void> {
    const { ledger, spend } = this.T;
    await this.sql.exec(
      `INSERT INTO ${spend} (api_key_id, period, spent_micro, held_micro)
       SELECT $1::varchar, $2::varchar, COALESCE(-SUM(amount_micro), 0), 0 FROM ${ledger} WHERE api_key_id = $1::varchar AND kind = 'charge' AND created_at >= $3::bigint AND created_at < $4::bigint
       ON CONFLICT (api_key_id, period) DO NOTHING`,
      [apiKeyId, b.period, b.start, b.end],
      m,
    );
  }

  /**
   * Charges exactly `actualMicro` (even past the hold: the balance may go below zero by the excess),
   * frees the hold, appends the ledger entry naming the reservation. A reservation the sweeper
   * already expired is still charged (its hold is gone, so nothing more is freed). Idempotent: a
   * settled or released reservation is never charged again (and the ledger's reservation id is unique).
   */
  async settle(reservationId: string, actualMicro: number, charge: ChargeRecord, now: number): Promise<SettleOutcome> {
    const { teams, reservations, ledger, spend } = this.T;
    const actual = Math.max(0, actualMicro);
    const entry = ledgerColumns(charge);
    let row: Row | undefined;
    if (this.pg) {
      const res = await this.pgBatch.run(
        (q) =>
          q.query(
            `WITH old AS (SELECT id, team_id, amount_micro, status, api_key_id, budget_day, budget_month FROM ${reservations} WHERE id = $1 AND status IN ('open', 'expired') FOR UPDATE),
                s AS (UPDATE ${spend} AS sp SET spent_micro = sp.spent_micro + $2::bigint,
                        held_micro = CASE WHEN old.status <> 'open' THEN sp.held_micro WHEN sp.held_micro > old.amount_micro THEN sp.held_micro - old.amount_micro ELSE 0 END
                      FROM old WHERE sp.api_key_id = old.api_key_id AND sp.period IN (old.budget_day, old.budget_month) RETURNING 1),
                r AS (UPDATE ${reservations} AS res SET status = 'settled', charged_micro = $2::bigint, closed_at = $3::bigint FROM old WHERE res.id = old.id
                      RETURNING old.team_id, CASE WHEN old.status = 'open' THEN old.amount_micro ELSE 0 END AS held),
                t AS (UPDATE ${teams} AS tm SET balance_micro = tm.balance_micro - $2::bigint, reserved_micro = tm.reserved_micro - r.held, updated_at = $3::bigint
                      FROM r WHERE tm.id = r.team_id RETURNING tm.id AS team_id, tm.balance_micro AS balance_after)
           INSERT INTO ${ledger} (team_id, kind, request_id, reference, api_key_id, endpoint, model, prompt_tokens, completion_tokens, total_tokens, amount_micro, balance_after_micro, details, created_at, reservation_id, fx_rate, fx_date)
           SELECT t.team_id, 'charge', $4, $12, $5, $6, $7, $8::int, $9::int, $10::int, -$2::bigint, t.balance_after, $11, $3::bigint, $1, $13, $14 FROM t
           RETURNING id, amount_micro, balance_after_micro`,
            [reservationId, actual, now, ...entry, chargeReference(charge), ...fxColumns(charge)],
          ),
        { singleStatement: true },
      );
      row = res.rows[0];
    } else {
      row = await this.sqliteBatch.run((q) => {
        const r = q.all(
          `SELECT team_id, amount_micro, status, api_key_id, budget_day, budget_month FROM ${reservations} WHERE id = $1 AND status IN ('open', 'expired')`,
          [reservationId],
        )[0];
        if (!r) return undefined;
        const held = r.status === 'open' ? Number(r.amount_micro) : 0;
        if (r.budget_day !== null || r.budget_month !== null) {
          q.run(
            `UPDATE ${spend} SET spent_micro = spent_micro + $3, held_micro = CASE WHEN held_micro > $4 THEN held_micro - $4 ELSE 0 END
             WHERE api_key_id = $1 AND period IN ($2, $5)`,
            [r.api_key_id, r.budget_day, actual, held, r.budget_month],
          );
        }
        q.run(`UPDATE ${reservations} SET status = 'settled', charged_micro = $2, closed_at = $3 WHERE id = $1`, [
          reservationId,
          actual,
          now,
        ]);
        const t = q.all(
          `UPDATE ${teams} SET balance_micro = balance_micro - $1, reserved_micro = reserved_micro - $2, updated_at = $3 WHERE id = $4 RETURNING balance_micro`,
          [actual, held, now, r.team_id],
        )[0];
        return q.all(
          `INSERT INTO ${ledger} (team_id, kind, request_id, reference, api_key_id, endpoint, model, prompt_tokens, completion_tokens, total_tokens, amount_micro, balance_after_micro, details, created_at, reservation_id, fx_rate, fx_date)
           VALUES ($1, 'charge', $2, $14, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $15, $16) RETURNING id, amount_micro, balance_after_micro`,
          [
            r.team_id,
            ...entry.slice(0, 7),
            -actual,
            t.balance_micro,
            charge.details,
            now,
            reservationId,
            chargeReference(charge),
            ...fxColumns(charge),
          ],
        )[0];
      });
    }
    if (!row) return { ok: false, status: (await this.findReservation(reservationId))?.status ?? null };
    return {
      ok: true,
      chargedMicro: -Number(row.amount_micro),
      balanceAfterMicro: Number(row.balance_after_micro),
      ledgerId: Number(row.id),
    };
  }

  /**
   * Moves `amountMicro` of an open hold into a new hold of the same team, key budgets and request,
   * in one transaction: the team's and the key's held sums do not change, so no other request can
   * take the money in between. False (nothing written) when the parent is closed or holds less.
   */
  async split(parentId: string, child: { id: string; amountMicro: number; now: number }): Promise<boolean> {
    const { reservations } = this.T;
    return this.tx.run(async (m) => {
      const moved = await this.sql.exec(
        `UPDATE ${reservations} SET amount_micro = amount_micro - $2::bigint WHERE id = $1 AND status = 'open' AND amount_micro >= $2::bigint`,
        [parentId, child.amountMicro],
        m,
      );
      if (moved.affected !== 1) return false;
      await this.sql.exec(
        `INSERT INTO ${reservations} (id, team_id, request_id, amount_micro, status, charged_micro, created_at, expires_at, closed_at, api_key_id, budget_day, budget_month)
         SELECT $2, team_id, request_id, $3::bigint, 'open', NULL, $4::bigint, expires_at, NULL, api_key_id, budget_day, budget_month FROM ${reservations} WHERE id = $1`,
        [parentId, child.id, child.amountMicro, child.now],
        m,
      );
      return true;
    });
  }

  /** Pushes the expiry of holds still in flight on this replica (long streams outlive the TTL). */
  async extend(ids: string[], expiresAt: number): Promise<void> {
    if (ids.length === 0) return;
    await this.reservations
      .createQueryBuilder()
      .update()
      .set({ expiresAt })
      .where('id IN (:...ids) AND status = :open', { ids, open: 'open' })
      .execute();
  }

  /** Frees the hold without charging. Returns false when the reservation was already closed. */
  async release(reservationId: string, now: number, status: 'released' | 'expired' = 'released'): Promise<boolean> {
    const { teams, reservations, spend } = this.T;
    if (this.pg) {
      const res = await this.pgBatch.run(
        (q) =>
          q.query(
            `WITH r AS (UPDATE ${reservations} SET status = $2, closed_at = $3::bigint WHERE id = $1 AND status = 'open' RETURNING team_id, amount_micro, api_key_id, budget_day, budget_month),
                s AS (UPDATE ${spend} AS sp SET held_micro = CASE WHEN sp.held_micro > r.amount_micro THEN sp.held_micro - r.amount_micro ELSE 0 END
                      FROM r WHERE sp.api_key_id = r.api_key_id AND sp.period IN (r.budget_day, r.budget_month) RETURNING 1)
           UPDATE ${teams} AS tm SET reserved_micro = tm.reserved_micro - r.amount_micro, updated_at = $3::bigint FROM r WHERE tm.id = r.team_id RETURNING tm.id`,
            [reservationId, status, now],
          ),
        { singleStatement: true },
      );
      return res.rows.length === 1;
    }
    return this.sqliteBatch.run((q) => {
      const r = q.all(
        `UPDATE ${reservations} SET status = $2, closed_at = $3 WHERE id = $1 AND status = 'open' RETURNING team_id, amount_micro, api_key_id, budget_day, budget_month`,
        [reservationId, status, now],
      )[0];
      if (!r) return false;
      if (r.budget_day !== null || r.budget_month !== null) {
        q.run(
          `UPDATE ${spend} SET held_micro = CASE WHEN held_micro > $3 THEN held_micro - $3 ELSE 0 END WHERE api_key_id = $1 AND period IN ($2, $4)`,
          [r.api_key_id, r.budget_day, r.amount_micro, r.budget_month],
        );
      }
      q.run(`UPDATE ${teams} SET reserved_micro = reserved_micro - $1, updated_at = $2 WHERE id = $3`, [
        r.amount_micro,
        now,
        r.team_id,
      ]);
      return true;
    });
  }
}
