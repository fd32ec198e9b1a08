import { Injectable, Logger } from '@nestjs/common';
import { ApiError, Clock, microToRub } from '@app/common';
import { AppConfig } from '@app/config';
import { BillingService } from '@app/billing';
import type { Actor } from '@app/accounts/audit';
import { DocumentsRepository } from '../documents.repository';
import { DocumentMailer } from '../document-mailer';
import { InvoiceDto, InvoiceListDto, MarkPaidResultDto } from '../dto/invoices.dto';
import { InvoiceEntity } from '../entities/documents.entities';
import { includedVatKopecks, kopecksToMicro, kopecksToRub, rubToKopecks, VatRate } from '../money/document-money';
import { localDate, russianDate } from '../acts/months';
import { renderInvoicePdf } from '../pdf/invoice-pdf';
import { RequisitesService } from '../requisites/requisites.service';
import type { DocumentParties } from '../requisites/requisites.types';

/** How crediting an invoice's payment went. */
export type CreditOutcome =
  { status: 'credited'; balanceMicro: number } | { status: 'already_credited' } | { status: 'invoice_already_paid' };

class InvoiceAlreadyPaid extends Error {}

/** Issuing invoices (numbered per year without gaps), their PDFs, and crediting their payments. */
@Injectable()
export class InvoicesService {
  private readonly logger = new Logger('InvoicesService');

  constructor(
    private readonly repo: DocumentsRepository,
    private readonly requisites: RequisitesService,
    private readonly billing: BillingService,
    private readonly mailer: DocumentMailer,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async issue(teamId: string, amountRub: number, actor: Actor): Promise<InvoiceDto> {
    const amountKopecks = rubToKopecks(amountRub);
    if (amountKopecks === null || amountKopecks <= 0)
      throw ApiError.badRequest(
        'amount_rub must be a positive amount with at most 2 decimals.',
        'amount_rub',
        'invalid_value',
      );
    const parties = await this.requisites.parties(teamId);
    const now = this.clock.now();
    const vatRate = parties.seller.vatRate;
    const row = await this.repo.issueInvoice(
      {
        teamId,
        year: localDate(this.config.documents.timeZone, now).year,
        amountKopecks,
        vatKopecks: includedVatKopecks(amountKopecks, vatRate),
        vatRate,
        parties: JSON.stringify(parties),
        issuedAt: now,
      },
      { actor, teamId, action: 'invoice.issue', targetType: 'invoice' },
    );
    if (parties.buyer.emailForDocuments) void this.mail(row, parties, parties.buyer.emailForDocuments);
    return invoiceView(row);
  }

  async list(teamId: string): Promise<InvoiceListDto> {
    return { object: 'list', data: (await this.repo.listInvoices(teamId, 500)).map(invoiceView) };
  }

  async pdf(teamId: string, id: string): Promise<{ number: string; pdf: Buffer }> {
    const row = await this.repo.invoice(id);
    if (!row || row.teamId !== teamId)
      throw ApiError.notFound(`Invoice ${id} not found.`, 'invoice_not_found', 'invoice_id');
    return { number: row.number, pdf: await this.render(row) };
  }

  /** The operator records a payment the statement could not match: credits the invoice's amount once. */
  async markPaid(id: string, reference: string, actor: Actor): Promise<MarkPaidResultDto> {
    const row = await this.repo.invoice(id);
    if (!row) throw ApiError.notFound(`Invoice ${id} not found.`, 'invoice_not_found', 'id');
    const ledgerRef = `invoice-manual:${reference.trim()}`;
    const out = await this.credit(row, ledgerRef, { reference: reference.trim() }, actor);
    const after = (await this.repo.invoice(id))!;
    if (
      out.status === 'invoice_already_paid' ||
      (out.status === 'already_credited' && after.paidReference !== ledgerRef)
    )
      throw new ApiError(
        409,
        'invalid_request_error',
        out.status === 'invoice_already_paid'
          ? `Invoice ${row.number} is already paid.`
          : `The reference "${reference}" was already used for another credit of this team.`,
        out.status === 'invoice_already_paid' ? 'invoice_already_paid' : 'reference_used',
      );
    const balance = await this.billing.balance(row.teamId);
    return { invoice: invoiceView(after), balance_rub: microToRub(balance.balanceMicro), reference: ledgerRef };
  }

  /**
   * Credits the invoice's amount to its team under `reference` (once per team, whatever the
   * concurrency: the ledger's unique reference) and marks the invoice paid in the same transaction;
   * an invoice already paid under another reference rolls the credit back.
   */
  async credit(
    inv: InvoiceEntity,
    reference: string,
    details: Record<string, unknown>,
    actor: Actor,
  ): Promise<CreditOutcome> {
    const now = this.clock.now();
    try {
      const r = await this.billing.topUp(inv.teamId, kopecksToMicro(inv.amountKopecks), reference, {
        details: JSON.stringify({ source: 'invoice', invoice: inv.number, ...details }),
        within: async (m) => {
          if (!(await this.repo.markPaidIn(m, inv.id, reference, now))) throw new InvoiceAlreadyPaid();
          await this.repo.writeAuditIn(
            m,
            {
              actor,
              teamId: inv.teamId,
              action: 'invoice.paid',
              targetType: 'invoice',
              targetId: inv.id,
              after: { reference },
            },
            now,
          );
        },
      });
      return r.applied ? { status: 'credited', balanceMicro: r.balanceMicro } : { status: 'already_credited' };
    } catch (err) {
      if (err instanceof InvoiceAlreadyPaid) return { status: 'invoice_already_paid' };
      throw err;
    }
  }

  private render(row: InvoiceEntity): Promise<Buffer> {
    return renderInvoicePdf({
      number: row.number,
      dateText: russianDate(localDate(this.config.documents.timeZone, row.issuedAt)),
      issuedAt: new Date(row.issuedAt),
      parties: JSON.parse(row.parties) as DocumentParties,
      amountKopecks: row.amountKopecks,
      vatKopecks: row.vatKopecks,
      vatRate: row.vatRate as VatRate,
    });
  }

  private async mail(row: InvoiceEntity, parties: DocumentParties, to: string): Promise<void> {
    try {
      await this.mailer.send({
        to,
        subject: `Счёт на оплату № ${row.number}`,
        text: `Счёт на оплату № ${row.number} от ${parties.seller.legalName} во вложении.\n`,
        fileName: `${row.number}.pdf`,
        pdf: await this.render(row),
      });
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'invoice e-mail not sent');
    }
  }
}

export function invoiceView(row: InvoiceEntity): InvoiceDto {
  return {
    id: row.id,
    number: row.number,
    amount_rub: kopecksToRub(row.amountKopecks),
    vat_rub: kopecksToRub(row.vatKopecks),
    vat_rate: row.vatRate,
    status: row.status,
    issued_at: new Date(row.issuedAt).toISOString(),
    paid_at: row.paidAt === null ? null : new Date(row.paidAt).toISOString(),
    pdf_url: `/api/v1/teams/${row.teamId}/invoices/${row.id}/pdf`,
  };
}
