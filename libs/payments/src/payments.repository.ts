import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { RawSql } from '@app/database';
import { PaymentEntity } from './entities/payment.entity';

/** Where a page of a team's payments continues: after (created_at, id), newest first. */
export interface PaymentCursor {
  createdAt: number;
  id: string;
}

/** The payments table. */
@Injectable()
export class PaymentsRepository {
  private readonly sql: RawSql;
  private readonly table: string;

  constructor(
    @InjectRepository(PaymentEntity) private readonly payments: Repository<PaymentEntity>,
    ds: DataSource,
  ) {
    this.sql = new RawSql(ds);
    this.table = this.sql.table(PaymentEntity);
  }

  async insert(row: PaymentEntity): Promise<void> {
    await this.payments.insert(row);
  }

  async update(id: string, patch: Partial<PaymentEntity>): Promise<void> {
    await this.payments.update({ id }, patch);
  }

  findById(id: string): Promise<PaymentEntity | null> {
    return this.payments.findOneBy({ id });
  }

  findByProviderId(provider: string, providerPaymentId: string): Promise<PaymentEntity | null> {
    return this.payments.findOneBy({ provider, providerPaymentId });
  }

  /** Newest first; `teamId` null: every team's. */
  list(teamId: string | null, limit: number, after?: PaymentCursor): Promise<PaymentEntity[]> {
    const qb = this.payments.createQueryBuilder('p').where("p.status <> 'creating'");
    if (teamId) qb.andWhere('p.team_id = :teamId', { teamId });
    if (after)
      qb.andWhere('(p.created_at < :at OR (p.created_at = :at AND p.id < :id))', { at: after.createdAt, id: after.id });
    return qb.orderBy('p.created_at', 'DESC').addOrderBy('p.id', 'DESC').take(limit).getMany();
  }

  /**
   * Claims up to `limit` pending payments due for a check, for `leaseMs`: one replica polls each.
   * Postgres: `FOR UPDATE SKIP LOCKED` (replicas never wait on each other); SQLite: the single writer.
   */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<PaymentEntity[]> {
    const lock = this.sql.pg ? 'FOR UPDATE SKIP LOCKED' : '';
    const { rows } = await this.sql.exec(
      `UPDATE ${this.table} SET lease_until = $1
       WHERE id IN (SELECT id FROM ${this.table} WHERE status = 'pending' AND next_check_at IS NOT NULL
         AND next_check_at <= $2 AND (lease_until IS NULL OR lease_until < $2)
         ORDER BY next_check_at LIMIT $3 ${lock})
       RETURNING id`,
      [now + leaseMs, now, limit],
    );
    if (rows.length === 0) return [];
    return this.payments.findBy({ id: In(rows.map((r) => String(r.id))) });
  }

  /** Records a poll: the next one (null: no more) and the lease released. */
  async endCheck(id: string, checks: number, nextCheckAt: number | null, now: number): Promise<void> {
    await this.payments.update({ id }, { checks, nextCheckAt, leaseUntil: null, updatedAt: now });
  }

  /** Inside the credit's transaction: the payment is paid and credited. */
  async markSucceededIn(m: EntityManager, id: string, creditedMicro: number, now: number): Promise<void> {
    await m.update(
      PaymentEntity,
      { id },
      { status: 'succeeded', creditedMicro, paidAt: now, nextCheckAt: null, leaseUntil: null, updatedAt: now },
    );
  }
}
