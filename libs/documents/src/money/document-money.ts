import { convert as numberToWordsRu } from 'number-to-words-ru';

/**
 * Money on documents: whole kopecks (integer). The gateway's µRUB amounts become kopecks by one
 * half-up rounding; VAT is included in the amount and computed from it; figures and words are in
 * the Russian forms accountants expect.
 */

export const MICRO_PER_KOPECK = 10_000;

/** The seller's VAT rate: 22 %, 10 %, 0 %, or "none" (a seller not paying VAT: "Без НДС"). */
export type VatRate = '22' | '10' | '0' | 'none';
export const VAT_RATES: readonly VatRate[] = ['22', '10', '0', 'none'];

/** µRUB → kopecks, half-up (a negative amount rounds away from zero symmetrically). */
export function microToKopecks(micro: number): number {
  const sign = micro < 0 ? -1 : 1;
  return sign * Math.floor((Math.abs(micro) + MICRO_PER_KOPECK / 2) / MICRO_PER_KOPECK);
}

export function kopecksToMicro(kopecks: number): number {
  return kopecks * MICRO_PER_KOPECK;
}

/** kopecks → RUB as a JSON number with at most 2 decimals. */
export function kopecksToRub(kopecks: number): number {
  return Number((kopecks / 100).toFixed(2));
}

/** A RUB amount with at most 2 decimals → kopecks; null when it has finer fractions or is not finite. */
export function rubToKopecks(rub: number): number | null {
  if (!Number.isFinite(rub)) return null;
  const kopecks = Math.round(rub * 100);
  return Math.abs(kopecks / 100 - rub) < 1e-9 ? kopecks : null;
}

/**
 * The VAT included in `grossKopecks` at `rate`: gross × rate / (100 + rate), rounded half-up to the
 * kopeck (the rule of Tax Code art. 164 p. 4 for a rate applied to an amount that includes the tax).
 * 0 for "0" and "none".
 */
export function includedVatKopecks(grossKopecks: number, rate: VatRate): number {
  if (rate === 'none' || rate === '0') return 0;
  const r = Number(rate);
  // integers only: 2 × gross × r / (100 + r), then half-up
  const twice = Math.floor((2 * grossKopecks * r) / (100 + r));
  return Math.floor((twice + 1) / 2);
}

/** The VAT line of a document: "В том числе НДС (22%):" or "Без НДС". */
export function vatLabel(rate: VatRate): string {
  return rate === 'none' ? 'Без НДС' : `В том числе НДС (${rate}%):`;
}

/** 1234567.5 RUB in kopecks → "1 234 567,50" (groups of three, comma decimal). */
export function formatRub(kopecks: number): string {
  const sign = kopecks < 0 ? '-' : '';
  const abs = Math.abs(kopecks);
  const whole = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return `${sign}${whole},${String(abs % 100).padStart(2, '0')}`;
}

/** The amount in Russian words, capitalised: "Один миллион один рубль 50 копеек". */
export function rubInWords(kopecks: number): string {
  if (!Number.isSafeInteger(kopecks) || kopecks < 0) throw new RangeError(`not an amount in kopecks: ${kopecks}`);
  const text = `${Math.floor(kopecks / 100)}.${String(kopecks % 100).padStart(2, '0')}`;
  return numberToWordsRu(text, { currency: 'rub' });
}

/**
 * Splits a total into lines whose rounded amounts add up to the rounded total: each line gets its
 * µRUB rounded down to the kopeck, and the kopecks left over go to the lines with the largest
 * remainders (ties: the earlier line).
 */
export function allocateKopecks(linesMicro: number[]): { totalKopecks: number; lines: number[] } {
  const totalMicro = linesMicro.reduce((a, b) => a + b, 0);
  const totalKopecks = microToKopecks(totalMicro);
  const floors = linesMicro.map((m) => Math.floor(m / MICRO_PER_KOPECK));
  let left = totalKopecks - floors.reduce((a, b) => a + b, 0);
  const order = linesMicro
    .map((m, i) => ({ i, rest: m - floors[i] * MICRO_PER_KOPECK }))
    .sort((a, b) => b.rest - a.rest || a.i - b.i);
  const lines = [...floors];
  for (const { i } of order) {
    if (left <= 0) break;
    lines[i] += 1;
    left -= 1;
  }
  return { totalKopecks, lines };
}
