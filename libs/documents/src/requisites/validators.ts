/**
 * Check digits of Russian company identifiers, as the Federal Tax Service and the Bank of Russia
 * define them. Each function answers null when the value is valid, else the reason (English).
 */

const digits = (s: string): number[] => [...s].map(Number);

function weighted(ds: number[], weights: number[]): number {
  return weights.reduce((sum, w, i) => sum + w * ds[i], 0);
}

const INN10 = [2, 4, 10, 3, 5, 9, 4, 6, 8];
const INN12_11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
const INN12_12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8];

/** ИНН: 10 digits (a company) or 12 (a person or sole proprietor), with their check digits. */
export function innProblem(inn: string): string | null {
  if (!/^\d{10}$|^\d{12}$/.test(inn)) return 'must be 10 or 12 digits';
  const d = digits(inn);
  if (d.length === 10) return (weighted(d, INN10) % 11) % 10 === d[9] ? null : 'check digit does not match';
  const c11 = (weighted(d, INN12_11) % 11) % 10;
  const c12 = (weighted(d, INN12_12) % 11) % 10;
  return c11 === d[10] && c12 === d[11] ? null : 'check digits do not match';
}

/** КПП: 9 characters — tax office (4 digits), reason (2 digits or capital Latin letters), number (3 digits). */
export function kppProblem(kpp: string): string | null {
  return /^\d{4}[0-9A-Z]{2}\d{3}$/.test(kpp)
    ? null
    : 'must be 9 characters: 4 digits, 2 digits or capital letters, 3 digits';
}

/** ОГРН (13 digits, check = first 12 mod 11 mod 10) or ОГРНИП (15 digits, check = first 14 mod 13 mod 10). */
export function ogrnProblem(ogrn: string): string | null {
  if (!/^\d{13}$|^\d{15}$/.test(ogrn)) return 'must be 13 (ОГРН) or 15 (ОГРНИП) digits';
  const body = BigInt(ogrn.slice(0, -1));
  const modulus = ogrn.length === 13 ? 11n : 13n;
  const check = Number((body % modulus) % 10n);
  return check === Number(ogrn[ogrn.length - 1]) ? null : 'check digit does not match';
}

/** БИК: 9 digits. */
export function bikProblem(bik: string): string | null {
  return /^\d{9}$/.test(bik) ? null : 'must be 9 digits';
}

const ACCOUNT_WEIGHTS = Array.from({ length: 23 }, (_, i) => [7, 1, 3][i % 3]);

/** The Bank of Russia's control key: the 23 digits weighted 7, 1, 3, … sum to a multiple of 10. */
function keyed(prefix: string, account: string): boolean {
  return weighted(digits(prefix + account), ACCOUNT_WEIGHTS) % 10 === 0;
}

/** Расчётный счёт: 20 digits whose control key holds with the bank's BIK (its last 3 digits). */
export function accountProblem(account: string, bik: string): string | null {
  if (!/^\d{20}$/.test(account)) return 'must be 20 digits';
  if (bikProblem(bik)) return 'cannot be checked without a valid BIK';
  return keyed(bik.slice(-3), account) ? null : 'control key does not match the BIK';
}

/** Корреспондентский счёт: 20 digits starting 301, control key with "0" + the BIK's 5th–6th digits. */
export function corrAccountProblem(account: string, bik: string): string | null {
  if (!/^\d{20}$/.test(account)) return 'must be 20 digits';
  if (!account.startsWith('301')) return 'must start with 301';
  if (bikProblem(bik)) return 'cannot be checked without a valid BIK';
  return keyed('0' + bik.slice(4, 6), account) ? null : 'control key does not match the BIK';
}
