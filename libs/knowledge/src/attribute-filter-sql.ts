/**
 * OpenAI's attribute filter (see kb-rules.ts `Filter`) as an SQL condition over a document's
 * `attributes` JSON text, with the same meaning as `matchesFilter` in search: types are compared
 * strictly (the string "2026" is not the number 2026), a missing key satisfies only `ne` / `nin`,
 * `gt`/`gte`/`lt`/`lte` hold for two numbers or two strings (strings in code-point order) and never
 * for booleans. SQLite reads the value with `json_type` / `json_extract`, Postgres with `jsonb`.
 */
import type { Filter } from './kb-rules';

type Comparison = Extract<Filter, { key: string }>;
type Scalar = string | number | boolean;

const OPS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

export function attributeFilterSql(
  filter: Filter,
  column: string,
  pg: boolean,
  params: Record<string, unknown>,
  prefix = 'af',
): string {
  let n = 0;
  const param = (v: unknown): string => {
    const name = `${prefix}${n++}`;
    params[name] = v;
    return `:${name}`;
  };

  /** The SQL for "the attribute `key` is the JSON value `v`" (false, never NULL, when it is missing). */
  const equals = (key: string, v: Scalar): string => {
    if (pg) {
      const j = `(CAST(${column} AS jsonb) -> ${param(key)})`;
      if (typeof v === 'string')
        return `COALESCE(jsonb_typeof(${j}) = 'string' AND ${j} #>> '{}' = ${param(v)}, false)`;
      if (typeof v === 'boolean') return `COALESCE(${j} = CAST('${v}' AS jsonb), false)`;
      return `COALESCE(CASE WHEN jsonb_typeof(${j}) = 'number' THEN CAST(${j} #>> '{}' AS numeric) = ${param(v)} END, false)`;
    }
    const path = param(`$."${key}"`);
    if (typeof v === 'boolean') return `COALESCE(json_type(${column}, ${path}) = '${v}', 0)`;
    const types = typeof v === 'string' ? `('text')` : `('integer', 'real')`;
    return `COALESCE(json_type(${column}, ${path}) IN ${types} AND json_extract(${column}, ${path}) = ${param(v)}, 0)`;
  };

  const ordered = (f: Comparison & { type: keyof typeof OPS }): string => {
    const v = f.value as Scalar;
    if (typeof v === 'boolean') return pg ? 'false' : '0';
    const op = OPS[f.type];
    if (pg) {
      const j = `(CAST(${column} AS jsonb) -> ${param(f.key)})`;
      return typeof v === 'string'
        ? `COALESCE(CASE WHEN jsonb_typeof(${j}) = 'string' THEN (${j} #>> '{}') COLLATE "C" ${op} ${param(v)} END, false)`
        : `COALESCE(CASE WHEN jsonb_typeof(${j}) = 'number' THEN CAST(${j} #>> '{}' AS numeric) ${op} ${param(v)} END, false)`;
    }
    const path = param(`$."${f.key}"`);
    const types = typeof v === 'string' ? `('text')` : `('integer', 'real')`;
    return `COALESCE(json_type(${column}, ${path}) IN ${types} AND json_extract(${column}, ${path}) ${op} ${param(v)}, 0)`;
  };

  const walk = (f: Filter): string => {
    if ('filters' in f) return `(${f.filters.map(walk).join(f.type === 'and' ? ' AND ' : ' OR ')})`;
    switch (f.type) {
      case 'eq':
        return equals(f.key, f.value as Scalar);
      case 'ne':
        return `NOT ${equals(f.key, f.value as Scalar)}`;
      case 'in':
        return `(${(f.value as Scalar[]).map((v) => equals(f.key, v)).join(' OR ')})`;
      case 'nin':
        return `NOT (${(f.value as Scalar[]).map((v) => equals(f.key, v)).join(' OR ')})`;
      default:
        return ordered(f as Comparison & { type: keyof typeof OPS });
    }
  };
  return walk(filter);
}
