/**
 * Russian identifiers with check digits: bank cards (Luhn, any country), INN, SNILS, OGRN/OGRNIP, passport
 * series+number, 20-digit bank accounts next to a BIK. A number counts only when its check digits hold and,
 * where a random number would pass too often (10-digit INN, OGRN, bare SNILS, passport), a keyword precedes it.
 */
import { bankAccountValid, innValid, luhnValid, ogrnValid, snilsValid } from './checksums';
import { bounded, columnKeyed, digitsOnly, keywordBefore, notPersonalBefore } from './context';

/** A keyword shortly before the value, or the header of its table column. */
const keyed = (text: string, start: number, keyword: RegExp, window: number): boolean =>
  keywordBefore(text, start, keyword, window) || columnKeyed(text, start, keyword);
import { match, PiiMatch } from './types';

/** Card numbers: 13-19 digits, contiguous or grouped 4-4-4-4(-3) / 4-6-5 by single spaces or dashes. */
const CARD = bounded(String.raw`\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1?\d{3})?|\d{4}([ -])\d{6}\2\d{4,5}|\d{13,19}`);
/** Issuer ranges of the payment systems in use (Visa, Mastercard, Mir, Amex, UnionPay, JCB, Maestro, Diners, Discover). */
const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|35|5[06-8]|6)/;

function cards(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const m of text.matchAll(CARD)) {
    const start = m.index;
    const raw = m[0];
    const end = start + raw.length;
    const d = digitsOnly(raw);
    if (!CARD_PREFIX.test(d) || !luhnValid(d)) continue;
    if (d.length === raw.length && notPersonalBefore(text, start)) continue;
    out.push(match('card', text, start, end));
  }
  return out;
}

/** Runs of exactly `n` digits (not part of a longer number, not glued to letters). */
function* digitRuns(text: string, re: RegExp): Generator<{ start: number; end: number; digits: string }> {
  for (const m of text.matchAll(re)) yield { start: m.index, end: m.index + m[0].length, digits: m[0] };
}

const INN_KEY = /(?:инн|inn|tin|taxpayer|налогоплательщик|идентификационный номер)/;
const TEN_OR_TWELVE = bounded(String.raw`\d{12}|\d{10}`);

function inns(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const r of digitRuns(text, TEN_OR_TWELVE)) {
    if (!innValid(r.digits)) continue;
    // a valid 12-digit INN has two check digits (1 in 100 random numbers); a 10-digit one needs its keyword
    if (keyed(text, r.start, INN_KEY, 60) || (r.digits.length === 12 && !notPersonalBefore(text, r.start)))
      out.push(match('inn', text, r.start, r.end));
  }
  return out;
}

const SNILS_FORMATTED = bounded(String.raw`\d{3}-\d{3}-\d{3}[ -]\d{2}`);
const SNILS_LOOSE = bounded(String.raw`\d{3}[ -]?\d{3}[ -]?\d{3}[ -]?\d{2}`);
const SNILS_KEY = /(?:снилс|snils|страхов[а-яё]* (?:номер|свидетельств)|пенсионн[а-яё]* (?:страхов|свидетельств))/;

function snils(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  const seen = new Set<number>();
  for (const r of digitRuns(text, SNILS_FORMATTED))
    if (snilsValid(digitsOnly(r.digits))) {
      seen.add(r.start);
      out.push(match('snils', text, r.start, r.end));
    }
  for (const r of digitRuns(text, SNILS_LOOSE))
    if (!seen.has(r.start) && snilsValid(digitsOnly(r.digits)) && keyed(text, r.start, SNILS_KEY, 60))
      out.push(match('snils', text, r.start, r.end));
  return out;
}

const OGRN_KEY = /(?:огрн|ogrn|ogrnip|psrn|основной государственный регистрационный)/;
const OGRN = bounded(String.raw`\d{15}|\d{13}`);

function ogrns(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const r of digitRuns(text, OGRN)) {
    const first = r.digits[0];
    const kindOk = r.digits.length === 13 ? first === '1' || first === '5' : first === '3';
    if (kindOk && ogrnValid(r.digits) && keyed(text, r.start, OGRN_KEY, 60))
      out.push(match('ogrn', text, r.start, r.end));
  }
  return out;
}

const PASSPORT_KEY = /(?:паспорт|серия|серии|passport|удостоверени[а-яё]* личности)/;
/** Series (2+2 digits) then the 6-digit number, with an optional "номер"/"№" between. */
const PASSPORT = bounded(String.raw`\d{2} ?\d{2}(?:[\s,;:]*(?:номер|номера|№|no\.?|number|#)?[\s:]*|-)\d{6}`, 'i');

function passports(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const m of text.matchAll(PASSPORT)) {
    const start = m.index;
    const end = start + m[0].length;
    if (!keyed(text, start, PASSPORT_KEY, 40)) continue;
    const d = digitsOnly(m[0]);
    if (d.length !== 10 || d.startsWith('00')) continue;
    out.push(match('passport', text, start, end));
  }
  return out;
}

/** A BIK: 9 digits of a Russian bank starting with 04. */
const BIK = bounded(String.raw`04\d{7}`);
/** 20-digit accounts, contiguous or grouped 5-3-1-4-7 / 4×5 as printed on statements. */
const ACCOUNT = bounded(String.raw`\d{5}(?:[ .]?\d{3}[ .]?\d[ .]?\d{4}[ .]?\d{7}|(?: \d{5}){3})`);

function bankAccounts(text: string): PiiMatch[] {
  const biks: { at: number; bik: string }[] = [];
  for (const r of digitRuns(text, BIK)) biks.push({ at: r.start, bik: r.digits });
  if (!biks.length) return [];
  const out: PiiMatch[] = [];
  for (const m of text.matchAll(ACCOUNT)) {
    const start = m.index;
    const end = start + m[0].length;
    const acc = digitsOnly(m[0]);
    if (acc.length !== 20 || acc.startsWith('30101')) continue; // 30101: a bank's correspondent account, not a customer's
    if (biks.some((b) => Math.abs(b.at - start) <= 400 && bankAccountValid(acc, b.bik)))
      out.push(match('bank_account', text, start, end));
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
