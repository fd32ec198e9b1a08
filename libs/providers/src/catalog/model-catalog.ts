import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import builtin from './models.json';
import { findProviderDefinition } from '../provider-definitions';

export type ModelKind = 'chat' | 'embedding' | 'image';

/** The currency a catalog entry's prices are given in; USD prices are turned into RUB at the CBR rate. */
export type PriceCurrency = 'RUB' | 'USD';

/** The CBR rate a RUB price was computed with (USD-priced entries), recorded with every charge. */
export interface FxStamp {
  /** RUB per 1 USD as published (Value / Nominal) */
  rate: number;
  /** the rate's date, YYYY-MM-DD */
  date: string;
  /** FX_MARKUP_PERCENT applied on top of the rate */
  markup_percent: number;
}

export interface ModelPricing {
  input_rub_per_1m: number;
  output_rub_per_1m: number;
  cache_read_rub_per_1m: number | null;
  /** cache writes of the default (5-minute) lifetime */
  cache_write_rub_per_1m: number | null;
  /** cache writes with a 1-hour lifetime (Anthropic `cache_control.ttl: "1h"`); null: the 5-minute price */
  cache_write_1h_rub_per_1m?: number | null;
  /** per image: chat models → per input image handled; image models → per generated image */
  image_rub: number | null;
  /** a flat fee per call of the model, on top of its token and image prices (null or absent: none) */
  request_rub?: number | null;
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
  /** receives project documents in full instead of RAG fragments (like the full-context project modes) */
  full_context: boolean;
  /** embedding models */
  dimensions: number | null;
  pricing: ModelPricing;
  /** image models: what may be asked and what each generated image costs (null for other kinds) */
  image: ImageModelSpec | null;
  /** model keys tried in order when this one fails with a retryable error (after its retries) or is unavailable */
  fallbacks: string[];
  /** several upstream endpoints/keys of this model, picked by weight (null: the provider's own connection) */
  deployments: DeploymentSpec[] | null;
  /**
   * The currency of the prices above. Entries handed to the price rules are always in RUB (the
   * catalog converts USD entries at the day's CBR rate and stamps `fx`).
   */
  currency: PriceCurrency;
  /** the rate used to turn this entry's USD prices into RUB (null: priced in RUB) */
  fx?: FxStamp | null;
}

/**
 * One upstream deployment of a model: a base URL and/or key other than the provider's default,
 * given directly (`base_url`) or by the name of an environment variable (`base_url_env`,
 * `api_key_env`). Unset parts fall back to the provider's <PROVIDER>_BASE_URL / <PROVIDER>_API_KEY.
 */
export interface DeploymentSpec {
  /** stable name in logs and cooldown keys (default "d<index>") */
  id: string;
  base_url: string | null;
  base_url_env: string | null;
  api_key_env: string | null;
  /** relative share of the traffic (> 0) */
  weight: number;
}

/**
 * An image model's options and prices. Token-priced models (gpt-image-1, Gemini) charge
 * `pricing.input_rub_per_1m` per text input token, `image_input_rub_per_1m` per image input token and
 * `pricing.output_rub_per_1m` per output (image) token; `per_image_rub[size][quality]` is then the
 * fallback when the provider reports no usage and the basis of the reservation. Per-image models
 * (dall-e-3, local-image) charge `per_image_rub[size][quality]` for each image returned.
 * This is NOT `pricing.image_rub`, which is a chat model's fee per *input* image (null for image models).
 */
export interface ImageModelSpec {
  /** "WIDTHxHEIGHT" values, plus "auto" when the provider chooses */
  sizes: string[];
  qualities: string[];
  styles: string[];
  output_formats: string[];
  max_n: number;
  max_prompt_chars: number;
  default_size: string;
  default_quality: string;
  token_priced: boolean;
  image_input_rub_per_1m: number;
  per_image_rub: Record<string, Record<string, number>>;
}

export class CatalogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogError';
  }
}

type Raw = Record<string, unknown>;

function num(
  raw: Raw,
  field: string,
  where: string,
  opts: { nullable?: boolean; min?: number; integer?: boolean; def?: number | null } = {},
): number | null {
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

function strList(raw: Raw, field: string, where: string, def?: string[]): string[] {
  const v = raw[field];
  if (v === undefined && def) return def;
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' && x !== ''))
    throw new CatalogError(`${where}: "${field}" must be a non-empty list of strings`);
  return v as string[];
}

/** Qualities that carry a price: all but "auto" (which resolves to one of them), or just "auto" when it is the only one. */
export function pricedQualities(qualities: string[]): string[] {
  const concrete = qualities.filter((q) => q !== 'auto');
  return concrete.length > 0 ? concrete : ['auto'];
}

function parseImageSpec(raw: unknown, at: string): ImageModelSpec {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new CatalogError(`${at}: image models need an "image" object`);
  const r = raw as Raw;
  const where = `${at} image`;
  const sizes = strList(r, 'sizes', where);
  for (const s of sizes)
    if (s !== 'auto' && !/^\d{2,5}x\d{2,5}$/.test(s))
      throw new CatalogError(`${where}: size "${s}" must be WIDTHxHEIGHT or auto`);
  const qualities = strList(r, 'qualities', where);
  const table = r.per_image_rub;
  if (typeof table !== 'object' || table === null) throw new CatalogError(`${where}: "per_image_rub" is required`);
  const perImage: Record<string, Record<string, number>> = {};
  const priced = pricedQualities(qualities);
  for (const size of sizes.filter((s) => s !== 'auto')) {
    const row = (table as Raw)[size];
    if (typeof row !== 'object' || row === null)
      throw new CatalogError(`${where}: per_image_rub has no row for size ${size}`);
    perImage[size] = {};
    for (const q of priced) perImage[size][q] = num(row as Raw, q, `${where} per_image_rub ${size}`) as number;
  }
  const defaultSize = typeof r.default_size === 'string' ? r.default_size : sizes[0];
  const defaultQuality = typeof r.default_quality === 'string' ? r.default_quality : qualities[0];
  if (!sizes.includes(defaultSize)) throw new CatalogError(`${where}: default_size must be one of sizes`);
  if (!qualities.includes(defaultQuality)) throw new CatalogError(`${where}: default_quality must be one of qualities`);
  return {
    sizes,
    qualities,
    styles: Array.isArray(r.styles) ? strList(r, 'styles', where) : [],
    output_formats: strList(r, 'output_formats', where, ['png']),
    max_n: num(r, 'max_n', where, { min: 1, integer: true, def: 1 }) as number,
    max_prompt_chars: num(r, 'max_prompt_chars', where, { min: 1, integer: true, def: 4000 }) as number,
    default_size: defaultSize,
    default_quality: defaultQuality,
    token_priced: bool(r, 'token_priced', false),
    image_input_rub_per_1m: num(r, 'image_input_rub_per_1m', where, { def: 0 }) as number,
    per_image_rub: perImage,
  };
}

function str(raw: Raw, field: string, where: string): string {
  const v = raw[field];
  if (typeof v !== 'string' || v.trim() === '')
    throw new CatalogError(`${where}: "${field}" must be a non-empty string`);
  return v;
}

/** Validates one raw entry (from the built-in file or MODELS_FILE). */
export function parseModelEntry(raw: unknown, where: string): ModelEntry {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new CatalogError(`${where}: must be an object`);
  const r = raw as Raw;
  const key = str(r, 'key', where);
  const at = `${where} (${key})`;
  const kind = str(r, 'kind', at);
  if (kind !== 'chat' && kind !== 'embedding' && kind !== 'image')
    throw new CatalogError(`${at}: "kind" must be chat, embedding or image`);
  const p = r.pricing;
  if (typeof p !== 'object' || p === null) throw new CatalogError(`${at}: "pricing" is required`);
  const pr = p as Raw;
  const contextWindow = num(r, 'context_window', at, { min: 1, integer: true }) as number;
  const imageRub = num(pr, 'image_rub', `${at} pricing`, { nullable: true });
  if (kind === 'image' && imageRub !== null)
    throw new CatalogError(
      `${at}: image models price generated images in "image.per_image_rub"; pricing.image_rub (a chat fee per input image) must be null`,
    );
  const currency = r.currency === undefined || r.currency === null ? 'RUB' : r.currency;
  if (currency !== 'RUB' && currency !== 'USD') throw new CatalogError(`${at}: "currency" must be RUB or USD`);
  return {
    key,
    provider: str(r, 'provider', at),
    upstream_model: str(r, 'upstream_model', at),
    kind,
    context_window: contextWindow,
    max_output_tokens: num(r, 'max_output_tokens', at, {
      min: 1,
      integer: true,
      def: Math.min(4096, contextWindow),
    }) as number,
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
      cache_write_1h_rub_per_1m: num(pr, 'cache_write_1h_rub_per_1m', `${at} pricing`, { nullable: true }),
      image_rub: imageRub,
      request_rub: num(pr, 'request_rub', `${at} pricing`, { nullable: true }),
    },
    image: kind === 'image' ? parseImageSpec(r.image, at) : null,
    fallbacks: r.fallbacks === undefined || r.fallbacks === null ? [] : fallbackList(r.fallbacks, key, at),
    deployments: r.deployments === undefined || r.deployments === null ? null : parseDeployments(r.deployments, at),
    currency,
    fx: null,
  };
}

function fallbackList(v: unknown, key: string, at: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x !== ''))
    throw new CatalogError(`${at}: "fallbacks" must be a list of model keys`);
  if (v.includes(key)) throw new CatalogError(`${at}: "fallbacks" must not name the model itself`);
  return [...new Set(v as string[])];
}

const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

function parseDeployments(v: unknown, at: string): DeploymentSpec[] {
  if (!Array.isArray(v) || v.length === 0) throw new CatalogError(`${at}: "deployments" must be a non-empty list`);
  const seen = new Set<string>();
  return v.map((raw: unknown, i) => {
    const where = `${at} deployments[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new CatalogError(`${where}: must be an object`);
    const d = raw as Raw;
    const optStr = (field: string): string | null => {
      if (d[field] === undefined || d[field] === null) return null;
      return str(d, field, where);
    };
    const id = optStr('id') ?? `d${i}`;
    if (seen.has(id)) throw new CatalogError(`${where}: duplicate id "${id}"`);
    seen.add(id);
    const baseUrl = optStr('base_url');
    if (baseUrl !== null && !/^https?:\/\/[^\s]+$/.test(baseUrl))
      throw new CatalogError(`${where}: "base_url" must be an http(s) URL`);
    const baseUrlEnv = optStr('base_url_env');
    const apiKeyEnv = optStr('api_key_env');
    for (const [field, name] of [
      ['base_url_env', baseUrlEnv],
      ['api_key_env', apiKeyEnv],
    ] as const) {
      if (name !== null && !ENV_NAME.test(name))
        throw new CatalogError(`${where}: "${field}" must be an upper-case environment variable name`);
    }
    if (baseUrl !== null && baseUrlEnv !== null)
      throw new CatalogError(`${where}: give "base_url" or "base_url_env", not both`);
    const weight = num(d, 'weight', where, { def: 1 }) as number;
    if (!(weight > 0)) throw new CatalogError(`${where}: "weight" must be > 0`);
    return {
      id,
      base_url: baseUrl?.replace(/\/+$/, '') ?? null,
      base_url_env: baseUrlEnv,
      api_key_env: apiKeyEnv,
      weight,
    };
  });
}

/** Fallbacks must name existing models of the same kind. */
export function checkFallbacks(models: Map<string, ModelEntry>): void {
  for (const e of models.values()) {
    for (const f of e.fallbacks) {
      const target = models.get(f);
      if (!target) throw new CatalogError(`model ${e.key}: fallback "${f}" is not in the catalog`);
      if (target.kind !== e.kind)
        throw new CatalogError(`model ${e.key}: fallback "${f}" is a ${target.kind} model, not ${e.kind}`);
    }
  }
}

/** Built-in entries, then MODELS_FILE entries merged over them by key ("disabled": true removes one). */
export function loadCatalog(
  modelsFile?: string,
  knownProviders?: string[],
  sources?: Map<string, 'builtin' | 'file'>,
): ModelEntry[] {
  const byKey = new Map<string, ModelEntry>();
  builtin.models.forEach((raw, i) => {
    const e = parseModelEntry(raw, `built-in catalog models[${i}]`);
    byKey.set(e.key, e);
    sources?.set(e.key, 'builtin');
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
        sources?.delete(r.key);
        return;
      }
      // an override may give only the fields it changes
      const base = typeof r?.key === 'string' ? byKey.get(r.key) : undefined;
      const merged = base
        ? { ...base, ...r, pricing: { ...base.pricing, ...((r.pricing as Raw | undefined) ?? {}) } }
        : raw;
      const e = parseModelEntry(merged, where);
      byKey.set(e.key, e);
      sources?.set(e.key, 'file');
    });
  }
  checkFallbacks(byKey);
  if (knownProviders) {
    for (const e of byKey.values()) {
      if (!knownProviders.includes(e.provider))
        throw new CatalogError(
          `model ${e.key}: unknown provider "${e.provider}" (known: ${knownProviders.join(', ')})`,
        );
      // deployments replace a provider's connection settings: only definitions with env vars have them
      if (e.deployments && !findProviderDefinition(e.provider)?.env)
        throw new CatalogError(
          `model ${e.key}: the ${e.provider} provider has no deployments (it has no connection settings)`,
        );
    }
  }
  return [...byKey.values()];
}
