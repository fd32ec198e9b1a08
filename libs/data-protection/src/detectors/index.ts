/**
 * Personal-data detectors: `detectPii(text, options)` returns the personal data found in a text as sorted,
 * non-overlapping character spans. Structured identifiers are validated by their check digits and, where a random
 * number would pass too often, by a keyword before them; names are found by dictionary and suffixes; custom patterns
 * run on a linear-time engine.
 */
import { addresses } from './address';
import { contactDetectors } from './contact';
import { CompiledCustomPattern, customMatches } from './custom';
import { identifierDetectors } from './identifiers';
import { englishNames } from './names-en';
import { russianNames } from './names-ru';
import { TextScan } from './scan';
import { DEFAULT_ENTITY_TYPES, PiiEntityType, PiiMatch } from './types';

export type { PiiEntityType, PiiMatch } from './types';
export { ALL_ENTITY_TYPES, DEFAULT_ENTITY_TYPES } from './types';
export { compileCustomPattern, PatternRejectedError } from './custom';
export type { CompiledCustomPattern } from './custom';

export interface DetectOptions {
  /** entity types to look for; default: all but `address` (`custom` runs when patterns are given) */
  entities?: PiiEntityType[];
  customPatterns?: CompiledCustomPattern[];
  /** values never reported (compared case-insensitively, ignoring surrounding spaces) */
  allowList?: string[];
}

type Detector = (scan: TextScan) => PiiMatch[];

const DETECTORS: Partial<Record<PiiEntityType, Detector>> = {
  ...contactDetectors,
  ...identifierDetectors,
  person: (scan) => [...russianNames(scan.text), ...englishNames(scan.text)],
  address: addresses,
};

/**
 * Which match wins where two overlap: identifiers validated by check digits and a keyword first, then cards (a
 * 13-digit OGRN can pass Luhn), contacts, custom patterns, addresses and names; a longer match wins within a rank.
 */
const RANK: Record<PiiEntityType, number> = {
  email: 0,
  snils: 1,
  inn: 1,
  ogrn: 1,
  bank_account: 1,
  passport: 1,
  card: 2,
  phone: 3,
  ip: 3,
  custom: 4,
  address: 5,
  person: 6,
};

export function detectPii(text: string, options: DetectOptions = {}): PiiMatch[] {
  if (!text) return [];
  const wanted = options.entities ?? [...DEFAULT_ENTITY_TYPES];
  const scan = new TextScan(text);
  const found: PiiMatch[] = [];
  for (const type of wanted) {
    const detector = DETECTORS[type];
    if (detector) found.push(...detector(scan));
  }
  if (options.customPatterns?.length && wanted.includes('custom'))
    found.push(...customMatches(text, options.customPatterns));
  const allowed = new Set((options.allowList ?? []).map((v) => v.trim().toLowerCase()).filter(Boolean));
  const candidates = allowed.size ? found.filter((m) => !allowed.has(m.value.trim().toLowerCase())) : found;
  return resolveOverlaps(candidates);
}

/** Keeps the best of every group of overlapping matches (see RANK) and returns them in text order. */
function resolveOverlaps(matches: PiiMatch[]): PiiMatch[] {
  if (matches.length < 2) return matches;
  const byStart = [...matches].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: PiiMatch[] = [];
  // groups of transitively overlapping matches are independent: resolve each on its own
  for (let i = 0; i < byStart.length;) {
    let j = i + 1;
    let end = byStart[i].end;
    while (j < byStart.length && byStart[j].start < end) end = Math.max(end, byStart[j++].end);
    if (j === i + 1) kept.push(byStart[i]);
    else {
      const group = byStart.slice(i, j).sort(preference);
      const chosen: PiiMatch[] = [];
      for (const m of group) if (!chosen.some((k) => k.start < m.end && m.start < k.end)) chosen.push(m);
      kept.push(...chosen.sort((a, b) => a.start - b.start));
    }
    i = j;
  }
  return kept;
}

const preference = (a: PiiMatch, b: PiiMatch): number =>
  RANK[a.type] - RANK[b.type] || b.end - b.start - (a.end - a.start) || a.start - b.start;
