import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiError, Clock, newId } from '@app/common';
import type { Actor } from '@app/accounts/audit';
import { DocumentsRepository } from '../documents.repository';
import { BankStatementDto, StatementPaymentDto } from '../dto/statements.dto';
import { BankStatementEntity, InvoiceEntity } from '../entities/documents.entities';
import { InvoicesService } from '../invoices/invoices.service';
import { kopecksToRub } from '../money/document-money';
import { RequisitesService } from '../requisites/requisites.service';
import type { DocumentParties, SellerRequisites } from '../requisites/requisites.types';
import { invoiceNumbersIn, parseOneCStatement, StatementDocument, StatementFormatError } from './one-c-statement';

/** A statement document and what became of it (stored with the statement). */
interface StatementPayment {
  number: string;
  date: string;
  amountKopecks: number;
  payerInn: string;
  payerName: string;
  purpose: string;
  status: 'credited' | 'already_credited' | 'unmatched';
  reason: string | null;
  invoiceNumber: string | null;
  teamId: string | null;
  reference: string | null;
}

const PAYMENT_ORDER = 'платежное поручение';

/**
 * Bank statements in the 1C exchange format. Each incoming payment order is matched to an issued
 * invoice by the invoice number in its purpose and the payer's ИНН (the buyer's on the invoice); an
 * exact match credits the invoice's amount once, under the reference `bank:<number>:<date>:<payer
 * ИНН>`. Anything else is listed as unmatched for the operator and never credited.
 */
@Injectable()
export class StatementsService {
  constructor(
    private readonly repo: DocumentsRepository,
    private readonly requisites: RequisitesService,
    private readonly invoices: InvoicesService,
    private readonly clock: Clock,
  ) {}

  async upload(bytes: Buffer | undefined, actor: Actor): Promise<BankStatementDto> {
    if (!bytes || bytes.length === 0)
      throw ApiError.badRequest('Attach the statement as the multipart field "file".', 'file', 'missing_file');
    let parsed;
    try {
      parsed = parseOneCStatement(bytes);
    } catch (err) {
      if (err instanceof StatementFormatError)
        throw ApiError.badRequest(`Not a 1C bank statement: ${err.message}.`, 'file', 'invalid_statement');
      throw err;
    }
    const seller = await this.requisites.sellerRequisites();
    if (!seller)
      throw new ApiError(
        409,
        'invalid_request_error',
        'The seller’s requisites are not set: the operator sets them with PUT /api/v1/admin/seller.',
        'seller_requisites_missing',
      );
    const numbers = [...new Set(parsed.documents.flatMap((d) => invoiceNumbersIn(d.purpose)))];
    const invoices = new Map((await this.repo.invoicesByNumber(numbers)).map((i) => [i.number, i]));
    const payments: StatementPayment[] = [];
    for (const doc of parsed.documents) payments.push(await this.settle(doc, seller, invoices, actor));
    const row: BankStatementEntity = {
      id: newId(),
      account: parsed.account.slice(0, 40),
      dateFrom: parsed.dateFrom,
      dateTo: parsed.dateTo,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      payments: JSON.stringify(payments),
      creditedKopecks: payments.filter((p) => p.status === 'credited').reduce((a, p) => a + p.amountKopecks, 0),
      uploadedAt: this.clock.now(),
    };
    await this.repo.insertStatement(row, {
      actor,
      teamId: null,
      action: 'bank_statement.upload',
      targetType: 'bank_statement',
      targetId: row.id,
      after: { documents: payments.length, credited_kopecks: row.creditedKopecks },
    });
    return statementView(row);
  }

  async get(id: string): Promise<BankStatementDto> {
    const row = await this.repo.statement(id);
    if (!row) throw ApiError.notFound(`Bank statement ${id} not found.`, 'bank_statement_not_found', 'id');
    return statementView(row);
  }

  private async settle(
    doc: StatementDocument,
    seller: SellerRequisites,
    invoices: Map<string, InvoiceEntity>,
    actor: Actor,
  ): Promise<StatementPayment> {
    const base: StatementPayment = {
      number: doc.number,
      date: doc.date,
      amountKopecks: doc.amountKopecks,
      payerInn: doc.payerInn,
      payerName: doc.payerName,
      purpose: doc.purpose,
      status: 'unmatched',
      reason: null,
      invoiceNumber: null,
      teamId: null,
      reference: null,
    };
    const unmatched = (reason: string, inv?: InvoiceEntity): StatementPayment => ({
      ...base,
      reason,
      invoiceNumber: inv?.number ?? base.invoiceNumber,
      teamId: inv?.teamId ?? null,
    });
    if (doc.kind.trim().toLowerCase() !== PAYMENT_ORDER) return unmatched('not_payment_order');
    const incoming =
      doc.recipientAccount === seller.account || (doc.recipientInn === seller.inn && doc.payerInn !== seller.inn);
    if (!incoming) return unmatched('not_incoming');
    const mentioned = invoiceNumbersIn(doc.purpose);
    if (mentioned.length === 0) return unmatched('no_invoice_number');
    base.invoiceNumber = mentioned[0];
    const inv = mentioned.map((n) => invoices.get(n)).find((i) => i !== undefined);
    if (!inv) return unmatched('unknown_invoice');
    const buyerInn = (JSON.parse(inv.parties) as DocumentParties).buyer.inn;
    if (doc.payerInn !== buyerInn) return unmatched('foreign_inn', inv);
    if (doc.amountKopecks !== inv.amountKopecks) return unmatched('amount_mismatch', inv);
    const reference = `bank:${doc.number}:${doc.date}:${doc.payerInn}`;
    const out = await this.invoices.credit(inv, reference, { payment_order: doc.number, date: doc.date }, actor);
    if (out.status === 'invoice_already_paid') return unmatched('invoice_already_paid', inv);
    return { ...base, invoiceNumber: inv.number, teamId: inv.teamId, reference, status: out.status };
  }
}

function statementView(row: BankStatementEntity): BankStatementDto {
  const payments = JSON.parse(row.payments) as StatementPayment[];
  return {
    id: row.id,
    account: row.account,
    date_from: row.dateFrom,
    date_to: row.dateTo,
    uploaded_at: new Date(row.uploadedAt).toISOString(),
    credited_rub: kopecksToRub(row.creditedKopecks),
    credited: payments.filter((p) => p.status === 'credited').length,
    unmatched: payments.filter((p) => p.status === 'unmatched').length,
    payments: payments.map((p): StatementPaymentDto => ({
      number: p.number,
      date: p.date,
      amount_rub: kopecksToRub(p.amountKopecks),
      payer_inn: p.payerInn,
      payer_name: p.payerName,
      purpose: p.purpose,
      status: p.status,
      reason: p.reason,
      invoice_number: p.invoiceNumber,
      team_id: p.teamId,
      reference: p.reference,
    })),
  };
}
