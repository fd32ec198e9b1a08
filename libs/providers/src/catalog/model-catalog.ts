import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import builtin from './models.json';

export type ModelKind = 'chat' | 'embedding' | 'image';

export interface ModelPricing {
  input_rub_per_1m: number;
  output_rub_per_1m: number;
  cache_read_rub_per_1m: number | null;
  cache_write_rub_per_1m: number | null;
  /** per image: chat models → per input image handled; image models → per generated image */
  image_rub: number | null;
}

export interface ModelEntry {
  key: string;
  /** provider instance: openai | deepseek | anthropic | gemini | local */
  provider: string;
  upstream_model: string;
  kind: ModelKind;
  context_window: number;
  /** output cap used when the caller gives no max_tokens (chat) */
  max_output_tokens: number;
  supports_images: boolean;
  supports_tools: boolean;
  supports_json: boolean;
  /** n > 1 supported by the upstream */
  supports_n: boolean;
  /** receives project documents in full instead of RAG fragments (spec 4.1 rule 5) */
  full_context: boolean;
  /** embedding models */
  dimensions: number | null;
  pricing: ModelPricing;
}

export class CatalogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogError';
  }
}

type Raw = Record<string, unknown>;

function num(raw: Raw, field: string, where: string, opts: { nullable?: boolean; min?: number; integer?: boolean; def?: number | null } = {}): number | null {
  const v = raw[field];
  if (v === undefined) {
    if (opts.def !== undefined) return opts.def;
    if (opts.nullable) return null;
    throw new CatalogError(`${where}: "${field}" is required`);
  }
  if (v === null) {
    if (opts.nullable) return null;
    throw new CatalogError(`${where}: "${field}" must not be null`);
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new CatalogError(`${where}: "${field}" must be a number`);
  if (opts.integer && !Number.isInteger(v)) throw new CatalogError(`${where}: "${field}" must be an integer`);
  if (v < (opts.min ?? 0)) throw new CatalogError(`${where}: "${field}" must be >= ${opts.min ?? 0}`);
  return v;
}

function bool(raw: Raw, field: string, def: boolean): boolean {
  const v = raw[field];
  if (v === undefined) return def;
  if (typeof v !== 'boolean') throw new CatalogError(`"${field}" must be a boolean`);
  return v;
}

function str(raw: Raw, field: string, where: string): string {
  const v = raw[field];
  if (typeof v !== 'string' || v.trim() === '') throw new CatalogError(`${where}: "${field}" must be a non-empty string`);
  return v;
}

/** Validates one raw entry (from the built-in file or MODELS_FILE). */
export function parseModelEntry(raw: unknown, where: string): ModelEntry {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CatalogError(`${where}: must be an object`);
  const r = raw as Raw;
  const key = str(r, 'key', where);
  const at = `${where} (${key})`;
  const kind = str(r, 'kind', at);
  if (kind !== 'chat' && kind !== 'embedding' && kind !== 'image') throw new CatalogError(`${at}: "kind" must be chat, embedding or image`);
  const p = r.pricing;
  if (typeof p !== 'object' || p === null) throw new CatalogError(`${at}: "pricing" is required`);
  const pr = p as Raw;
  const contextWindow = num(r, 'context_window', at, { min: 1, integer: true }) as number;
  return {
    key,
    provider: str(r, 'provider', at),
    upstream_model: str(r, 'upstream_model', at),
    kind,
    context_window: contextWindow,
    max_output_tokens: num(r, 'max_output_tokens', at, { min: 1, integer: true, def: Math.min(4096, contextWindow) }) as number,
    supports_images: bool(r, 'supports_images', false),
    supports_tools: bool(r, 'supports_tools', false),
    supports_json: bool(r, 'supports_json', kind === 'chat'),
    supports_n: bool(r, 'supports_n', false),
    full_context: bool(r, 'full_context', false),
    dimensions: kind === 'embedding' ? (num(r, 'dimensions', at, { min: 1, integer: true }) as number) : null,
    pricing: {
      input_rub_per_1m: num(pr, 'input_rub_per_1m', `${at} pricing`) as number,
      output_rub_per_1m: num(pr, 'output_rub_per_1m', `${at} pricing`, { def: 0 }) as number,
      cache_read_rub_per_1m: num(pr, 'cache_read_rub_per_1m', `${at} pricing`, { nullable: true }),
      cache_write_rub_per_1m: num(pr, 'cache_write_rub_per_1m', `${at} pricing`, { nullable: true }),
      image_rub: num(pr, 'image_rub', `${at} pricing`, { nullable: true }),
    },
  };
}

/** Built-in entries, then MODELS_FILE entries merged over them by key ("disabled": true removes one). */
export function loadCatalog(modelsFile?: string, knownProviders?: string[]): ModelEntry[] {
  const byKey = new Map<string, ModelEntry>();
  builtin.models.forEach((raw, i) => {
    const e = parseModelEntry(raw, `built-in catalog models[${i}]`);
    byKey.set(e.key, e);
  });
  if (modelsFile) {
    let doc: unknown;
    try {
      doc = parseYaml(readFileSync(modelsFile, 'utf8'));
    } catch (err) {
      throw new CatalogError(`MODELS_FILE ${modelsFile}: ${(err as Error).message}`);
    }
    const list = Array.isArray(doc) ? doc : (doc as { models?: unknown })?.models;
    if (!Array.isArray(list)) throw new CatalogError(`MODELS_FILE ${modelsFile}: expected {models: [...]} or a list`);
    list.forEach((raw: unknown, i) => {
      const where = `MODELS_FILE models[${i}]`;
      const r = raw as Raw;
      if (r && typeof r === 'object' && r.disabled === true && typeof r.key === 'string') {
        byKey.delete(r.key);
        return;
      }
      // an override may give only the fields it changes
      const base = typeof r?.key === 'string' ? byKey.get(r.key) : undefined;
      const merged = base ? { ...base, ...r, pricing: { ...base.pricing, ...((r.pricing as Raw | undefined) ?? {}) } } : raw;
      const e = parseModelEntry(merged, where);
      byKey.set(e.key, e);
    });
  }
  if (knownProviders) {
    for (const e of byKey.values()) {
      if (!knownProviders.includes(e.provider)) throw new CatalogError(`model ${e.key}: unknown provider "${e.provider}" (known: ${knownProviders.join(', ')})`);
    }
  }
  return [...byKey.values()];
}
