/**
 * Detection of personal data in text: the entity types, the matches and the custom patterns of a
 * policy. Matches come sorted by position and never overlap.
 */
export type PiiEntityType =
  | 'email'
  | 'phone'
  | 'card'
  | 'inn'
  | 'snils'
  | 'passport'
  | 'ogrn'
  | 'bank_account'
  | 'ip'
  | 'person'
  | 'address'
  | 'custom';

export interface PiiMatch {
  type: PiiEntityType;
  start: number;
  end: number;
  value: string;
  /** the custom pattern's name (type "custom") */
  name?: string;
}

export interface DetectOptions {
  /** the entity types to look for (default: all) */
  entities?: PiiEntityType[];
  customPatterns?: CompiledCustomPattern[];
  /** values never treated as personal data (compared case-insensitively) */
  allowList?: string[];
}

export interface CompiledCustomPattern {
  name: string;
}

interface RegexPattern extends CompiledCustomPattern {
  regex: RegExp;
}

export class PatternRejectedError extends Error {}

const MAX_PATTERN_LENGTH = 500;

/** A policy's custom pattern, compiled once; PatternRejectedError when it is not a usable regex. */
export function compileCustomPattern(name: string, regex: string): CompiledCustomPattern {
  if (!regex || regex.length > MAX_PATTERN_LENGTH)
    throw new PatternRejectedError(`must be 1 to ${MAX_PATTERN_LENGTH} characters`);
  // nested quantifiers ((a+)+, (a*)*, (a|a)+ …) are the shape of catastrophic backtracking
  if (/\([^()]*[+*][^()]*\)[+*{]/.test(regex)) throw new PatternRejectedError('has a nested quantifier');
  if (/\\[1-9]/.test(regex)) throw new PatternRejectedError('uses a back-reference');
  let compiled: RegExp;
  try {
    compiled = new RegExp(regex, 'gu');
  } catch (err) {
    throw new PatternRejectedError(`is not a valid regular expression: ${(err as Error).message}`);
  }
  if (compiled.test('')) throw new PatternRejectedError('matches the empty string');
  const pattern: RegexPattern = { name, regex: compiled };
  return pattern;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const PHONE = /(?:\+7|(?<!\d)8)[\s(-]*\d{3}[\s)-]*\d{3}[\s-]*\d{2}[\s-]*\d{2}(?!\d)/g;
const INN12 = /(?<!\d)\d{12}(?!\d)/g;
const PASSPORT = /(?<=паспорт[а-яё]*[\s:№]*(?:серия\s*)?)\d{2}\s?\d{2}[\s№]*(?:номер\s*)?\d{6}(?!\d)/giu;

const INN12_11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
const INN12_12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8];

function innValid(v: string): boolean {
  const d = [...v].map(Number);
  const check = (w: number[]) => (w.reduce((s, k, i) => s + k * d[i], 0) % 11) % 10;
  return check(INN12_11) === d[10] && check(INN12_12) === d[11];
}

/** Personal data found in `text`, sorted by position, without overlaps. */
export function detectPii(text: string, options: DetectOptions = {}): PiiMatch[] {
  const wanted = (t: PiiEntityType) => !options.entities || options.entities.includes(t);
  const found: PiiMatch[] = [];
  const collect = (type: PiiEntityType, re: RegExp, valid: (v: string) => boolean = () => true, name?: string) => {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      if (m[0] === '' || !valid(m[0])) continue;
      found.push({ type, start: m.index, end: m.index + m[0].length, value: m[0], ...(name ? { name } : {}) });
    }
  };
  if (wanted('email')) collect('email', EMAIL);
  if (wanted('phone')) collect('phone', PHONE);
  if (wanted('inn')) collect('inn', INN12, innValid);
  if (wanted('passport')) collect('passport', PASSPORT);
  if (wanted('custom'))
    for (const p of options.customPatterns ?? [])
      collect('custom', new RegExp((p as RegexPattern).regex), undefined, p.name);
  const allowed = new Set((options.allowList ?? []).map((s) => s.toLowerCase()));
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: PiiMatch[] = [];
  let end = -1;
  for (const m of found) {
    if (m.start < end || allowed.has(m.value.toLowerCase())) continue;
    out.push(m);
    end = m.end;
  }
  return out;
}
