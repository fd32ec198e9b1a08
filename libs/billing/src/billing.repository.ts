import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, LessThan, MoreThan, Repository } from 'typeorm';
import { PgGroupCommit, SqliteGroupCommit, TransactionHook, TransactionRunner } from '@app/database';
import { LedgerEntryEntity } from './entities/ledger-entry.entity';
import { ReservationEntity } from './entities/reservation.entity';
import { TeamEntity } from './entities/team.entity';
import { ApiKeySpendEntity } from './entities/api-key-spend.entity';
import {
  BudgetPeriod,
  ChargeRecord,
  GrantCharge,
  GrantRequest,
  HoldRequest,
  isUniqueViolation,
  ReserveOutcome,
  SettleOutcome,
  SummaryGroup,
  SummaryRow,
  TopUpExtra,
  TopUpOutcome,
} from './repository/billing-records';
import { BillingDb, BillingStatements } from './repository/billing-statements';
import { GrantStatements } from './repository/grant-statements';
import { HoldStatements } from './repository/hold-statements';
import { SpendQueries } from './repository/spend-queries';

export * from './repository/billing-records';

/**
 * The billing tables (teams, reservations, ledger, key spend). Every multi-table write is one method
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
 *
 * The statements live by responsibility in `repository/`: the per-request holds (HoldStatements),
 * credit grants (GrantStatements) and spend (SpendQueries); teams, top-ups and the ledger's reads
 * are here.
 */
@Injectable()
export class BillingRepository extends BillingStatements {
  private readonly holds: HoldStatements;
  private readonly grants: GrantStatements;
  private readonly spend: SpendQueries;

  constructor(
    @InjectDataSource() ds: DataSource,
    tx: TransactionRunner,
    @InjectRepository(TeamEntity) teams: Repository<TeamEntity>,
    @InjectRepository(ReservationEntity) reservations: Repository<ReservationEntity>,
    @InjectRepository(LedgerEntryEntity) ledger: Repository<LedgerEntryEntity>,
    @InjectRepository(ApiKeySpendEntity) spendRows: Repository<ApiKeySpendEntity>,
    sqliteBatch: SqliteGroupCommit,
    pgBatch: PgGroupCommit,
  ) {
    const db: BillingDb = { ds, tx, teams, reservations, ledger, spendRows, sqliteBatch, pgBatch };
    super(db);
    this.holds = new HoldStatements(db);
    this.grants = new GrantStatements(db);
    this.spend = new SpendQueries(db);
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
  /** A hold on the team's balance (and the key's budgets): one conditional UPDATE; see HoldStatements. */
  reserve(r: HoldRequest): Promise<ReserveOutcome> {
    return this.holds.reserve(r);
  }

  /** Charges exactly `actualMicro` and frees the hold, idempotently; see HoldStatements.settle. */
  settle(reservationId: string, actualMicro: number, charge: ChargeRecord, now: number): Promise<SettleOutcome> {
    return this.holds.settle(reservationId, actualMicro, charge, now);
  }

  /** Moves part of an open hold into a new hold of the same request; see HoldStatements.split. */
  split(parentId: string, child: { id: string; amountMicro: number; now: number }): Promise<boolean> {
    return this.holds.split(parentId, child);
  }

  /** Pushes the expiry of holds still in flight on this replica (long streams outlive the TTL). */
  extend(ids: string[], expiresAt: number): Promise<void> {
    return this.holds.extend(ids, expiresAt);
  }

  /** Frees the hold without charging. Returns false when the reservation was already closed. */
  release(reservationId: string, now: number, status: 'released' | 'expired' = 'released'): Promise<boolean> {
    return this.holds.release(reservationId, now, status);
  }

  /** Credit granted to one replica in bulk; the amount granted (0 = refused). See GrantStatements. */
  grantCredit(g: GrantRequest): Promise<number> {
    return this.grants.grantCredit(g);
  }

  /** What a team's open credit grants hold, all replicas together (µRUB). */
  grantedMicro(teamId: string): Promise<number> {
    return this.grants.grantedMicro(teamId);
  }

  /** Returns `amountMicro` of an open grant to the balance (what its replica holds no request on). */
  shrinkGrant(grantId: string, amountMicro: number, now: number): Promise<boolean> {
    return this.grants.shrinkGrant(grantId, amountMicro, now);
  }

  /** Charges a request that held from a credit grant, in one statement; see GrantStatements. */
  chargeFromGrant(c: GrantCharge, charge: ChargeRecord, now: number): Promise<SettleOutcome & { grantOpen?: boolean }> {
    return this.grants.chargeFromGrant(c, charge, now);
  }

  /** A key's budgets changed: counters of past periods go, current ones are recomputed from the ledger. */
  resyncSpend(apiKeyId: string, current: BudgetPeriod[]): Promise<void> {
    return this.spend.resyncSpend(apiKeyId, current);
  }

  /** Spend and holds of a key in the given periods (missing rows: nothing recorded yet). */
  spendOf(apiKeyId: string, periods: string[]): Promise<Map<string, { spentMicro: number; heldMicro: number }>> {
    return this.spend.spendOf(apiKeyId, periods);
  }

  /** µRUB a key was charged since each of the given instants (from the ledger). */
  spentSince(apiKeyId: string, since: number[]): Promise<number[]> {
    return this.spend.spentSince(apiKeyId, since);
  }

  /** What a team's charges came to since each instant of `since` (µRUB, one sum per instant). */
  teamSpentSince(teamId: string, since: number[]): Promise<number[]> {
    return this.spend.teamSpentSince(teamId, since);
  }

  /** Requests, tokens and RUB of a team's charges in [from, to), grouped in the database. */
  summary(teamId: string, from: number, to: number, groupBy: SummaryGroup): Promise<SummaryRow[]> {
    return this.spend.summary(teamId, from, to, groupBy);
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

  async findExpiredOpen(now: number, limit: number): Promise<string[]> {
    const rows = await this.reservations.find({
      select: { id: true },
      where: { status: 'open', expiresAt: LessThan(now) },
      take: limit,
      order: { expiresAt: 'ASC' },
    });
    return rows.map((r) => r.id);
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
