import { Injectable, Logger } from '@nestjs/common';
import { ApiError, Clock, rubToMicro } from '@app/common';
import { AppConfig } from '@app/config';
import { UsageSummaryService } from '@app/billing';
import { DocumentsRepository } from '../documents.repository';
import { DocumentMailer } from '../document-mailer';
import { ActDto } from '../dto/acts.dto';
import { allocateKopecks, includedVatKopecks, kopecksToRub, VatRate } from '../money/document-money';
import { renderActPdf } from '../pdf/act-pdf';
import { RequisitesService } from '../requisites/requisites.service';
import type { DocumentParties, SellerRequisites, TeamRequisites } from '../requisites/requisites.types';
import {
  compareMonths,
  localDate,
  MonthKey,
  monthClosesAt,
  monthLabel,
  monthOf,
  monthRange,
  parseMonth,
  russianDate,
  russianMonth,
} from './months';

/** An act as computed (and, for a closed month, as stored: it never changes after). */
interface ActRecord {
  month: string;
  number: string;
  final: boolean;
  totalKopecks: number;
  vatKopecks: number;
  vatRate: VatRate;
  lines: { model: string | null; requests: number; tokens: number; amountKopecks: number }[];
  /** the parties when the act was frozen; null: the buyer had no requisites then (the current ones are used) */
  parties: DocumentParties | null;
}

/**
 * Monthly acts: the month's charges (ledger, grouped by model over the month in DOCUMENTS_TZ), in
 * kopecks with lines that add up to the total, VAT included at the seller's rate. An open month's
 * act is preliminary and recomputed on each request; from the close (next month's 1st day +
 * ACTS_CLOSE_DAYS) the first act produced is stored and answered ever after.
 */
@Injectable()
export class ActsService {
  private readonly logger = new Logger('ActsService');

  constructor(
    private readonly repo: DocumentsRepository,
    private readonly requisites: RequisitesService,
    private readonly usage: UsageSummaryService,
    private readonly mailer: DocumentMailer,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async act(teamId: string, month: string): Promise<ActDto> {
    return actView(teamId, await this.record(teamId, month));
  }

  async pdf(teamId: string, month: string): Promise<{ number: string; pdf: Buffer }> {
    const act = await this.record(teamId, month);
    const parties = act.parties ?? (await this.requisites.parties(teamId));
    return { number: act.number, pdf: await this.render(act, parties) };
  }

  private async record(teamId: string, month: string): Promise<ActRecord> {
    const k = parseMonth(month);
    if (!k) throw ApiError.badRequest('month must be YYYY-MM.', 'month', 'invalid_value');
    const { timeZone, actsCloseDays } = this.config.documents;
    const now = this.clock.now();
    if (compareMonths(k, monthOf(timeZone, now)) > 0)
      throw ApiError.badRequest(`${month} has not begun yet.`, 'month', 'month_in_future');
    const closed = now >= monthClosesAt(timeZone, k, actsCloseDays);
    if (closed) {
      const stored = await this.repo.act(teamId, month);
      if (stored) return JSON.parse(stored.data) as ActRecord;
    }
    const seller = await this.requisites.sellerRequisites();
    if (!seller)
      throw new ApiError(
        409,
        'invalid_request_error',
        'The seller’s requisites are not set: the operator sets them with PUT /api/v1/admin/seller.',
        'seller_requisites_missing',
      );
    const buyerRow = await this.repo.teamRequisites(teamId);
    const buyer = buyerRow ? (JSON.parse(buyerRow.data) as TeamRequisites) : null;
    const act = await this.compute(teamId, k, seller, closed);
    if (!closed) return act;
    act.parties = buyer ? { seller, buyer } : null;
    const { act: frozen, stored } = await this.repo.freezeAct({
      teamId,
      month,
      data: JSON.stringify(act),
      createdAt: now,
    });
    const record = JSON.parse(frozen.data) as ActRecord;
    if (stored && buyer?.emailForDocuments && record.parties)
      void this.mail(record, record.parties, buyer.emailForDocuments);
    return record;
  }

  private async compute(teamId: string, k: MonthKey, seller: SellerRequisites, final: boolean): Promise<ActRecord> {
    const { from, to } = monthRange(this.config.documents.timeZone, k);
    const summary = await this.usage.summary(teamId, {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      group_by: 'model',
    });
    const rows = summary.data.filter((r) => r.amount_rub > 0 || r.requests > 0);
    const { totalKopecks, lines } = allocateKopecks(rows.map((r) => rubToMicro(r.amount_rub)));
    return {
      month: monthLabel(k),
      number: `ACT-${monthLabel(k)}-${teamId.slice(0, 8)}`,
      final,
      totalKopecks,
      vatKopecks: includedVatKopecks(totalKopecks, seller.vatRate),
      vatRate: seller.vatRate,
      lines: rows.map((r, i) => ({
        model: r.group,
        requests: r.requests,
        tokens: r.total_tokens,
        amountKopecks: lines[i],
      })),
      parties: null,
    };
  }

  private render(act: ActRecord, parties: DocumentParties): Promise<Buffer> {
    const k = parseMonth(act.month)!;
    const { to } = monthRange(this.config.documents.timeZone, k);
    return renderActPdf({
      number: act.number,
      dateText: russianDate(localDate(this.config.documents.timeZone, to - 1)),
      monthText: russianMonth(k),
      final: act.final,
      createdAt: new Date(to - 1),
      parties,
      lines: act.lines.map((l) => ({
        description: `Доступ к ${l.model ? `модели ${l.model}` : 'сервисам'} через API: ${l.requests} запр., ${l.tokens.toLocaleString('ru-RU').replace(/\s/g, ' ')} токенов`,
        amountKopecks: l.amountKopecks,
      })),
      totalKopecks: act.totalKopecks,
      vatKopecks: act.vatKopecks,
      vatRate: act.vatRate,
    });
  }

  private async mail(act: ActRecord, parties: DocumentParties, to: string): Promise<void> {
    try {
      await this.mailer.send({
        to,
        subject: `Акт № ${act.number} за ${russianMonth(parseMonth(act.month)!)}`,
        text: `Акт об оказании услуг № ${act.number} от ${parties.seller.legalName} во вложении.\n`,
        fileName: `${act.number}.pdf`,
        pdf: await this.render(act, parties),
      });
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'act e-mail not sent');
    }
  }
}

function actView(teamId: string, a: ActRecord): ActDto {
  return {
    month: a.month,
    number: a.number,
    final: a.final,
    amount_rub: kopecksToRub(a.totalKopecks),
    vat_rub: kopecksToRub(a.vatKopecks),
    vat_rate: a.vatRate,
    lines: a.lines.map((l) => ({
      model: l.model,
      requests: l.requests,
      tokens: l.tokens,
      amount_rub: kopecksToRub(l.amountKopecks),
    })),
    pdf_url: `/api/v1/teams/${teamId}/acts/${a.month}/pdf`,
  };
}
