import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, LessThan, Repository } from 'typeorm';
import { TransactionRunner } from '@app/database';
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

/**
 * The only class in billing that touches the database. Every multi-table write is one method
 * owning its transaction. The rule that keeps balances non-negative under concurrency lives in
 * one conditional UPDATE: `reserved + amount <= balance` is checked and applied atomically
 * (Postgres takes the row lock and re-evaluates the condition; SQLite serialises writers).
 */
@Injectable()
export class BillingRepository {
  constructor(
    private readonly tx: TransactionRunner,
    @InjectRepository(TeamEntity) private readonly teams: Repository<TeamEntity>,
    @InjectRepository(ReservationEntity) private readonly reservations: Repository<ReservationEntity>,
    @InjectRepository(LedgerEntryEntity) private readonly ledger: Repository<LedgerEntryEntity>,
  ) {}

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

  reserve(r: { id: string; teamId: string; requestId: string; amountMicro: number; now: number; expiresAt: number }): Promise<ReserveOutcome> {
    return this.tx.run(async (m) => {
      const res = await m
        .createQueryBuilder()
        .update(TeamEntity)
        .set({ reservedMicro: () => 'reserved_micro + :amount', updatedAt: r.now })
        .where('id = :teamId AND balance_micro - reserved_micro >= :amount', { teamId: r.teamId, amount: r.amountMicro })
        .execute();
      if (!res.affected) return { ok: false, team: await m.findOneBy(TeamEntity, { id: r.teamId }) };
      await m.insert(ReservationEntity, {
        id: r.id, teamId: r.teamId, requestId: r.requestId, amountMicro: r.amountMicro, status: 'open', chargedMicro: null, createdAt: r.now, expiresAt: r.expiresAt, closedAt: null,
      });
      return { ok: true };
    });
  }

  /** Charges min(actual, reserved), frees the hold, appends the ledger entry. Idempotent: a closed reservation is never charged again. */
  settle(reservationId: string, actualMicro: number, charge: ChargeRecord, now: number): Promise<SettleOutcome> {
    return this.tx.run(async (m) => {
      const reservation = await m.findOneBy(ReservationEntity, { id: reservationId });
      if (!reservation) return { ok: false, status: null };
      const chargedMicro = Math.min(Math.max(0, actualMicro), reservation.amountMicro);
      const closed = await m
        .createQueryBuilder()
        .update(ReservationEntity)
        .set({ status: 'settled', chargedMicro, closedAt: now })
        .where('id = :id AND status = :open', { id: reservationId, open: 'open' })
        .execute();
      if (!closed.affected) return { ok: false, status: reservation.status };
      await m
        .createQueryBuilder()
        .update(TeamEntity)
        .set({ balanceMicro: () => 'balance_micro - :charged', reservedMicro: () => 'reserved_micro - :held', updatedAt: now })
        .where('id = :teamId', { teamId: reservation.teamId, charged: chargedMicro, held: reservation.amountMicro })
        .execute();
      const team = await m.findOneByOrFail(TeamEntity, { id: reservation.teamId });
      const entry = await m.save(
        m.create(LedgerEntryEntity, {
          teamId: reservation.teamId, kind: 'charge', requestId: charge.requestId, reference: null, apiKeyId: charge.apiKeyId, endpoint: charge.endpoint, model: charge.model,
          promptTokens: charge.promptTokens, completionTokens: charge.completionTokens, totalTokens: charge.totalTokens,
          amountMicro: -chargedMicro, balanceAfterMicro: team.balanceMicro, details: charge.details, createdAt: now,
        }),
      );
      return { ok: true, chargedMicro, balanceAfterMicro: team.balanceMicro, ledgerId: Number(entry.id) };
    });
  }

  /** Frees the hold without charging. Returns false when the reservation was already closed. */
  release(reservationId: string, now: number, status: 'released' | 'expired' = 'released'): Promise<boolean> {
    return this.tx.run(async (m) => {
      const reservation = await m.findOneBy(ReservationEntity, { id: reservationId });
      if (!reservation) return false;
      const closed = await m
        .createQueryBuilder()
        .update(ReservationEntity)
        .set({ status, closedAt: now })
        .where('id = :id AND status = :open', { id: reservationId, open: 'open' })
        .execute();
      if (!closed.affected) return false;
      await m
        .createQueryBuilder()
        .update(TeamEntity)
        .set({ reservedMicro: () => 'reserved_micro - :held', updatedAt: now })
        .where('id = :teamId', { teamId: reservation.teamId, held: reservation.amountMicro })
        .execute();
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
