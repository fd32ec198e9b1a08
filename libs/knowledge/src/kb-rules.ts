/**
 * Pure rules of knowledge bases: chunking strategies, attributes, search filters, reciprocal-rank
 * fusion. No I/O here; everything is unit-tested beside this file.
 */
import { ApiError } from '@app/common';

// ── chunking strategy ────────────────────────────────────────────────────────────────────────────

export interface Chunking {
  /** `messages`: windows of whole messages (a message is a line at column 0 plus its indented continuation lines) */
  type: 'auto' | 'static' | 'messages';
  maxTokens: number;
  overlapTokens: number;
}

/** OpenAI's `auto`: 800-token chunks overlapping by 400. */
export const AUTO_CHUNKING: Chunking = { type: 'auto', maxTokens: 800, overlapTokens: 400 };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseChunkingStrategy(raw: unknown, param = 'chunking_strategy'): Chunking {
  if (raw === undefined || raw === null) return AUTO_CHUNKING;
  if (!isObject(raw))
    throw ApiError.badRequest(
      `${param} must be an object: {"type":"auto"} or {"type":"static","static":{...}}.`,
      param,
    );
  if (raw.type === 'auto') return AUTO_CHUNKING;
  if (raw.type !== 'static') throw ApiError.badRequest(`${param}.type must be "auto" or "static".`, `${param}.type`);
  const s = raw.static;
  if (!isObject(s)) throw ApiError.badRequest(`${param}.static is required for a static strategy.`, `${param}.static`);
  const max = s.max_chunk_size_tokens;
  const overlap = s.chunk_overlap_tokens;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 100 || max > 4096) {
    throw ApiError.badRequest(
      `${param}.static.max_chunk_size_tokens must be an integer from 100 to 4096.`,
      `${param}.static.max_chunk_size_tokens`,
    );
  }
  if (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 0 || overlap > max / 2) {
    throw ApiError.badRequest(
      `${param}.static.chunk_overlap_tokens must be an integer from 0 to half of max_chunk_size_tokens (${Math.floor(max / 2)}).`,
      `${param}.static.chunk_overlap_tokens`,
    );
  }
  return { type: 'static', maxTokens: max, overlapTokens: overlap };
}

/** Chats (attached, messaging-app, webhook events): windows of whole messages up to 800 tokens, no overlap. */
export const MESSAGE_CHUNKING: Chunking = { type: 'messages', maxTokens: 800, overlapTokens: 0 };

export function encodeChunking(c: Chunking): string {
  if (c.type === 'messages') return `messages:${c.maxTokens}`;
  return c.type === 'auto' ? 'auto' : `static:${c.maxTokens}:${c.overlapTokens}`;
}

export function decodeChunking(s: string): Chunking {
  const msg = /^messages:(\d+)$/.exec(s);
  if (msg) return { type: 'messages', maxTokens: Number(msg[1]), overlapTokens: 0 };
  const m = /^static:(\d+):(\d+)$/.exec(s);
  return m ? { type: 'static', maxTokens: Number(m[1]), overlapTokens: Number(m[2]) } : AUTO_CHUNKING;
}

export { splitMessages } from './parsers/chunking';

/** The wire form OpenAI returns on a vector store file (auto is reported as its static values). */
export function chunkingObject(c: Chunking): {
  type: 'static';
  static: { max_chunk_size_tokens: number; chunk_overlap_tokens: number };
} {
  return { type: 'static', static: { max_chunk_size_tokens: c.maxTokens, chunk_overlap_tokens: c.overlapTokens } };
}

// ── attributes / metadata ────────────────────────────────────────────────────────────────────────

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

/** OpenAI's rule: ≤ 16 keys, keys ≤ 64 characters, string values ≤ 512 characters; numbers and booleans too. */
export function parseAttributes(raw: unknown, param: string, opts: { stringsOnly?: boolean } = {}): Attributes | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) throw ApiError.badRequest(`${param} must be an object.`, param);
  const keys = Object.keys(raw);
  if (keys.length > 16) throw ApiError.badRequest(`${param} may hold at most 16 keys.`, param);
  const out: Attributes = {};
  for (const k of keys) {
    if (k.length === 0 || k.length > 64)
      throw ApiError.badRequest(`${param} keys must be 1–64 characters.`, `${param}.${k.slice(0, 64)}`);
    const v = raw[k];
    if (typeof v === 'string') {
      if (v.length > 512) throw ApiError.badRequest(`${param}.${k} must be at most 512 characters.`, `${param}.${k}`);
    } else if (opts.stringsOnly || !((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean')) {
      throw ApiError.badRequest(
        `${param}.${k} must be a ${opts.stringsOnly ? 'string' : 'string, number or boolean'}.`,
        `${param}.${k}`,
      );
    }
    out[k] = v as AttributeValue;
  }
  return out;
}

// ── search filters ───────────────────────────────────────────────────────────────────────────────

export type ComparisonOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin';
export type Filter =
  | { type: ComparisonOp; key: string; value: AttributeValue | AttributeValue[] }
  | { type: 'and' | 'or'; filters: Filter[] };

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin']);

/** Validates OpenAI's filter grammar (comparison and compound filters, nesting ≤ 8). */
export function parseFilter(raw: unknown, param = 'filters', depth = 0): Filter | null {
  if (raw === undefined || raw === null) return null;
  if (depth > 8) throw ApiError.badRequest(`${param} nests too deeply (at most 8 levels).`, param);
  if (!isObject(raw)) throw ApiError.badRequest(`${param} must be an object.`, param);
  if (raw.type === 'and' || raw.type === 'or') {
    if (!Array.isArray(raw.filters) || raw.filters.length === 0 || raw.filters.length > 32) {
      throw ApiError.badRequest(`${param}.filters must be a list of 1–32 filters.`, `${param}.filters`);
    }
    return { type: raw.type, filters: raw.filters.map((f, i) => parseFilter(f, `${param}.filters[${i}]`, depth + 1)!) };
  }
  if (typeof raw.type !== 'string' || !COMPARISONS.has(raw.type)) {
    throw ApiError.badRequest(
      `${param}.type must be one of eq, ne, gt, gte, lt, lte, in, nin, and, or.`,
      `${param}.type`,
    );
  }
  if (typeof raw.key !== 'string' || raw.key === '')
    throw ApiError.badRequest(`${param}.key must be a non-empty string.`, `${param}.key`);
  const scalar = (v: unknown) =>
    typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
  const op = raw.type as ComparisonOp;
  if (op === 'in' || op === 'nin') {
    if (!Array.isArray(raw.value) || raw.value.length === 0 || !raw.value.every(scalar)) {
      throw ApiError.badRequest(
        `${param}.value must be a non-empty list of strings, numbers or booleans for "${op}".`,
        `${param}.value`,
      );
    }
  } else if (!scalar(raw.value)) {
    throw ApiError.badRequest(`${param}.value must be a string, number or boolean.`, `${param}.value`);
  }
  return { type: op, key: raw.key, value: raw.value as AttributeValue | AttributeValue[] };
}

/** Does a document's attributes satisfy the filter? A missing key satisfies only ne / nin. */
export function matchesFilter(filter: Filter | null, attrs: Attributes | null): boolean {
  if (!filter) return true;
  if ('filters' in filter)
    return filter.type === 'and'
      ? filter.filters.every((f) => matchesFilter(f, attrs))
      : filter.filters.some((f) => matchesFilter(f, attrs));
  return compare(filter, attrs);
}

function compare(filter: Extract<Filter, { key: string }>, attrs: Attributes | null): boolean {
  const has = attrs !== null && Object.prototype.hasOwnProperty.call(attrs, filter.key);
  const v = has ? attrs![filter.key] : undefined;
  switch (filter.type) {
    case 'eq':
      return has && v === filter.value;
    case 'ne':
      return !has || v !== filter.value;
    case 'in':
      return has && (filter.value as AttributeValue[]).includes(v!);
    case 'nin':
      return !has || !(filter.value as AttributeValue[]).includes(v!);
    default: {
      if (!has || typeof v !== typeof filter.value || typeof v === 'boolean') return false;
      const a = v as number | string;
      const b = filter.value as number | string;
      if (filter.type === 'gt') return a > b;
      if (filter.type === 'gte') return a >= b;
      if (filter.type === 'lt') return a < b;
      return a <= b;
    }
  }
}

// ── document list filters ────────────────────────────────────────────────────────────────────────

/** Attribute filters of a document list: key → the JSON texts of the values that match (all keys must match). */
export type AttributeMatch = Record<string, string[]>;

/**
 * `attributes[key]=value` query parameters (as the extended query parser nests them, or as flat
 * `attributes[key]` keys) → the JSON texts a stored attribute may have to match: the string itself,
 * and for `true` / `false` / a number also that boolean or number. At most 16 keys of 1–64
 * characters (no quotes or backslashes).
 */
export function parseAttributeQuery(query: Record<string, unknown>): AttributeMatch | null {
  const pairs: [string, unknown][] = [];
  const nested = query.attributes;
  if (nested !== undefined) {
    if (!isObject(nested))
      throw ApiError.badRequest('attributes must be given as attributes[key]=value.', 'attributes');
    pairs.push(...Object.entries(nested));
  }
  for (const [k, v] of Object.entries(query)) {
    const m = /^attributes\[(.*)\]$/s.exec(k);
    if (m) pairs.push([m[1], v]);
  }
  if (pairs.length === 0) return null;
  if (pairs.length > 16) throw ApiError.badRequest('attributes may filter on at most 16 keys.', 'attributes');
  const out: AttributeMatch = {};
  for (const [key, value] of pairs) {
    const param = `attributes[${key.slice(0, 64)}]`;
    if (key.length === 0 || key.length > 64 || /["\\]/.test(key))
      throw ApiError.badRequest('attributes keys must be 1–64 characters without quotes or backslashes.', param);
    if (typeof value !== 'string' || value.length > 512)
      throw ApiError.badRequest(`${param} must be one value of at most 512 characters.`, param);
    const texts = [JSON.stringify(value)];
    if (value === 'true' || value === 'false') texts.push(value);
    else if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value)) texts.push(JSON.stringify(Number(value)));
    out[key] = texts;
  }
  return out;
}

/** Comparisons one document-list `filters` may hold in all (each becomes an SQL condition). */
export const MAX_LIST_FILTER_COMPARISONS = 64;

/**
 * The `filters` query parameter of a document list: OpenAI's filter grammar (as search takes it)
 * as one JSON text. Keys are 1–64 characters without quotes or backslashes (as attributes[key]),
 * at most 64 comparisons in all.
 */
export function parseFilterQuery(raw: unknown, param = 'filters'): Filter | null {
  if (raw === undefined) return null;
  if (typeof raw !== 'string')
    throw ApiError.badRequest(`${param} must be given once, as a JSON object (URL-encoded).`, param);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw ApiError.badRequest(
      `${param} must be a JSON object such as {"type":"eq","key":"lang","value":"en"} (URL-encoded).`,
      param,
    );
  }
  if (json === null) throw ApiError.badRequest(`${param} must be an object.`, param);
  const filter = parseFilter(json, param)!;
  let comparisons = 0;
  const walk = (f: Filter, path: string): void => {
    if ('filters' in f) return f.filters.forEach((g, i) => walk(g, `${path}.filters[${i}]`));
    if (++comparisons > MAX_LIST_FILTER_COMPARISONS)
      throw ApiError.badRequest(`${param} may hold at most ${MAX_LIST_FILTER_COMPARISONS} comparisons.`, param);
    if (f.key.length > 64 || /["\\]/.test(f.key))
      throw ApiError.badRequest(`${path}.key must be 1–64 characters without quotes or backslashes.`, `${path}.key`);
  };
  walk(filter, param);
  return filter;
}
