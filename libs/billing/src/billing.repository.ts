import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, LessThan, MoreThan, Repository } from 'typeorm';
import { PgGroupCommit, RawSql, SqliteGroupCommit, SqlRow, TransactionHook, TransactionRunner } from '@app/database';
import { LedgerEntryEntity } from './entities/ledger-entry.entity';
import { ReservationEntity } from './entities/reservation.entity';
import { TeamEntity } from './entities/team.entity';
import { ApiKeySpendEntity } from './entities/api-key-spend.entity';

export interface ChargeRecord {
  requestId: string;
  apiKeyId: string | null;
  endpoint: string;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  details: string | null;
  /**
   * The charge's own key (the ledger's `reference`, unique per team): work that may run again (an
   * ingestion re-run after its replica died) is charged once. null: the reservation is the key.
   */
  reference?: string | null;
  /** USD-priced models: the CBR rate (RUB per USD, as a decimal string) and its date the charge used */
  fxRate?: string | null;
  fxDate?: string | null;
}

/** A budget a reservation must fit in: period 'd:YYYY-MM-DD' / 'm:YYYY-MM' (UTC), [start, end) in epoch ms. */
export interface BudgetPeriod {
  period: string;
  capMicro: number;
  start: number;
  end: number;
}

export interface BudgetRefusal {
  period: BudgetPeriod;
  spentMicro: number;
  heldMicro: number;
}

export type ReserveOutcome = { ok: true } | { ok: false; team: TeamEntity | null; budget?: BudgetRefusal };

export type SummaryGroup = 'model' | 'day' | 'key' | 'endpoint';

export interface SummaryRow {
  group: string | number | null;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  spentMicro: number;
}

class Refused extends Error {
  constructor(readonly budget: BudgetRefusal | null) {
    super('refused');
  }
}
export type SettleOutcome =
  | { ok: true; chargedMicro: number; balanceAfterMicro: number; ledgerId: number }
  | { ok: false; status: string | null };
export type TopUpOutcome = { applied: boolean; balanceMicro: number } | null;

type Row = SqlRow;

/** `request_id` of the reservation rows that are credit grants to a replica (not one request's hold). */
export const CREDIT_GRANT_REQUEST = 'credit-grant';

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
  private readonly sql: RawSql;
  private readonly pg: boolean;
  private readonly T: { teams: string; reservations: string; ledger: string; spend: string };

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly tx: TransactionRunner,
    @InjectRepository(TeamEntity) private readonly teams: Repository<TeamEntity>,
    @InjectRepository(ReservationEntity) private readonly reservations: Repository<ReservationEntity>,
    @InjectRepository(LedgerEntryEntity) private readonly ledger: Repository<LedgerEntryEntity>,
    @InjectRepository(ApiKeySpendEntity) private readonly spendRows: Repository<ApiKeySpendEntity>,
    private readonly sqliteBatch: SqliteGroupCommit,
    private readonly pgBatch: PgGroupCommit,
  ) {
    this.sql = new RawSql(ds);
    this.pg = this.sql.pg;
    this.T = {
      teams: this.sql.table(TeamEntity),
      reservations: this.sql.table(ReservationEntity),
      ledger: this.sql.table(LedgerEntryEntity),
      spend: this.sql.table(ApiKeySpendEntity),
    };
  }

  findTeam(id: string, m?: EntityManager): Promise<TeamEntity | null> {
    return (m ? m.getRepository(TeamEntity) : this.teams).findOneBy({ id, deletedAt: IsNull() });
  }

  /** Creates the team with an opening top-up entry (when balance > 0) and `within`, in one transaction. */
  createTeam(
    team: { id: string; name: string; now: number },
    openingMicro: number,
    reference: string | null,
    within?: TransactionHook<TeamEntity>,
  ): Promise<TeamEntity> {
    return this.tx.run(async (m) => {
      await m.insert(TeamEntity, {
        id: team.id,
        name: team.name,
        balanceMicro: 0,
        reservedMicro: 0,
        createdAt: team.now,
        updatedAt: team.now,
      });
      if (openingMicro > 0) await this.applyTopUp(m, team.id, openingMicro, reference, team.now);
      const created = await m.findOneByOrFail(TeamEntity, { id: team.id });
      await within?.(m, created);
      return created;
    });
  }

  /** Insert-if-absent (idempotent across replicas: a concurrent insert of the same id is ignored). */
  async ensureTeam(id: string, name: string, now: number): Promise<void> {
    await this.teams
      .createQueryBuilder()
      .insert()
      .into(TeamEntity)
      .values({ id, name, balanceMicro: 0, reservedMicro: 0, createdAt: now, updatedAt: now })
      .orIgnore()
      .execute();
  }

  async reserve(r: {
    id: string;
    teamId: string;
    requestId: string;
    amountMicro: number;
    now: number;
    expiresAt: number;
    apiKeyId?: string | null;
    budgets?: BudgetPeriod[];
  }): Promise<ReserveOutcome> {
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
  private async reserveWithinBudget(r: {
    id: string;
    teamId: string;
    requestId: string;
    amountMicro: number;
    now: number;
    expiresAt: number;
    apiKeyId: string;
    budgets: BudgetPeriod[];
  }): Promise<ReserveOutcome> {
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
   * A key's budgets changed: its counters of past periods go, those of the current periods have
   * their spend recomputed from the ledger (holds of requests in flight are kept).
   */
  async resyncSpend(apiKeyId: string, current: BudgetPeriod[]): Promise<void> {
    const { ledger, spend } = this.T;
    await this.tx.run(async (m) => {
      const keep = current.map((b) => b.period);
      const rows = (await this.sql.exec(`SELECT period FROM ${spend} WHERE api_key_id = $1`, [apiKeyId], m)).rows;
      for (const row of rows)
        if (!keep.includes(String(row.period)))
          await this.sql.exec(`DELETE FROM ${spend} WHERE api_key_id = $1 AND period = $2`, [apiKeyId, row.period], m);
      for (const b of current) {
        await this.sql.exec(
          `UPDATE ${spend} SET spent_micro = (SELECT COALESCE(-SUM(amount_micro), 0) FROM ${ledger} WHERE api_key_id = $1 AND kind = 'charge' AND created_at >= $3 AND created_at < $4)
           WHERE api_key_id = $1 AND period = $2`,
          [apiKeyId, b.period, b.start, b.end],
          m,
        );
      }
    });
  }

  /** Spend and holds of a key in the given periods (missing rows: nothing recorded yet). */
  async spendOf(apiKeyId: string, periods: string[]): Promise<Map<string, { spentMicro: number; heldMicro: number }>> {
    const out = new Map<string, { spentMicro: number; heldMicro: number }>();
    if (!periods.length) return out;
    const rows = await this.spendRows.find({ where: periods.map((period) => ({ apiKeyId, period })) });
    for (const r of rows) out.set(r.period, { spentMicro: r.spentMicro, heldMicro: r.heldMicro });
    return out;
  }

  /** µRUB a key was charged since each of the given instants (from the ledger). */
  async spentSince(apiKeyId: string, since: number[]): Promise<number[]> {
    const out: number[] = [];
    for (const t of since) {
      const r = (
        await this.sql.exec(
          `SELECT COALESCE(-SUM(amount_micro), 0) AS spent FROM ${this.T.ledger} WHERE api_key_id = $1 AND kind = 'charge' AND created_at >= $2`,
          [apiKeyId, t],
        )
      ).rows[0];
      out.push(Number(r?.spent ?? 0));
    }
    return out;
  }

  /** What a team's charges came to since each instant of `since` (µRUB, one sum per instant). */
  async teamSpentSince(teamId: string, since: number[]): Promise<number[]> {
    const out: number[] = [];
    for (const t of since) {
      const r = (
        await this.sql.exec(
          `SELECT COALESCE(-SUM(amount_micro), 0) AS spent FROM ${this.T.ledger} WHERE team_id = $1 AND kind = 'charge' AND created_at >= $2`,
          [teamId, t],
        )
      ).rows[0];
      out.push(Number(r?.spent ?? 0));
    }
    return out;
  }

  /** Requests, tokens and RUB of a team's charges in [from, to), grouped in the database. */
  async summary(teamId: string, from: number, to: number, groupBy: SummaryGroup): Promise<SummaryRow[]> {
    const expr = { model: 'model', endpoint: 'endpoint', key: 'api_key_id', day: 'created_at / 86400000' }[groupBy];
    const rows = (
      await this.sql.exec(
        `SELECT ${expr} AS grp, COUNT(*) AS requests, COALESCE(SUM(prompt_tokens), 0) AS prompt_tokens, COALESCE(SUM(completion_tokens), 0) AS completion_tokens,
                COALESCE(SUM(total_tokens), 0) AS total_tokens, COALESCE(-SUM(amount_micro), 0) AS spent_micro
         FROM ${this.T.ledger} WHERE team_id = $1 AND kind = 'charge' AND created_at >= $2 AND created_at < $3
         GROUP BY ${expr} ORDER BY ${expr}`,
        [teamId, from, to],
      )
    ).rows;
    return rows.map((r) => ({
      group: r.grp === null || r.grp === undefined ? null : groupBy === 'day' ? Number(r.grp) : String(r.grp),
      requests: Number(r.requests),
      promptTokens: Number(r.prompt_tokens),
      completionTokens: Number(r.completion_tokens),
      totalTokens: Number(r.total_tokens),
      spentMicro: Number(r.spent_micro),
    }));
  }

  /** Teams in id order after the cursor. */
  listTeams(limit: number, afterId?: string): Promise<TeamEntity[]> {
    return this.teams.find({
      where: afterId ? { id: MoreThan(afterId), deletedAt: IsNull() } : { deletedAt: IsNull() },
      order: { id: 'ASC' },
      take: limit,
    });
  }

  /**
   * Sets the given columns (undefined = unchanged, null = cleared); null when the team does not exist.
   * `within` runs in the same transaction with the team before and after.
   */
  async updateTeam(
    id: string,
    patch: Partial<
      Pick<
        TeamEntity,
        | 'name'
        | 'rpmLimit'
        | 'tpmLimit'
        | 'requestLogBodies'
        | 'requestLogRetentionDays'
        | 'requestLogBodyRetentionDays'
        | 'mcpAdhocServers'
      >
    >,
    now: number,
    within?: TransactionHook<{ before: TeamEntity; after: TeamEntity }>,
  ): Promise<TeamEntity | null> {
    const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    if (!within) {
      if (Object.keys(set).length > 0) await this.teams.update({ id }, { ...set, updatedAt: now });
      return this.findTeam(id);
    }
    return this.tx.run(async (m) => {
      const before = await this.findTeam(id, m);
      if (!before) return null;
      if (Object.keys(set).length > 0) await m.update(TeamEntity, { id }, { ...set, updatedAt: now });
      const after = (await this.findTeam(id, m))!;
      await within(m, { before, after });
      return after;
    });
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

  /**
   * Credit granted to one replica in bulk: a reservation row (`request_id` = `credit-grant`) that
   * holds `min(wantMicro, available / share)` of the team's balance, or nothing when that is below
   * `minMicro`. The rule is the one every hold obeys — `reserved + amount <= balance`, checked and
   * applied in one statement under the team's row lock — so the grants of all replicas never
   * exceed the balance. Returns the amount granted (0 = refused).
   */
  async grantCredit(g: {
    id: string;
    teamId: string;
    wantMicro: number;
    minMicro: number;
    share: number;
    now: number;
    expiresAt: number;
  }): Promise<number> {
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
    c: { grantId: string; holdId: string; teamId: string; actualMicro: number },
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

  async findExpiredOpen(now: number, limit: number): Promise<string[]> {
    const rows = await this.reservations.find({
      select: { id: true },
      where: { status: 'open', expiresAt: LessThan(now) },
      take: limit,
      order: { expiresAt: 'ASC' },
    });
    return rows.map((r) => r.id);
  }

  findReservation(id: string): Promise<ReservationEntity | null> {
    return this.reservations.findOneBy({ id });
  }

  /**
   * Idempotent by (team, reference): a repeated reference changes nothing. null when the team does
   * not exist. `extra.details` is stored with the ledger entry; `extra.within` runs in the same
   * transaction once the top-up is applied (e.g. its audit record).
   */
  topUp(
    teamId: string,
    amountMicro: number,
    reference: string | null,
    now: number,
    extra: TopUpExtra = {},
  ): Promise<TopUpOutcome> {
    return this.tx
      .run(async (m) => {
        const team = await m.findOneBy(TeamEntity, { id: teamId });
        if (!team) return null;
        if (reference !== null && (await m.findOneBy(LedgerEntryEntity, { teamId, reference })))
          return { applied: false, balanceMicro: team.balanceMicro };
        const balanceMicro = await this.applyTopUp(m, teamId, amountMicro, reference, now, extra.details ?? null);
        await extra.within?.(m, balanceMicro);
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

  private async applyTopUp(
    m: EntityManager,
    teamId: string,
    amountMicro: number,
    reference: string | null,
    now: number,
    details: string | null = null,
  ): Promise<number> {
    await m
      .createQueryBuilder()
      .update(TeamEntity)
      .set({ balanceMicro: () => 'balance_micro + :amount', updatedAt: now })
      .where('id = :teamId', { teamId, amount: amountMicro })
      .execute();
    const team = await m.findOneByOrFail(TeamEntity, { id: teamId });
    await m.insert(LedgerEntryEntity, {
      teamId,
      kind: 'top_up',
      requestId: null,
      reference,
      apiKeyId: null,
      endpoint: null,
      model: null,
      promptTokens: 0,
      completionTokens: 0,
      totalTokens: 0,
      amountMicro,
      balanceAfterMicro: team.balanceMicro,
      details,
      createdAt: now,
    });
    return team.balanceMicro;
  }

  listLedger(teamId: string, limit: number, beforeId?: number): Promise<LedgerEntryEntity[]> {
    return this.ledger.find({
      where: beforeId !== undefined ? { teamId, id: LessThan(beforeId) } : { teamId },
      order: { id: 'DESC' },
      take: limit,
    });
  }

  /** Whether the team's ledger holds an entry under this reference (a keyed charge already applied). */
  async hasReference(teamId: string, reference: string): Promise<boolean> {
    return (await this.ledger.countBy({ teamId, reference })) > 0;
  }

  /** Every entry of a team in order (used by replay checks). */
  listLedgerAscending(teamId: string): Promise<LedgerEntryEntity[]> {
    return this.ledger.find({ where: { teamId }, order: { id: 'ASC' } });
  }
}

/** What a top-up may carry besides its amount. */
export interface TopUpExtra {
  /** JSON stored in the ledger entry's details (e.g. the note and who made it) */
  details?: string | null;
  /** runs inside the top-up's transaction after it is applied */
  within?: (m: EntityManager, balanceMicro: number) => Promise<void>;
}

/** A charge's ledger columns in statement order: request, key, endpoint, model, tokens × 3, details. */
function ledgerColumns(c: ChargeRecord): (string | number | null)[] {
  return [c.requestId, c.apiKeyId, c.endpoint, c.model, c.promptTokens, c.completionTokens, c.totalTokens, c.details];
}

/** The ledger's fx_rate and fx_date of a charge: the CBR rate a USD-priced model was charged at. */
const fxColumns = (c: ChargeRecord): [string | null, string | null] => [c.fxRate ?? null, c.fxDate ?? null];

/** The ledger's reference column of a charge: its own key, or none (the reservation keys it). */
const chargeReference = (c: ChargeRecord): string | null => c.reference ?? null;

export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const code = e?.driverError?.code ?? e?.code;
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    (typeof e?.message === 'string' && /UNIQUE constraint failed/.test(e.message))
  );
}
