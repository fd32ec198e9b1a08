/** Context around a candidate: keyword windows before it, and word boundaries that also hold for Cyrillic. */

/** The `window` characters before `start`, lower-cased. */
export const before = (text: string, start: number, window: number): string =>
  text.slice(Math.max(0, start - window), start).toLowerCase();

/** A global pattern that matches only where neither end touches a letter, a digit or `_` (any script). */
export const bounded = (source: string, flags = ''): RegExp =>
  new RegExp(String.raw`(?<![\p{L}\p{N}_])(?:${source})(?![\p{L}\p{N}_])`, `gu${flags}`);

/** True when `start` is not inside a word or number (letters of any script, digits, `_`). */
export const boundaryBefore = (text: string, start: number): boolean =>
  start === 0 || !/[\p{L}\p{N}_]/u.test(text[start - 1]);

/** True when `end` is not followed by a letter, a digit or `_`. */
export const boundaryAfter = (text: string, end: number): boolean =>
  end >= text.length || !/[\p{L}\p{N}_]/u.test(text[end]);

/**
 * Words right before a number that make it something other than personal data: order, invoice, ticket, tracking
 * and product numbers, barcodes. Checked on the ~28 characters before an unformatted number.
 */
const NOT_PERSONAL =
  /(?:заказ[а-яё]*|order|№|#|артикул[а-яё]*|арт\.|sku|invoice|инвойс[а-яё]*|накладн[а-яё]*|трек[а-яё-]*(?:номер)?|tracking(?: number| no\.?)?|ticket|тикет[а-яё]*|обращени[а-яё]*|id|код товара|product code|part(?: no\.?| number)?|barcode|штрих-?код[а-яё]*|ean|модел[а-яё]*|model|serial(?: no\.?| number)?|серийн[а-яё]* номер)[\s:.\-№#]*$/;

export const notPersonalBefore = (text: string, start: number): boolean => NOT_PERSONAL.test(before(text, start, 28));

/**
 * Whether a keyword occurs in the `window` characters before `start`, after the last digit there (so the keyword labels
 * this number, not an earlier one: "ИНН 7707083893, договор № 1234567890" keys only the first).
 */
export function keywordBefore(text: string, start: number, keyword: RegExp, window = 100): boolean {
  const w = before(text, start, window);
  const lastDigit = w.search(/\d[^\d]*$/);
  return keyword.test(lastDigit < 0 ? w : w.slice(lastDigit + 1));
}

const DELIMITERS = [';', '\t', '|', ','];

/**
 * Whether the cell at `start` sits in a table column (CSV, TSV, `|`-separated) whose header matches `keyword`: the
 * header is looked for in the lines above (up to 200 lines, stopping at an empty line).
 */
export function columnKeyed(text: string, start: number, keyword: RegExp): boolean {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  let lineEnd = text.indexOf('\n', start);
  if (lineEnd < 0) lineEnd = text.length;
  const line = text.slice(lineStart, lineEnd);
  const delim = DELIMITERS.find((d) => line.includes(d));
  if (!delim || lineStart === 0) return false;
  const col = text.slice(lineStart, start).split(delim).length - 1;
  let end = lineStart - 1;
  for (let n = 0; n < 200 && end > 0; n++) {
    const from = text.lastIndexOf('\n', end - 1) + 1;
    const header = text.slice(from, end);
    if (!header.trim()) return false;
    const cell = header.split(delim)[col];
    if (cell !== undefined && keyword.test(cell.toLowerCase())) return true;
    end = from - 1;
  }
  return false;
}

/** Only the decimal digits of a string. */
export const digitsOnly = (s: string): string => s.replace(/\D/g, '');
