import {
  compileCustomPattern,
  CompiledCustomPattern,
  detectPii,
  DetectOptions,
  PiiEntityType,
  PiiMatch,
} from './detectors';
import type { DataPolicy } from './policy';

/** Placeholders the gateway writes: `[EMAIL_1]`, `[PHONE_2]`, `[ORDER_ID_1]` (custom patterns by name). */
export const PLACEHOLDER = /\[[A-Z][A-Z0-9_]*_\d+\]/g;

const LABELS: Record<PiiEntityType, string> = {
  email: 'EMAIL',
  phone: 'PHONE',
  card: 'CARD',
  inn: 'INN',
  snils: 'SNILS',
  passport: 'PASSPORT',
  ogrn: 'OGRN',
  bank_account: 'BANK_ACCOUNT',
  ip: 'IP',
  person: 'PERSON',
  address: 'ADDRESS',
  custom: 'CUSTOM',
};

/** Entity counts by type (custom patterns under "custom"): what the request log and errors show. */
export type EntityCounts = Partial<Record<PiiEntityType, number>>;

const compiled = new Map<string, CompiledCustomPattern>();

/** The detector options of a policy; custom patterns are compiled once per process. */
export function detectOptionsOf(policy: DataPolicy): DetectOptions {
  const customPatterns = policy.custom_patterns.map((p) => {
    const key = `${p.name}\u0000${p.regex}`;
    let c = compiled.get(key);
    if (!c) {
      c = compileCustomPattern(p.name, p.regex);
      if (compiled.size > 10_000) compiled.clear();
      compiled.set(key, c);
    }
    return c;
  });
  const entities =
    customPatterns.length && !policy.entities.includes('custom')
      ? [...policy.entities, 'custom' as const]
      : policy.entities;
  return { entities, customPatterns, allowList: policy.allow_list };
}

/** Adds the matches of `text` to `counts`. */
export function countMatches(matches: PiiMatch[], counts: EntityCounts): void {
  for (const m of matches) counts[m.type] = (counts[m.type] ?? 0) + 1;
}

/**
 * One request's placeholders: each detected value gets a placeholder, the same value the same one
 * across every text of the request (messages, system prompt, tool results, retrieved context), and
 * the answer's placeholders are turned back into the values. Never leaves the process.
 */
export class PiiVault {
  private readonly byValue = new Map<string, string>();
  private readonly byPlaceholder = new Map<string, string>();
  private readonly next = new Map<string, number>();
  /** occurrences masked, by type */
  readonly counts: EntityCounts = {};
  private longest = 0;

  constructor(private readonly options: DetectOptions) {}

  /** `text` with every detected value replaced by its placeholder (counted unless `count` is false). */
  mask(text: string, count = true): string {
    if (!text) return text;
    const matches = detectPii(text, this.options);
    if (!matches.length) return text;
    if (count) countMatches(matches, this.counts);
    let out = '';
    let at = 0;
    for (const m of matches) {
      out += text.slice(at, m.start) + this.placeholderOf(m);
      at = m.end;
    }
    return out + text.slice(at);
  }

  /** `text` with the placeholders of this request turned back into their values (others left as they are). */
  restore(text: string): string {
    if (!text || this.byPlaceholder.size === 0) return text;
    return text.replace(PLACEHOLDER, (p) => this.byPlaceholder.get(p) ?? p);
  }

  /** True when something was masked (the answer may carry placeholders). */
  get used(): boolean {
    return this.byPlaceholder.size > 0;
  }

  /** The length of the longest placeholder handed out. */
  get maxPlaceholderLength(): number {
    return this.longest;
  }

  /** True when `s` is the beginning (not the whole) of one of this request's placeholders. */
  isPlaceholderPrefix(s: string): boolean {
    if (s.length >= this.longest) return false;
    for (const p of this.byPlaceholder.keys()) if (p.length > s.length && p.startsWith(s)) return true;
    return false;
  }

  private placeholderOf(m: PiiMatch): string {
    const known = this.byValue.get(m.value);
    if (known) return known;
    const label = m.type === 'custom' && m.name ? customLabel(m.name) : LABELS[m.type];
    const n = (this.next.get(label) ?? 0) + 1;
    this.next.set(label, n);
    const p = `[${label}_${n}]`;
    this.byValue.set(m.value, p);
    this.byPlaceholder.set(p, m.value);
    this.longest = Math.max(this.longest, p.length);
    return p;
  }
}

function customLabel(name: string): string {
  const s = name
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[A-Z]/.test(s) ? s : `CUSTOM_${s || 'VALUE'}`;
}
