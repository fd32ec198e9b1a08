/**
 * Russian identifiers with check digits: bank cards (Luhn, any country), INN, SNILS, OGRN/OGRNIP, passport
 * series+number, 20-digit bank accounts next to a BIK. A number counts only when its check digits hold and,
 * where a random number would pass too often (10-digit INN, OGRN, bare SNILS, passport), a keyword precedes it or
 * heads its table column.
 */
import { bankAccountValid, innValid, luhnValid, ogrnValid, snilsValid } from './checksums';
import { digitsOnly, keywordBefore, notPersonalBefore } from './context';
import { boundaryAfter, boundaryBefore, isCell, NumberCluster, TextScan } from './scan';
import { match, PiiMatch } from './types';

/** A global pattern for use inside a number cluster: not preceded or followed by another digit. */
export const digitBounded = (source: string, flags = ''): RegExp =>
  new RegExp(String.raw`(?<!\d)(?:${source})(?!\d)`, `g${flags}`);

/** A keyword shortly before the value, or the header of its table column. */
const keyed = (scan: TextScan, start: number, end: number, keyword: RegExp, window: number): boolean =>
  keywordBefore(scan.text, start, keyword, window) ||
  (isCell(scan.text, start, end) && columnKeyed(scan, start, keyword));

const columnKeyed = (scan: TextScan, start: number, keyword: RegExp): boolean => {
  const header = scan.columnHeader(start);
  return header !== undefined && keyword.test(header);
};

/** Card numbers: 13-19 digits, contiguous or grouped 4-4-4-4(-3) / 4-6-5 by single spaces or dashes. */
const CARD = digitBounded(String.raw`\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1?\d{3})?|\d{4}([ -])\d{6}\2\d{4,5}|\d{13,19}`);
/** Issuer ranges of the payment systems in use (Visa, Mastercard, Mir, Amex, UnionPay, JCB, Maestro, Diners, Discover). */
const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|35|5[06-8]|6)/;

function cards(scan: TextScan): PiiMatch[] {
  const { text } = scan;
  const out: PiiMatch[] = [];
  for (const m of scan.inClusters(CARD, 13)) {
    const d = digitsOnly(m.value);
    if (!CARD_PREFIX.test(d) || !luhnValid(d)) continue;
    if (d.length === m.value.length && notPersonalBefore(text, m.start)) continue;
    out.push(match('card', text, m.start, m.end));
  }
  return out;
}

const INN_KEY = /(?:инн|inn|tin|taxpayer|налогоплательщик|идентификационный номер)/;

function inns(scan: TextScan): PiiMatch[] {
  const { text } = scan;
  const out: PiiMatch[] = [];
  for (const r of scan.digitRuns(10, 12)) {
    if (!innValid(r.value)) continue;
    // a valid 12-digit INN has two check digits (1 in 100 random numbers); a 10-digit one needs its keyword
    if (keyed(scan, r.start, r.end, INN_KEY, 60) || (r.value.length === 12 && !notPersonalBefore(text, r.start)))
      out.push(match('inn', text, r.start, r.end));
  }
  return out;
}

const SNILS = digitBounded(String.raw`\d{3}([ -]?)\d{3}\1\d{3}[ -]?\d{2}`);
const SNILS_KEY = /(?:снилс|snils|страхов[а-яё]* (?:номер|свидетельств)|пенсионн[а-яё]* (?:страхов|свидетельств))/;

function snils(scan: TextScan): PiiMatch[] {
  const { text } = scan;
  const out: PiiMatch[] = [];
  for (const r of scan.inClusters(SNILS, 11)) {
    if (!snilsValid(digitsOnly(r.value))) continue;
    // "123-456-789 01" is SNILS's own spelling; any other needs the keyword
    if (/^\d{3}-\d{3}-\d{3}[ -]\d{2}$/.test(r.value) || keyed(scan, r.start, r.end, SNILS_KEY, 60))
      out.push(match('snils', text, r.start, r.end));
  }
  return out;
}

const OGRN_KEY = /(?:огрн|ogrn|psrn|основной государственный регистрационный)/;

function ogrns(scan: TextScan): PiiMatch[] {
  const { text } = scan;
  const out: PiiMatch[] = [];
  for (const r of scan.digitRuns(13, 15)) {
    const first = r.value[0];
    const kindOk = r.value.length === 13 ? first === '1' || first === '5' : first === '3';
    if (kindOk && ogrnValid(r.value) && keyed(scan, r.start, r.end, OGRN_KEY, 60))
      out.push(match('ogrn', text, r.start, r.end));
  }
  return out;
}

const PASSPORT_KEY = /(?:паспорт|серия|серии|passport|удостоверени[а-яё]* личности)/;
const PASSPORT_KEY_G = new RegExp(PASSPORT_KEY.source, 'gi');
/** Series (2+2 digits) then the 6-digit number, with an optional "номер"/"№" between. */
const PASSPORT = /(?<![\d])\d{2} ?\d{2}(?:[\s,;:]*(?:номер|номера|№|no\.?|number|#)?[\s:]*|-)\d{6}(?!\d)/gi;
const PASSPORT_CELL = digitBounded(String.raw`\d{2} ?\d{2} ?\d{6}`);

function passports(scan: TextScan): PiiMatch[] {
  const { text } = scan;
  const out: PiiMatch[] = [];
  const seen = new Set<number>();
  const add = (start: number, end: number) => {
    if (seen.has(start) || !boundaryBefore(text, start) || !boundaryAfter(text, end)) return;
    seen.add(start);
    out.push(match('passport', text, start, end));
  };
  // after a keyword: the first series+number within 60 characters
  for (const k of text.matchAll(PASSPORT_KEY_G)) {
    const from = k.index + k[0].length;
    PASSPORT.lastIndex = 0;
    const m = PASSPORT.exec(text.slice(from, from + 60));
    if (!m || !keywordBefore(text, from + m.index, PASSPORT_KEY, 40)) continue;
    if (!digitsOnly(m[0]).startsWith('00')) add(from + m.index, from + m.index + m[0].length);
  }
  // in a table column headed "паспорт"/"passport"
  const cell = (c: NumberCluster) => c.digits === 10 && isCell(text, c.start, c.end);
  for (const r of scan.inClusters(PASSPORT_CELL, 10, cell))
    if (columnKeyed(scan, r.start, PASSPORT_KEY)) add(r.start, r.end);
  return out;
}

/** 20-digit accounts, contiguous or grouped 5-3-1-4-7 / 4×5 as printed on statements. */
const ACCOUNT = digitBounded(String.raw`\d{5}(?:[ .]?\d{3}[ .]?\d[ .]?\d{4}[ .]?\d{7}|(?: \d{5}){3})`);

function bankAccounts(scan: TextScan): PiiMatch[] {
  const { text } = scan;
  // a BIK: 9 digits of a Russian bank, starting with 04
  const biks = scan.digitRuns(9).filter((r) => r.value.startsWith('04'));
  if (!biks.length) return [];
  const out: PiiMatch[] = [];
  for (const r of scan.inClusters(ACCOUNT, 20)) {
    const acc = digitsOnly(r.value);
    if (acc.startsWith('30101')) continue; // a bank's correspondent account, not a customer's
    if (biks.some((b) => Math.abs(b.start - r.start) <= 400 && bankAccountValid(acc, b.value)))
      out.push(match('bank_account', text, r.start, r.end));
  }
  return out;
}

export const identifierDetectors = {
  card: cards,
  inn: inns,
  snils,
  ogrn: ogrns,
  passport: passports,
  bank_account: bankAccounts,
};
