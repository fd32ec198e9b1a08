import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@app/database';

/** The operator's company: one row (id "seller"). */
@Entity('seller_requisites')
export class SellerRequisitesEntity {
  @PrimaryColumn({ type: 'varchar', length: 16 }) id: string;
  /** JSON: the requisites as validated (see SellerRequisites) */
  @Column({ type: 'text' }) data: string;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}

/** A team's company. */
@Entity('team_requisites')
export class TeamRequisitesEntity {
  @PrimaryColumn({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  /** JSON: the requisites as validated (see TeamRequisites) */
  @Column({ type: 'text' }) data: string;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}

/** The last invoice number of a year, moved in the transaction that issues the invoice. */
@Entity('invoice_counters')
export class InvoiceCounterEntity {
  @PrimaryColumn({ type: 'integer' }) year: number;
  @Column({ name: 'last_number', type: 'integer' }) lastNumber: number;
}

export type InvoiceStatus = 'issued' | 'paid';

@Entity('invoices')
export class InvoiceEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 32 }) number: string;
  @Column({ type: 'integer' }) year: number;
  @Column({ type: 'integer' }) seq: number;
  @Column({ name: 'amount_kopecks', type: 'bigint', transformer: bigintNumber }) amountKopecks: number;
  @Column({ name: 'vat_kopecks', type: 'bigint', transformer: bigintNumber }) vatKopecks: number;
  @Column({ name: 'vat_rate', type: 'varchar', length: 8 }) vatRate: string;
  @Column({ type: 'varchar', length: 16 }) status: InvoiceStatus;
  /** JSON: both parties' requisites when the invoice was issued ({seller, buyer}) */
  @Column({ type: 'text' }) parties: string;
  @Column({ name: 'issued_at', type: 'bigint', transformer: bigintNumber }) issuedAt: number;
  @Column({ name: 'paid_at', type: 'bigint', transformer: bigintNumber, nullable: true }) paidAt: number | null;
  /** the ledger reference of the credit that paid it */
  @Column({ name: 'paid_reference', type: 'varchar', length: 200, nullable: true }) paidReference: string | null;
}

/** One uploaded bank statement and what became of each of its documents. */
@Entity('bank_statements')
export class BankStatementEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ type: 'varchar', length: 40 }) account: string;
  @Column({ name: 'date_from', type: 'varchar', length: 10, nullable: true }) dateFrom: string | null;
  @Column({ name: 'date_to', type: 'varchar', length: 10, nullable: true }) dateTo: string | null;
  @Column({ type: 'varchar', length: 64 }) sha256: string;
  /** JSON: the payments with their outcome (see StatementPayment) */
  @Column({ type: 'text' }) payments: string;
  @Column({ name: 'credited_kopecks', type: 'bigint', transformer: bigintNumber }) creditedKopecks: number;
  @Column({ name: 'uploaded_at', type: 'bigint', transformer: bigintNumber }) uploadedAt: number;
}

/** A closed month's act as first produced after the close: never changes. */
@Entity('acts')
export class ActEntity {
  @PrimaryColumn({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @PrimaryColumn({ type: 'varchar', length: 7 }) month: string;
  /** JSON: the act (lines, totals, both parties' requisites) */
  @Column({ type: 'text' }) data: string;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}

export const DOCUMENT_ENTITIES = [
  SellerRequisitesEntity,
  TeamRequisitesEntity,
  InvoiceCounterEntity,
  InvoiceEntity,
  BankStatementEntity,
  ActEntity,
];
