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

/** Whether a keyword pattern occurs in the `window` characters before `start`. */
export const keywordBefore = (text: string, start: number, keyword: RegExp, window = 100): boolean =>
  keyword.test(before(text, start, window));

/** Only the decimal digits of a string. */
export const digitsOnly = (s: string): string => s.replace(/\D/g, '');
