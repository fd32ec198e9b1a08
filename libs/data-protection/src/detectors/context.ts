/** Context before a candidate number: the keyword that labels it, or the words that make it an order or product number. */

/** The `window` characters before `start`, lower-cased. */
export const before = (text: string, start: number, window: number): string =>
  text.slice(Math.max(0, start - window), start).toLowerCase();

/**
 * Words right before a number that make it something other than personal data: order, invoice, ticket, tracking
 * and product numbers, barcodes. Checked on the ~28 characters before an unformatted number.
 */
const NOT_PERSONAL =
  /(?<![a-zа-яё])(?:заказ[а-яё]*|order|№|#|артикул[а-яё]*|арт\.|sku|invoice|инвойс[а-яё]*|накладн[а-яё]*|трек[а-яё-]*(?:номер)?|tracking(?: number| no\.?)?|ticket|тикет[а-яё]*|обращени[а-яё]*|id|код товара|product code|part(?: no\.?| number)?|barcode|штрих-?код[а-яё]*|ean|модел[а-яё]*|model|serial(?: no\.?| number)?|серийн[а-яё]* номер)[\s:.\-№#]*$/i;

export const notPersonalBefore = (text: string, start: number): boolean =>
  NOT_PERSONAL.test(text.slice(Math.max(0, start - 28), start));

/**
 * Whether a keyword occurs in the `window` characters before `start`, after the last digit there (so the keyword labels
 * this number, not an earlier one: "ИНН 7707083893, договор № 1234567890" keys only the first).
 */
export function keywordBefore(text: string, start: number, keyword: RegExp, window = 100): boolean {
  const w = before(text, start, window);
  const lastDigit = w.search(/\d[^\d]*$/);
  return keyword.test(lastDigit < 0 ? w : w.slice(lastDigit + 1));
}

/** Only the decimal digits of a string. */
export const digitsOnly = (s: string): string => s.replace(/\D/g, '');
