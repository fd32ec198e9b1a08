import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RawSql, TransactionRunner } from '@app/database';
import { LedgerEntryEntity } from './entities/ledger-entry.entity';
import { ReservationEntity } from './entities/reservation.entity';
import { TeamEntity } from './entities/team.entity';
import type { JournalCharge } from './charge-journal';

/** The ledger's `endpoint` of a reconciliation entry: the charges a killed replica had not written. */
export const RECONCILIATION_ENDPOINT = 'billing:reconciliation';
/** The ledger's `reference` of the reconciliation of a grant (unique per team: reconciled once). */
export const reconciliationReference = (grantId: string): string => `reconcile:${grantId}`;

export interface Reconciled {
  /** charges of the journal already in the ledger (written before the process died) */
  alreadyWritten: number;
  /** charges written now, as one entry */
  reconciled: number;
  amountMicro: number;
  ledgerId: number | null;
}

/**
 * Writes the charges of one credit grant that a killed replica applied in memory and never wrote
 * (read back from its journal) as ONE ledger entry, in one transaction: the charges whose hold ids
 * the ledger already names are left out (never charged twice), the rest lower the balance — and the
 * grant, while it is open, as far as it holds — together, under the reference `reconcile:<grant>`
 * (unique: a second reconciliation of the same grant writes nothing).
 */
@Injectable()
export class ReconciliationRepository {
  private readonly sql: RawSql;
  private readonly T: { teams: string; reservations: string; ledger: string };

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly tx: TransactionRunner,
  ) {
    this.sql = new RawSql(ds);
    this.T = {
      teams: this.sql.table(TeamEntity),
      reservations: this.sql.table(ReservationEntity),
      ledger: this.sql.table(LedgerEntryEntity),
    };
  }

  async reconcileGrant(teamId: string, grantId: string, charges: JournalCharge[], now: number): Promise<Reconciled> {
    const { teams, reservations, ledger } = this.T;
    const reference = reconciliationReference(grantId);
    return this.tx.run(async (m) => {
      if (!(await this.sql.lockRow(teams, teamId, m))) return none(charges.length);
      const done = await this.sql.exec(
        `SELECT 1 FROM ${ledger} WHERE team_id = $1 AND reference = $2`,
        [teamId, reference],
        m,
      );
      if (done.rows.length) return none(charges.length);
      const written = new Set<string>();
      for (let i = 0; i < charges.length; i += 500) {
        const ids = charges.slice(i, i + 500).map((c) => c.holdId);
        const marks = ids.map((_, k) => `$${k + 1}`).join(', ');
        const r = await this.sql.exec(
          `SELECT reservation_id FROM ${ledger} WHERE reservation_id IN (${marks})`,
          ids,
          m,
        );
        for (const row of r.rows) written.add(String(row.reservation_id));
      }
      const lost = charges.filter((c) => !written.has(c.holdId));
      const amount = lost.reduce((s, c) => s + Math.max(0, c.actualMicro), 0);
      if (lost.length === 0 || amount === 0)
        return { alreadyWritten: written.size, reconciled: 0, amountMicro: 0, ledgerId: null };
      const lock = this.sql.pg ? ' FOR UPDATE' : '';
      const g = (
        await this.sql.exec(
          `SELECT amount_micro FROM ${reservations} WHERE id = $1 AND status = 'open'${lock}`,
          [grantId],
          m,
        )
      ).rows[0];
      const freed = g ? Math.min(Number(g.amount_micro), amount) : 0;
      if (freed > 0)
        await this.sql.exec(
          `UPDATE ${reservations} SET amount_micro = amount_micro - $2 WHERE id = $1`,
          [grantId, freed],
          m,
        );
      await this.sql.exec(
        `UPDATE ${teams} SET balance_micro = balance_micro - $1, reserved_micro = reserved_micro - $2, updated_at = $3 WHERE id = $4`,
        [amount, freed, now, teamId],
        m,
      );
      const balance = (await this.sql.exec(`SELECT balance_micro FROM ${teams} WHERE id = $1`, [teamId], m)).rows[0];
      const sum = (k: 'promptTokens' | 'completionTokens' | 'totalTokens') => lost.reduce((s, c) => s + c.charge[k], 0);
      const details = JSON.stringify({
        grant_id: grantId,
        charges: lost.length,
        first_at: Math.min(...lost.map((c) => c.at)),
        last_at: Math.max(...lost.map((c) => c.at)),
        request_ids: lost.map((c) => c.charge.requestId),
      });
      const models = [...new Set(lost.map((c) => c.charge.model))];
      const inserted = await this.sql.exec(
        `INSERT INTO ${ledger} (team_id, kind, request_id, reference, api_key_id, endpoint, model, prompt_tokens, completion_tokens, total_tokens, amount_micro, balance_after_micro, details, created_at, reservation_id)
         VALUES ($1, 'charge', NULL, $2, NULL, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL) RETURNING id`,
        [
          teamId,
          reference,
          RECONCILIATION_ENDPOINT,
          models.length === 1 ? models[0] : null,
          sum('promptTokens'),
          sum('completionTokens'),
          sum('totalTokens'),
          -amount,
          Number(balance.balance_micro),
          details,
          now,
        ],
        m,
      );
      return {
        alreadyWritten: written.size,
        reconciled: lost.length,
        amountMicro: amount,
        ledgerId: Number(inserted.rows[0].id),
      };
    });
  }
}

function none(n: number): Reconciled {
  return { alreadyWritten: n, reconciled: 0, amountMicro: 0, ledgerId: null };
}
