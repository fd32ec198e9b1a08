import { formatRub, rubInWords, VatRate, vatLabel } from '../money/document-money';
import type { SellerRequisites, TeamRequisites } from '../requisites/requisites.types';
import { PAGE, PdfSheet } from './pdf-sheet';

export const LEFT = PAGE.margin;
export const RIGHT = PAGE.width - PAGE.margin;
export const FULL = RIGHT - LEFT;

/** "ООО «Ромашка», ИНН 7736207543, КПП 770401001, 119021, Москва, …" */
export function partyLine(p: SellerRequisites | TeamRequisites): string {
  return [p.legalName, `ИНН ${p.inn}`, p.kpp ? `КПП ${p.kpp}` : null, p.address].filter(Boolean).join(', ');
}

/** A labelled party ("Поставщик (Исполнитель):") with its requisites wrapped beside the label. */
export function partyBlock(s: PdfSheet, label: string, p: SellerRequisites | TeamRequisites, y: number): number {
  const labelW = 120;
  s.paragraph(label, LEFT, y, labelW - 6);
  return s.paragraph(partyLine(p), LEFT + labelW, y, FULL - labelW, { bold: true }) + 6;
}

export interface TableLine {
  description: string;
  quantity: string;
  unit: string;
  priceKopecks: number;
  amountKopecks: number;
}

const COLS = [
  { title: '№', w: 24, align: 'center' as const },
  { title: 'Товары (работы, услуги)', w: 251, align: 'left' as const },
  { title: 'Кол-во', w: 50, align: 'right' as const },
  { title: 'Ед.', w: 36, align: 'center' as const },
  { title: 'Цена', w: 75, align: 'right' as const },
  { title: 'Сумма', w: 75, align: 'right' as const },
];

/** The lines table with its header row; returns the y below it. */
export function linesTable(s: PdfSheet, lines: TableLine[], y: number, firstTitle = COLS[1].title): number {
  const pad = 3;
  const headerH = 16;
  let x = LEFT;
  for (const c of COLS) {
    s.rect(x, y, c.w, headerH, 0.8);
    s.text(c === COLS[1] ? firstTitle : c.title, x + pad, y + 4, { bold: true, align: 'center', w: c.w - 2 * pad });
    x += c.w;
  }
  y += headerH;
  lines.forEach((l, i) => {
    const descLines = s.wrap(l.description, COLS[1].w - 2 * pad);
    const h = Math.max(16, descLines.length * 9 * 1.3 + 6);
    const cells = [String(i + 1), null, l.quantity, l.unit, formatRub(l.priceKopecks), formatRub(l.amountKopecks)];
    let cx = LEFT;
    COLS.forEach((c, ci) => {
      s.rect(cx, y, c.w, h);
      if (ci === 1) s.paragraph(l.description, cx + pad, y + 4, c.w - 2 * pad);
      else s.text(cells[ci] ?? '', cx + pad, y + 4, { align: c.align, w: c.w - 2 * pad });
      cx += c.w;
    });
    y += h;
  });
  return y + 6;
}

/** "Итого", the VAT line and "Всего к оплате" (or a custom last label), right-aligned; returns y below. */
export function totalsBlock(
  s: PdfSheet,
  totalKopecks: number,
  vatKopecks: number,
  vatRate: VatRate,
  y: number,
  lastLabel = 'Всего к оплате:',
): number {
  const valueW = 75;
  const labelRight = RIGHT - valueW - 6;
  const row = (label: string, value: string) => {
    s.text(label, LEFT, y, { bold: true, align: 'right', w: labelRight - LEFT });
    s.text(value, RIGHT - valueW, y, { bold: true, align: 'right', w: valueW - 3 });
    y += 14;
  };
  row('Итого:', formatRub(totalKopecks));
  row(vatLabel(vatRate), vatRate === 'none' ? '—' : formatRub(vatKopecks));
  row(lastLabel, formatRub(totalKopecks));
  return y + 4;
}

/** "Всего наименований N, на сумму X руб." and the amount in words, bold; returns y below. */
export function amountInWordsBlock(s: PdfSheet, lead: string, totalKopecks: number, y: number): number {
  s.text(`${lead} на сумму ${formatRub(totalKopecks)} руб.`, LEFT, y);
  y += 13;
  y = s.paragraph(rubInWords(totalKopecks), LEFT, y, FULL, { bold: true, size: 10 });
  return y + 6;
}

/** A signature line: "Руководитель ______ Иванов И. И." */
export function signature(s: PdfSheet, label: string, name: string, x: number, y: number, w: number): void {
  s.text(label, x, y, { bold: true });
  const lx = x + s.width(label, { bold: true }) + 6;
  s.line(lx, y + 10, x + w - 4, y + 10);
  s.text(name, lx, y + 12, { size: 7, align: 'center', w: x + w - 4 - lx });
}
