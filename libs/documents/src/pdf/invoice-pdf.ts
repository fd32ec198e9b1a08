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

export interface InvoicePdfInput {
  number: string;
  /** "28 ноября 2026 г." */
  dateText: string;
  issuedAt: Date;
  parties: DocumentParties;
  amountKopecks: number;
  vatKopecks: number;
  vatRate: VatRate;
}

export const INVOICE_LINE = 'Пополнение баланса доступа к API';

/**
 * Счёт на оплату in the usual layout: the seller's bank block (bank, БИК, correspondent and
 * settlement accounts, ИНН/КПП, recipient), the title with number and date, supplier and buyer,
 * the one line, totals with the VAT line, the amount in words, and signatures.
 */
export async function renderInvoicePdf(inv: InvoicePdfInput): Promise<Buffer> {
  const s = await PdfSheet.create(`Счёт на оплату № ${inv.number}`, inv.issuedAt);
  const { seller, buyer } = inv.parties;
  let y = PAGE.margin;
  y = bankBlock(s, inv.parties, y) + 18;

  s.text(`Счёт на оплату № ${inv.number} от ${inv.dateText}`, LEFT, y, { bold: true, size: 14 });
  y += 22;
  s.line(LEFT, y, RIGHT, y, 1.6);
  y += 8;
  y = partyBlock(s, 'Поставщик (Исполнитель):', seller, y);
  y = partyBlock(s, 'Покупатель (Заказчик):', buyer, y);
  y += 6;
  y = linesTable(
    s,
    [
      {
        description: INVOICE_LINE,
        quantity: '1',
        unit: 'усл.',
        priceKopecks: inv.amountKopecks,
        amountKopecks: inv.amountKopecks,
      },
    ],
    y,
  );
  y = totalsBlock(s, inv.amountKopecks, inv.vatKopecks, inv.vatRate, y);
  y = amountInWordsBlock(s, 'Всего наименований 1,', inv.amountKopecks, y);
  s.line(LEFT, y, RIGHT, y, 1.6);
  y += 20;
  const half = FULL / 2;
  signature(s, 'Руководитель', seller.signatory, LEFT, y, half - 10);
  signature(s, 'Бухгалтер', seller.accountant ?? seller.signatory, LEFT + half + 10, y, half - 10);
  return s.bytes();
}

/** The seller's bank details as the grid at the top of a Russian invoice; returns the y below it. */
function bankBlock(s: PdfSheet, { seller }: DocumentParties, y: number): number {
  const leftW = 300;
  const midW = 50;
  const rightW = FULL - leftW - midW;
  const rowH = 34;
  const innH = 16;
  const x1 = LEFT + leftW;
  const x2 = x1 + midW;
  // row 1: bank | БИК / Сч. № (correspondent)
  s.rect(LEFT, y, leftW, rowH);
  s.paragraph(seller.bankName, LEFT + 3, y + 3, leftW - 6);
  s.text('Банк получателя', LEFT + 3, y + rowH - 10, { size: 7 });
  s.rect(x1, y, midW, rowH / 2);
  s.text('БИК', x1 + 3, y + 4);
  s.rect(x2, y, rightW, rowH / 2);
  s.text(seller.bik, x2 + 3, y + 4);
  s.rect(x1, y + rowH / 2, midW, rowH / 2);
  s.text('Сч. №', x1 + 3, y + rowH / 2 + 4);
  s.rect(x2, y + rowH / 2, rightW, rowH / 2);
  s.text(seller.corrAccount, x2 + 3, y + rowH / 2 + 4);
  y += rowH;
  // rows 2–3: ИНН | КПП, recipient | Сч. № (settlement)
  s.rect(LEFT, y, leftW / 2, innH);
  s.text(`ИНН ${seller.inn}`, LEFT + 3, y + 4);
  s.rect(LEFT + leftW / 2, y, leftW / 2, innH);
  s.text(`КПП ${seller.kpp ?? ''}`, LEFT + leftW / 2 + 3, y + 4);
  s.rect(LEFT, y + innH, leftW, rowH);
  s.paragraph(seller.legalName, LEFT + 3, y + innH + 3, leftW - 6);
  s.text('Получатель', LEFT + 3, y + innH + rowH - 10, { size: 7 });
  s.rect(x1, y, midW, innH + rowH);
  s.text('Сч. №', x1 + 3, y + 4);
  s.rect(x2, y, rightW, innH + rowH);
  s.text(seller.account, x2 + 3, y + 4);
  return y + innH + rowH;
}
