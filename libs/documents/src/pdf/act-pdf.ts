import { VatRate } from '../money/document-money';
import type { DocumentParties } from '../requisites/requisites.types';
import {
  amountInWordsBlock,
  FULL,
  LEFT,
  linesTable,
  partyBlock,
  RIGHT,
  signature,
  totalsBlock,
} from './document-blocks';
import { PAGE, PdfSheet } from './pdf-sheet';

export interface ActPdfLine {
  description: string;
  amountKopecks: number;
}

export interface ActPdfInput {
  number: string;
  /** "30 ноября 2026 г." */
  dateText: string;
  /** "ноябрь 2026 г." */
  monthText: string;
  final: boolean;
  createdAt: Date;
  parties: DocumentParties;
  lines: ActPdfLine[];
  totalKopecks: number;
  vatKopecks: number;
  vatRate: VatRate;
}

/**
 * Акт оказанных услуг for a month: number and date, executor and customer with their requisites,
 * one line per model, totals with the VAT line, the amount in words, the acceptance sentence and
 * both parties' signatures. A preliminary act (the month not closed yet) says so under the title.
 */
export async function renderActPdf(act: ActPdfInput): Promise<Buffer> {
  const s = await PdfSheet.create(`Акт № ${act.number}`, act.createdAt);
  const { seller, buyer } = act.parties;
  let y = PAGE.margin;
  s.text(`Акт № ${act.number} от ${act.dateText}`, LEFT, y, { bold: true, size: 14 });
  y += 20;
  s.text(`об оказании услуг за ${act.monthText}`, LEFT, y, { size: 10 });
  y += 14;
  if (!act.final) {
    s.text('Предварительный: месяц ещё не закрыт, суммы могут измениться', LEFT, y, { size: 9, bold: true });
    y += 14;
  }
  s.line(LEFT, y, RIGHT, y, 1.6);
  y += 8;
  y = partyBlock(s, 'Исполнитель:', seller, y);
  y = partyBlock(s, 'Заказчик:', buyer, y);
  y += 6;
  const lines =
    act.lines.length > 0
      ? act.lines
      : [{ description: 'Услуги доступа к API в отчётном месяце не оказывались', amountKopecks: 0 }];
  y = linesTable(
    s,
    lines.map((l) => ({
      description: l.description,
      quantity: '1',
      unit: 'усл.',
      priceKopecks: l.amountKopecks,
      amountKopecks: l.amountKopecks,
    })),
    y,
    'Наименование работ, услуг',
  );
  y = totalsBlock(s, act.totalKopecks, act.vatKopecks, act.vatRate, y, 'Всего:');
  y = amountInWordsBlock(s, `Всего оказано услуг ${act.lines.length},`, act.totalKopecks, y);
  y = s.paragraph(
    'Вышеперечисленные услуги выполнены полностью и в срок. Заказчик претензий по объёму, качеству и срокам оказания услуг не имеет.',
    LEFT,
    y,
    FULL,
  );
  y += 8;
  s.line(LEFT, y, RIGHT, y, 1.6);
  y += 14;
  const half = FULL / 2;
  s.text('ИСПОЛНИТЕЛЬ', LEFT, y, { bold: true });
  s.text('ЗАКАЗЧИК', LEFT + half + 10, y, { bold: true });
  y += 14;
  s.paragraph(seller.legalName, LEFT, y, half - 10);
  s.paragraph(buyer.legalName, LEFT + half + 10, y, half - 10);
  y += 30;
  signature(s, 'Подпись', seller.signatory, LEFT, y, half - 10);
  signature(s, 'Подпись', '', LEFT + half + 10, y, half - 10);
  return s.bytes();
}
