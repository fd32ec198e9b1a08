import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityTarget, LessThan, Repository } from 'typeorm';
import { PgGroupCommit, SqliteGroupCommit, TransactionRunner } from '@app/database';
import { LedgerEntryEntity } from './entities/ledger-entry.entity';
import { ReservationEntity } from './entities/reservation.entity';
import { TeamEntity } from './entities/team.entity';

export interface ChargeRecord {
  requestId: string;
  apiKeyId: string | null;
  endpoint: string;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  details: string | null;
}

export type ReserveOutcome = { ok: true } | { ok: false; team: TeamEntity | null };
export type SettleOutcome = { ok: true; chargedMicro: number; balanceAfterMicro: number; ledgerId: number } | { ok: false; status: string | null };
export type TopUpOutcome = { applied: boolean; balanceMicro: number } | null;

type Row = Record<string, unknown>;

/**
 * The only class in billing that touches the database. Every multi-table write is one method
 * owning its transaction. The rule that keeps balances non-negative under concurrency lives in
 * one conditional UPDATE: `reserved + amount <= balance` is checked and applied atomically
 * (Postgres takes the row lock and re-evaluates the condition; SQLite serialises writers).
 *
 * The per-request paths (reserve, settle, release) are hand-written SQL: on Postgres each is ONE
 * statement (data-modifying CTEs), so the team row is locked only for that statement and a request
 * costs one round trip per step; on SQLite, which has no data-modifying CTEs, they are a few
 * statements with RETURNING inside one serialised transaction.
 *
 * Those three run through group commit (SqliteGroupCommit / PgGroupCommit): the reserves, settles
 * and releases of many concurrent requests share one transaction and one commit, each caller
 * resuming only after that commit — so no answer is sent before its charge is durable, and the
 * per-request rules above (one conditional UPDATE per hold, idempotent settle) are unchanged.
 */
@Injectable()
export class BillingRepository {
  private readonly pg: boolean;
  private readonly T: { teams: string; reservations: string; ledger: string };

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly tx: TransactionRunner,
    @InjectRepository(TeamEntity) private readonly teams: Repository<TeamEntity>,
    @InjectRepository(ReservationEntity) private readonly reservations: Repository<ReservationEntity>,
    @InjectRepository(LedgerEntryEntity) private readonly ledger: Repository<LedgerEntryEntity>,
    private readonly sqliteBatch: SqliteGroupCommit,
    private readonly pgBatch: PgGroupCommit,
  ) {
    this.pg = ds.options.type === 'postgres';
    const table = (e: EntityTarget<object>) => ds.getMetadata(e).tablePath.split('.').map((p) => ds.driver.escape(p)).join('.');
    this.T = { teams: table(TeamEntity), reservations: table(ReservationEntity), ledger: table(LedgerEntryEntity) };
  }

  /** One statement; `$n` placeholders (rewritten to `?` in order for SQLite). */
  private async exec(sql: string, params: unknown[], m?: EntityManager): Promise<{ rows: Row[]; affected: number }> {
    let text = sql;
    let args = params;
    if (!this.pg) {
      args = [];
      text = sql.replace(/\$(\d+)(::\w+)?/g, (_, n: string) => {
        args.push(params[Number(n) - 1]);
        return '?';
      });
    }
    const qr = m?.queryRunner ?? this.ds.createQueryRunner();
    try {
      const r = await qr.query(text, args, true);
      const rows = Array.isArray(r.records) ? (r.records as Row[]) : [];
      return { rows, affected: r.affected ?? rows.length };
    } finally {
      if (!m?.queryRunner) await qr.release();
    }
  }

  findTeam(id: string): Promise<TeamEntity | null> {
    return this.teams.findOneBy({ id });
  }

  /** Creates the team with an opening top-up entry (when balance > 0) in one transaction. */
  createTeam(team: { id: string; name: string; now: number }, openingMicro: number, reference: string | null): Promise<TeamEntity> {
    return this.tx.run(async (m) => {
      await m.insert(TeamEntity, { id: team.id, name: team.name, balanceMicro: 0, reservedMicro: 0, createdAt: team.now, updatedAt: team.now });
      if (openingMicro > 0) await this.applyTopUp(m, team.id, openingMicro, reference, team.now);
      return (await m.findOneByOrFail(TeamEntity, { id: team.id }));
    });
  }

  /** Insert-if-absent (idempotent across replicas: a concurrent insert of the same id is ignored). */
  async ensureTeam(id: string, name: string, now: number): Promise<void> {
    await this.teams.createQueryBuilder().insert().into(TeamEntity).values({ id, name, balanceMicro: 0, reservedMicro: 0, createdAt: now, updatedAt: now }).orIgnore().execute();
  }

  async reserve(r: { id: string; teamId: string; requestId: string; amountMicro: number; now: number; expiresAt: number }): Promise<ReserveOutcome> {
    const { teams, reservations } = this.T;
    let ok: boolean;
    if (this.pg) {
      const res = await this.pgBatch.run((q) =>
        q.query(
          `WITH t AS (UPDATE ${teams} SET reserved_micro = reserved_micro + $2::bigint, updated_at = $3::bigint
                      WHERE id = $1 AND balance_micro - reserved_micro >= $2::bigint RETURNING id)
           INSERT INTO ${reservations} (id, team_id, request_id, amount_micro, status, charged_micro, created_at, expires_at, closed_at)
           SELECT $4, t.id, $5, $2::bigint, 'open', NULL, $3::bigint, $6::bigint, NULL FROM t RETURNING id`,
          [r.teamId, r.amountMicro, r.now, r.id, r.requestId, r.expiresAt],
        ),
        { singleStatement: true },
      );
      ok = res.rows.length === 1;
    } else {
      ok = await this.sqliteBatch.run((q) => {
        const held = q.run(`UPDATE ${teams} SET reserved_micro = reserved_micro + $2, updated_at = $3 WHERE id = $1 AND balance_micro - reserved_micro >= $2`, [r.teamId, r.amountMicro, r.now]);
        if (held !== 1) return false;
        q.run(
          `INSERT INTO ${reservations} (id, team_id, request_id, amount_micro, status, charged_micro, created_at, expires_at, closed_at) VALUES ($1, $2, $3, $4, 'open', NULL, $5, $6, NULL)`,
          [r.id, r.teamId, r.requestId, r.amountMicro, r.now, r.expiresAt],
        );
        return true;
      });
    }
    return ok ? { ok: true } : { ok: false, team: await this.findTeam(r.teamId) };
  }

  /**
   * Charges exactly `actualMicro` (even past the hold: the balance may go below zero by the excess),
   * frees the hold, appends the ledger entry naming the reservation. A reservation the sweeper
   * already expired is still charged (its hold is gone, so nothing more is freed). Idempotent: a
   * settled or released reservation is never charged again (and the ledger's reservation id is unique).
   */
  async settle(reservationId: string, actualMicro: number, charge: ChargeRecord, now: number): Promise<SettleOutcome> {
    const { teams, reservations, ledger } = this.T;
    const actual = Math.max(0, actualMicro);
    const entry = [charge.requestId, charge.apiKeyId, charge.endpoint, charge.model, charge.promptTokens, charge.completionTokens, charge.totalTokens, charge.details];
    let row: Row | undefined;
    if (this.pg) {
      const res = await this.pgBatch.run((q) =>
        q.query(
          `WITH old AS (SELECT id, team_id, amount_micro, status FROM ${reservations} WHERE id = $1 AND status IN ('open', 'expired') FOR UPDATE),
                r AS (UPDATE ${reservations} AS res SET status = 'settled', charged_micro = $2::bigint, closed_at = $3::bigint FROM old WHERE res.id = old.id
                      RETURNING old.team_id, CASE WHEN old.status = 'open' THEN old.amount_micro ELSE 0 END AS held),
                t AS (UPDATE ${teams} AS tm SET balance_micro = tm.balance_micro - $2::bigint, reserved_micro = tm.reserved_micro - r.held, updated_at = $3::bigint
                      FROM r WHERE tm.id = r.team_id RETURNING tm.id AS team_id, tm.balance_micro AS balance_after)
           INSERT INTO ${ledger} (team_id, kind, request_id, reference, api_key_id, endpoint, model, prompt_tokens, completion_tokens, total_tokens, amount_micro, balance_after_micro, details, created_at, reservation_id)
           SELECT t.team_id, 'charge', $4, NULL, $5, $6, $7, $8::int, $9::int, $10::int, -$2::bigint, t.balance_after, $11, $3::bigint, $1 FROM t
           RETURNING id, amount_micro, balance_after_micro`,
          [reservationId, actual, now, ...entry],
        ),
        { singleStatement: true },
      );
      row = res.rows[0];
    } else {
      row = await this.sqliteBatch.run((q) => {
        const r = q.all(`SELECT team_id, amount_micro, status FROM ${reservations} WHERE id = $1 AND status IN ('open', 'expired')`, [reservationId])[0];
        if (!r) return undefined;
        const held = r.status === 'open' ? Number(r.amount_micro) : 0;
        q.run(`UPDATE ${reservations} SET status = 'settled', charged_micro = $2, closed_at = $3 WHERE id = $1`, [reservationId, actual, now]);
        const t = q.all(`UPDATE ${teams} SET balance_micro = balance_micro - $1, reserved_micro = reserved_micro - $2, updated_at = $3 WHERE id = $4 RETURNING balance_micro`, [actual, held, now, r.team_id])[0];
        return q.all(
          `INSERT INTO ${ledger} (team_id, kind, request_id, reference, api_key_id, endpoint, model, prompt_tokens, completion_tokens, total_tokens, amount_micro, balance_after_micro, details, created_at, reservation_id)
           VALUES ($1, 'charge', $2, NULL, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id, amount_micro, balance_after_micro`,
          [r.team_id, ...entry.slice(0, 7), -actual, t.balance_micro, charge.details, now, reservationId],
        )[0];
      });
    }
    if (!row) return { ok: false, status: (await this.findReservation(reservationId))?.status ?? null };
    return { ok: true, chargedMicro: -Number(row.amount_micro), balanceAfterMicro: Number(row.balance_after_micro), ledgerId: Number(row.id) };
  }

  /** Pushes the expiry of holds still in flight on this replica (long streams outlive the TTL). */
  async extend(ids: string[], expiresAt: number): Promise<void> {
    if (ids.length === 0) return;
    await this.reservations.createQueryBuilder().update().set({ expiresAt }).where('id IN (:...ids) AND status = :open', { ids, open: 'open' }).execute();
  }

  /** Frees the hold without charging. Returns false when the reservation was already closed. */
  async release(reservationId: string, now: number, status: 'released' | 'expired' = 'released'): Promise<boolean> {
    const { teams, reservations } = this.T;
    if (this.pg) {
      const res = await this.pgBatch.run((q) =>
        q.query(
          `WITH r AS (UPDATE ${reservations} SET status = $2, closed_at = $3::bigint WHERE id = $1 AND status = 'open' RETURNING team_id, amount_micro)
           UPDATE ${teams} AS tm SET reserved_micro = tm.reserved_micro - r.amount_micro, updated_at = $3::bigint FROM r WHERE tm.id = r.team_id RETURNING tm.id`,
          [reservationId, status, now],
        ),
        { singleStatement: true },
      );
      return res.rows.length === 1;
    }
    return this.sqliteBatch.run((q) => {
      const r = q.all(`UPDATE ${reservations} SET status = $2, closed_at = $3 WHERE id = $1 AND status = 'open' RETURNING team_id, amount_micro`, [reservationId, status, now])[0];
      if (!r) return false;
      q.run(`UPDATE ${teams} SET reserved_micro = reserved_micro - $1, updated_at = $2 WHERE id = $3`, [r.amount_micro, now, r.team_id]);
      return true;
    });
  }

  async findExpiredOpen(now: number, limit: number): Promise<string[]> {
    const rows = await this.reservations.find({ select: { id: true }, where: { status: 'open', expiresAt: LessThan(now) }, take: limit, order: { expiresAt: 'ASC' } });
    return rows.map((r) => r.id);
  }

  findReservation(id: string): Promise<ReservationEntity | null> {
    return this.reservations.findOneBy({ id });
  }

  /** Idempotent by (team, reference): a repeated reference changes nothing. null when the team does not exist. */
  topUp(teamId: string, amountMicro: number, reference: string | null, now: number): Promise<TopUpOutcome> {
    return this.tx
      .run(async (m) => {
        const team = await m.findOneBy(TeamEntity, { id: teamId });
        if (!team) return null;
        if (reference !== null && (await m.findOneBy(LedgerEntryEntity, { teamId, reference }))) return { applied: false, balanceMicro: team.balanceMicro };
        const balanceMicro = await this.applyTopUp(m, teamId, amountMicro, reference, now);
        return { applied: true, balanceMicro };
      })
      .catch(async (err: unknown) => {
        // a concurrent top-up with the same reference won the unique index: this one is a no-op
        if (reference !== null && isUniqueViolation(err)) {
          const team = await this.findTeam(teamId);
          return team ? { applied: false, balanceMicro: team.balanceMicro } : null;
        }
        throw err;
      });
  }

  private async applyTopUp(m: EntityManager, teamId: string, amountMicro: number, reference: string | null, now: number): Promise<number> {
    await m
      .createQueryBuilder()
      .update(TeamEntity)
      .set({ balanceMicro: () => 'balance_micro + :amount', updatedAt: now })
      .where('id = :teamId', { teamId, amount: amountMicro })
      .execute();
    const team = await m.findOneByOrFail(TeamEntity, { id: teamId });
    await m.insert(LedgerEntryEntity, {
      teamId, kind: 'top_up', requestId: null, reference, apiKeyId: null, endpoint: null, model: null,
      promptTokens: 0, completionTokens: 0, totalTokens: 0, amountMicro, balanceAfterMicro: team.balanceMicro, details: null, createdAt: now,
    });
    return team.balanceMicro;
  }

  listLedger(teamId: string, limit: number, beforeId?: number): Promise<LedgerEntryEntity[]> {
    return this.ledger.find({ where: beforeId !== undefined ? { teamId, id: LessThan(beforeId) } : { teamId }, order: { id: 'DESC' }, take: limit });
  }

  /** Every entry of a team in order (used by replay checks). */
  listLedgerAscending(teamId: string): Promise<LedgerEntryEntity[]> {
    return this.ledger.find({ where: { teamId }, order: { id: 'ASC' } });
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const code = e?.driverError?.code ?? e?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || (typeof e?.message === 'string' && /UNIQUE constraint failed/.test(e.message));
}
