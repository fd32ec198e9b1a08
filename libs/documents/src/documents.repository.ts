import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { newId } from '@app/common';
import { TransactionRunner } from '@app/database';
import { AuditRecord, AuditTrail } from '@app/accounts/audit';
import { isUniqueViolation } from '@app/billing/billing.repository';
import {
  ActEntity,
  BankStatementEntity,
  InvoiceCounterEntity,
  InvoiceEntity,
  SellerRequisitesEntity,
  TeamRequisitesEntity,
} from './entities/documents.entities';

const SELLER_ID = 'seller';

export interface NewInvoice {
  teamId: string;
  year: number;
  amountKopecks: number;
  vatKopecks: number;
  vatRate: string;
  parties: string;
  issuedAt: number;
}

/**
 * The documents' tables. Invoice numbers come from a counter row per year moved in the transaction
 * that inserts the invoice, so a number is used exactly when its invoice exists (no gaps, no
 * duplicates across replicas: Postgres locks the counter row, SQLite serialises writers).
 */
@Injectable()
export class DocumentsRepository {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditTrail,
  ) {}

  async seller(): Promise<SellerRequisitesEntity | null> {
    return this.ds.getRepository(SellerRequisitesEntity).findOneBy({ id: SELLER_ID });
  }

  putSeller(data: string, now: number, audit: Omit<AuditRecord, 'before' | 'after'>): Promise<void> {
    return this.tx.run(async (m) => {
      const before = await m.findOneBy(SellerRequisitesEntity, { id: SELLER_ID });
      await m.save(SellerRequisitesEntity, { id: SELLER_ID, data, updatedAt: now });
      await this.audit.writeIn(
        m,
        { ...audit, before: before ? JSON.parse(before.data) : null, after: JSON.parse(data) },
        now,
      );
    });
  }

  teamRequisites(teamId: string): Promise<TeamRequisitesEntity | null> {
    return this.ds.getRepository(TeamRequisitesEntity).findOneBy({ teamId });
  }

  putTeamRequisites(
    teamId: string,
    data: string,
    now: number,
    audit: Omit<AuditRecord, 'before' | 'after'>,
  ): Promise<void> {
    return this.tx.run(async (m) => {
      const before = await m.findOneBy(TeamRequisitesEntity, { teamId });
      await m.save(TeamRequisitesEntity, { teamId, data, updatedAt: now });
      await this.audit.writeIn(
        m,
        { ...audit, before: before ? JSON.parse(before.data) : null, after: JSON.parse(data) },
        now,
      );
    });
  }

  /** Inserts the invoice with the year's next number; a concurrent first invoice of a year retries. */
  async issueInvoice(inv: NewInvoice, audit: Omit<AuditRecord, 'after' | 'targetId'>): Promise<InvoiceEntity> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.tx.run(async (m) => {
          const seq = await this.nextNumber(m, inv.year);
          const row: InvoiceEntity = {
            id: newId(),
            teamId: inv.teamId,
            number: `INV-${inv.year}-${String(seq).padStart(6, '0')}`,
            year: inv.year,
            seq,
            amountKopecks: inv.amountKopecks,
            vatKopecks: inv.vatKopecks,
            vatRate: inv.vatRate,
            status: 'issued',
            parties: inv.parties,
            issuedAt: inv.issuedAt,
            paidAt: null,
            paidReference: null,
          };
          await m.insert(InvoiceEntity, row);
          await this.audit.writeIn(
            m,
            { ...audit, targetId: row.id, after: { number: row.number, amount_kopecks: row.amountKopecks } },
            inv.issuedAt,
          );
          return row;
        });
      } catch (err) {
        // two replicas opened the year's counter at once: the loser starts over (and then finds the row)
        if (attempt < 5 && isUniqueViolation(err)) continue;
        throw err;
      }
    }
  }

  private async nextNumber(m: EntityManager, year: number): Promise<number> {
    await m
      .createQueryBuilder()
      .update(InvoiceCounterEntity)
      .set({ lastNumber: () => 'last_number + 1' })
      .where('year = :year', { year })
      .execute();
    const row = await m.findOneBy(InvoiceCounterEntity, { year });
    if (row) return row.lastNumber;
    await m.insert(InvoiceCounterEntity, { year, lastNumber: 1 });
    return 1;
  }

  listInvoices(teamId: string, limit: number): Promise<InvoiceEntity[]> {
    return this.ds
      .getRepository(InvoiceEntity)
      .find({ where: { teamId }, order: { issuedAt: 'DESC', seq: 'DESC' }, take: limit });
  }

  invoice(id: string): Promise<InvoiceEntity | null> {
    return this.ds.getRepository(InvoiceEntity).findOneBy({ id });
  }

  invoicesByNumber(numbers: string[]): Promise<InvoiceEntity[]> {
    if (numbers.length === 0) return Promise.resolve([]);
    return this.ds.getRepository(InvoiceEntity).find({ where: { number: In(numbers) } });
  }

  /**
   * Marks an issued invoice paid inside the crediting transaction; false when it is already paid
   * (the caller then rolls the credit back). On Postgres the row lock orders concurrent payers.
   */
  async markPaidIn(m: EntityManager, invoiceId: string, reference: string, now: number): Promise<boolean> {
    const r = await m
      .createQueryBuilder()
      .update(InvoiceEntity)
      .set({ status: 'paid', paidAt: now, paidReference: reference })
      .where("id = :invoiceId AND status = 'issued'", { invoiceId })
      .execute();
    return (r.affected ?? 0) > 0;
  }

  writeAuditIn(m: EntityManager, record: AuditRecord, now: number): Promise<void> {
    return this.audit.writeIn(m, record, now);
  }

  insertStatement(row: BankStatementEntity, audit: AuditRecord): Promise<void> {
    return this.tx.run(async (m) => {
      await m.insert(BankStatementEntity, row);
      await this.audit.writeIn(m, audit, row.uploadedAt);
    });
  }

  statement(id: string): Promise<BankStatementEntity | null> {
    return this.ds.getRepository(BankStatementEntity).findOneBy({ id });
  }

  act(teamId: string, month: string): Promise<ActEntity | null> {
    return this.ds.getRepository(ActEntity).findOneBy({ teamId, month });
  }

  /** Stores a closed month's act; when another replica stored it first, answers that one (and false). */
  async freezeAct(row: ActEntity): Promise<{ act: ActEntity; stored: boolean }> {
    try {
      await this.tx.run((m) => m.insert(ActEntity, row));
      return { act: row, stored: true };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const existing = await this.act(row.teamId, row.month);
      if (!existing) throw err;
      return { act: existing, stored: false };
    }
  }
}
