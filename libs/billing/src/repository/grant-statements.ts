import { SqlRow } from '@app/database';
import {
  ChargeRecord,
  chargeReference,
  CREDIT_GRANT_REQUEST,
  fxColumns,
  GrantCharge,
  GrantRequest,
  ledgerColumns,
  SettleOutcome,
} from './billing-records';
import { BillingStatements } from './billing-statements';

type Row = SqlRow;

/** Credit granted to a replica in bulk (see CreditGrants): taken, shrunk, and charged against. */
export class GrantStatements extends BillingStatements {
  /**
   * Credit granted to one replica in bulk: a reservation row (`request_id` = `credit-grant`) that
   * holds `min(wantMicro, available / share)` of the team's balance, or nothing when that is below
   * `minMicro`. The rule is the one every hold obeys — `reserved + amount <= balance`, checked and
   * applied in one statement under the team's row lock — so the grants of all replicas never
   * exceed the balance. Returns the amount granted (0 = refused).
   */
  async grantCredit(g: GrantRequest): Promise<number> {
    const { teams, reservations } = this.T;
    if (this.pg) {
      const res = await this.pgBatch.run(
        (q) =>
          q.query(
            `WITH cur AS (SELECT id, LEAST($2::bigint, (balance_micro - reserved_micro) / $3::bigint) AS amt FROM ${teams} WHERE id = $1 FOR UPDATE),
                  t AS (UPDATE ${teams} AS tm SET reserved_micro = tm.reserved_micro + cur.amt, updated_at = $5::bigint FROM cur
                        WHERE tm.id = cur.id AND cur.amt >= $4::bigint AND cur.amt > 0 RETURNING cur.amt)
             INSERT INTO ${reservations} (id, team_id, request_id, amount_micro, status, charged_micro, created_at, expires_at, closed_at, api_key_id)
             SELECT $6, $1, '${CREDIT_GRANT_REQUEST}', t.amt, 'open', NULL, $5::bigint, $7::bigint, NULL, NULL FROM t RETURNING amount_micro`,
            [g.teamId, g.wantMicro, g.share, g.minMicro, g.now, g.id, g.expiresAt],
          ),
        { singleStatement: true },
      );
      return Number(res.rows[0]?.amount_micro ?? 0);
    }
    return this.sqliteBatch.run((q) => {
      const t = q.all(`SELECT balance_micro, reserved_micro FROM ${teams} WHERE id = $1`, [g.teamId])[0];
      if (!t) return 0;
      const amt = Math.min(g.wantMicro, Math.floor((Number(t.balance_micro) - Number(t.reserved_micro)) / g.share));
      if (amt < g.minMicro || amt <= 0) return 0;
      q.run(`UPDATE ${teams} SET reserved_micro = reserved_micro + $2, updated_at = $3 WHERE id = $1`, [
        g.teamId,
        amt,
        g.now,
      ]);
      q.run(
        `INSERT INTO ${reservations} (id, team_id, request_id, amount_micro, status, charged_micro, created_at, expires_at, closed_at, api_key_id)
         VALUES ($1, $2, '${CREDIT_GRANT_REQUEST}', $3, 'open', NULL, $4, $5, NULL, NULL)`,
        [g.id, g.teamId, amt, g.now, g.expiresAt],
      );
      return amt;
    });
  }

  /** What a team's open credit grants hold, all replicas together (µRUB). */
  async grantedMicro(teamId: string): Promise<number> {
    const r = (
      await this.sql.exec(
        `SELECT COALESCE(SUM(amount_micro), 0) AS granted FROM ${this.T.reservations} WHERE status = 'open' AND request_id = $2 AND team_id = $1`,
        [teamId, CREDIT_GRANT_REQUEST],
      )
    ).rows[0];
    return Number(r?.granted ?? 0);
  }

  /** Returns `amountMicro` of an open grant to the balance (what its replica holds no request on). */
  async shrinkGrant(grantId: string, amountMicro: number, now: number): Promise<boolean> {
    const { teams, reservations } = this.T;
    if (amountMicro <= 0) return true;
    if (this.pg) {
      const res = await this.pgBatch.run(
        (q) =>
          q.query(
            `WITH r AS (UPDATE ${reservations} SET amount_micro = amount_micro - $2::bigint WHERE id = $1 AND status = 'open' AND amount_micro >= $2::bigint RETURNING team_id)
             UPDATE ${teams} AS tm SET reserved_micro = tm.reserved_micro - $2::bigint, updated_at = $3::bigint FROM r WHERE tm.id = r.team_id RETURNING tm.id`,
            [grantId, amountMicro, now],
          ),
        { singleStatement: true },
      );
      return res.rows.length === 1;
    }
    return this.sqliteBatch.run((q) => {
      const r = q.all(
        `UPDATE ${reservations} SET amount_micro = amount_micro - $2 WHERE id = $1 AND status = 'open' AND amount_micro >= $2 RETURNING team_id`,
        [grantId, amountMicro],
      )[0];
      if (!r) return false;
      q.run(`UPDATE ${teams} SET reserved_micro = reserved_micro - $1, updated_at = $2 WHERE id = $3`, [
        amountMicro,
        now,
        r.team_id,
      ]);
      return true;
    });
  }

  /**
   * Charges a request that held from a credit grant, in one statement: the balance goes down by
   * exactly `actualMicro`, the grant (while still open) and the team's held sum by as much of it as
   * the grant still holds, and the ledger entry names the request's own hold id (unique: a charge
   * replayed from the spool is applied once). A grant already closed (returned, or expired because
   * its replica stopped renewing it) no longer holds anything: the charge then comes from the balance
   * alone, as for an expired reservation. `grantOpen` tells the replica whether its grant is alive.
   */
  async chargeFromGrant(
    c: GrantCharge,
    charge: ChargeRecord,
    now: number,
  ): Promise<SettleOutcome & { grantOpen?: boolean }> {
    const { teams, reservations, ledger } = this.T;
    const actual = Math.max(0, c.actualMicro);
    const entry = ledgerColumns(charge);
    let row: Row | undefined;
    if (this.pg) {
      const res = await this.pgBatch.run(
        (q) =>
          q.query(
            `WITH g AS (SELECT id, amount_micro FROM ${reservations} WHERE id = $1 AND status = 'open' FOR UPDATE),
                  gu AS (UPDATE ${reservations} AS res SET amount_micro = res.amount_micro - LEAST(g.amount_micro, $2::bigint) FROM g
                         WHERE res.id = g.id RETURNING LEAST(g.amount_micro, $2::bigint) AS freed),
                  t AS (UPDATE ${teams} AS tm SET balance_micro = tm.balance_micro - $2::bigint,
                          reserved_micro = tm.reserved_micro - COALESCE((SELECT freed FROM gu), 0), updated_at = $3::bigint
                        WHERE tm.id = $12 RETURNING tm.id AS team_id, tm.balance_micro AS balance_after)
             INSERT INTO ${ledger} (team_id, kind, request_id, reference, api_key_id, endpoint, model, prompt_tokens, completion_tokens, total_tokens, amount_micro, balance_after_micro, details, created_at, reservation_id, fx_rate, fx_date)
             SELECT t.team_id, 'charge', $4, $14, $5, $6, $7, $8::int, $9::int, $10::int, -$2::bigint, t.balance_after, $11, $3::bigint, $13, $15, $16 FROM t
             RETURNING id, amount_micro, balance_after_micro, (SELECT COUNT(*) FROM gu) AS grant_open`,
            [c.grantId, actual, now, ...entry, c.teamId, c.holdId, chargeReference(charge), ...fxColumns(charge)],
          ),
        { singleStatement: true },
      );
      row = res.rows[0];
    } else {
      row = await this.sqliteBatch.run((q) => {
        const g = q.all(`SELECT amount_micro FROM ${reservations} WHERE id = $1 AND status = 'open'`, [c.grantId])[0];
        const freed = g ? Math.min(Number(g.amount_micro), actual) : 0;
        if (g) q.run(`UPDATE ${reservations} SET amount_micro = amount_micro - $2 WHERE id = $1`, [c.grantId, freed]);
        const t = q.all(
          `UPDATE ${teams} SET balance_micro = balance_micro - $1, reserved_micro = reserved_micro - $2, updated_at = $3 WHERE id = $4 RETURNING balance_micro`,
          [actual, freed, now, c.teamId],
        )[0];
        if (!t) return undefined;
        const inserted = q.all(
          `INSERT INTO ${ledger} (team_id, kind, request_id, reference, api_key_id, endpoint, model, prompt_tokens, completion_tokens, total_tokens, amount_micro, balance_after_micro, details, created_at, reservation_id, fx_rate, fx_date)
           VALUES ($1, 'charge', $2, $14, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $15, $16) RETURNING id, amount_micro, balance_after_micro`,
          [
            c.teamId,
            ...entry.slice(0, 7),
            -actual,
            t.balance_micro,
            charge.details,
            now,
            c.holdId,
            chargeReference(charge),
            ...fxColumns(charge),
          ],
        )[0];
        return { ...inserted, grant_open: g ? 1 : 0 };
      });
    }
    if (!row) return { ok: false, status: null };
    return {
      ok: true,
      chargedMicro: -Number(row.amount_micro),
      balanceAfterMicro: Number(row.balance_after_micro),
      ledgerId: Number(row.id),
      grantOpen: Number(row.grant_open) > 0,
    };
  }
}
