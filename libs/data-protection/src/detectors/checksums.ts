/** Check-digit algorithms of the structured identifiers. Every function takes the digits only (no separators). */

const digitsOf = (s: string): number[] => {
  const d = new Array<number>(s.length);
  for (let i = 0; i < s.length; i++) d[i] = s.charCodeAt(i) - 48;
  return d;
};

/** Luhn (ISO/IEC 7812) over the whole number including its check digit. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const weighted = (d: number[], weights: number[]): number => weights.reduce((acc, w, i) => acc + w * d[i], 0);

/** INN check digit: weighted sum mod 11 mod 10. */
const innDigit = (d: number[], weights: number[]): number => (weighted(d, weights) % 11) % 10;

const INN10 = [2, 4, 10, 3, 5, 9, 4, 6, 8];
const INN11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
const INN12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8];

/** INN of a company (10 digits, one check digit) or of a person (12 digits, two check digits). */
export function innValid(digits: string): boolean {
  const d = digitsOf(digits);
  if (digits.length === 10) return innDigit(d, INN10) === d[9];
  if (digits.length === 12) return innDigit(d, INN11) === d[10] && innDigit(d, INN12) === d[11];
  return false;
}

/**
 * SNILS (11 digits): the last two are a check number over the first nine, weights 9..1; sums of 100 and 101 give 00,
 * larger sums are taken mod 101 first. Numbers up to 001-001-998 had no check number and are not accepted.
 */
export function snilsValid(digits: string): boolean {
  if (digits.length !== 11) return false;
  const d = digitsOf(digits);
  if (Number(digits.slice(0, 9)) <= 1001998) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += d[i] * (9 - i);
  let check = sum % 101;
  if (check === 100) check = 0;
  return check === Number(digits.slice(9));
}

/** The remainder of a long decimal number modulo a small divisor, digit by digit (no precision loss). */
const modOf = (digits: string, m: number): number => {
  let r = 0;
  for (let i = 0; i < digits.length; i++) r = (r * 10 + digits.charCodeAt(i) - 48) % m;
  return r;
};

/** OGRN (13 digits, mod 11) and OGRNIP (15 digits, mod 13): the last digit is the remainder's last digit. */
export function ogrnValid(digits: string): boolean {
  if (digits.length === 13) return modOf(digits.slice(0, 12), 11) % 10 === Number(digits[12]);
  if (digits.length === 15) return modOf(digits.slice(0, 14), 13) % 10 === Number(digits[14]);
  return false;
}

const ACCOUNT_WEIGHTS = [7, 1, 3];

/**
 * A 20-digit account held at a credit institution with this BIK: the last three BIK digits followed by the account,
 * weighted 7,1,3 repeating, sum to a multiple of 10 (the Bank of Russia's control key).
 */
export function bankAccountValid(account: string, bik: string): boolean {
  if (account.length !== 20 || bik.length !== 9) return false;
  const d = digitsOf(bik.slice(6) + account);
  let sum = 0;
  for (let i = 0; i < d.length; i++) sum += (ACCOUNT_WEIGHTS[i % 3] * d[i]) % 10;
  return sum % 10 === 0;
}
