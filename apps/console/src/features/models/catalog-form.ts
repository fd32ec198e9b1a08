import type { components } from '../../api/schema';

export type AdminModel = components['schemas']['AdminCatalogModelDto'];
export type PutModelBody = components['schemas']['PutCatalogModelDto'];

/** The editor's price names (the PUT body's `prices`) and the answer's field for each. */
export const PRICE_FIELDS = {
  input_per_1m: 'input_rub_per_1m',
  output_per_1m: 'output_rub_per_1m',
  cache_read_per_1m: 'cache_read_rub_per_1m',
  cache_write_per_1m: 'cache_write_rub_per_1m',
  cache_write_1h_per_1m: 'cache_write_1h_rub_per_1m',
  image: 'image_rub',
  request: 'request_rub',
} as const;
export type PriceName = keyof typeof PRICE_FIELDS;

/** Prices that must be given (and ≥ 0) for an enabled model; the others may be empty (none). */
export const REQUIRED_PRICES: PriceName[] = ['input_per_1m', 'output_per_1m'];

/** Which prices the form offers for a kind of model. */
export function pricesOf(kind: string): PriceName[] {
  if (kind === 'embedding') return ['input_per_1m', 'request'];
  if (kind === 'image') return ['input_per_1m', 'output_per_1m', 'request'];
  return Object.keys(PRICE_FIELDS) as PriceName[];
}

export interface DeploymentRow {
  id: string;
  base_url: string;
  base_url_env: string;
  api_key_env: string;
  weight: string;
}

/** What the form edits; numbers as typed ('' = none). */
export interface CatalogForm {
  enabled: boolean;
  currency: 'RUB' | 'USD';
  prices: Record<PriceName, string>;
  perImage: Record<string, Record<string, string>>;
  imageInput: string;
  aliases: string[];
  fallbacks: string[];
  deployments: DeploymentRow[];
}

const str = (v: number | null | undefined) => (v === null || v === undefined ? '' : String(v));

/** The form for a model as it is now (its effective values, in its currency). */
export function formOf(m: AdminModel): CatalogForm {
  const prices = {} as Record<PriceName, string>;
  for (const [name, field] of Object.entries(PRICE_FIELDS))
    prices[name as PriceName] = str((m.prices as unknown as Record<string, number | null>)[field]);
  return {
    enabled: m.enabled,
    currency: m.currency,
    prices,
    perImage: Object.fromEntries(
      Object.entries(m.image?.per_image ?? {}).map(([size, row]) => [
        size,
        Object.fromEntries(Object.entries(row).map(([q, v]) => [q, String(v)])),
      ]),
    ),
    imageInput: str(m.image?.image_input_per_1m),
    aliases: [...m.aliases],
    fallbacks: [...m.fallbacks],
    deployments: (m.deployments ?? []).map((d) => ({
      id: d.id,
      base_url: d.base_url ?? '',
      base_url_env: d.base_url_env ?? '',
      api_key_env: d.api_key_env ?? '',
      weight: String(d.weight),
    })),
  };
}

/** A typed amount: a number (a decimal comma accepted), null when empty, NaN when not a number. */
export function parseAmount(v: string): number | null {
  const s = v.trim().replace(',', '.');
  if (s === '') return null;
  return /^-?\d+(\.\d+)?$|^-?\.\d+$/.test(s) ? Number(s) : NaN;
}

export type FieldErrors = Record<string, string>;

/** The checks the server makes, by the server's field names: error keys of `catalog.form.errors`. */
export function validate(m: AdminModel, f: CatalogForm): FieldErrors {
  const errors: FieldErrors = {};
  const amount = (name: string, v: string, required: boolean) => {
    const n = parseAmount(v);
    if (n === null) {
      if (required) errors[name] = 'required';
    } else if (Number.isNaN(n)) errors[name] = 'number';
    else if (n < 0) errors[name] = 'negative';
  };
  for (const name of pricesOf(m.kind))
    amount(`prices.${name}`, f.prices[name], f.enabled && REQUIRED_PRICES.includes(name));
  if (m.kind === 'image') {
    for (const [size, row] of Object.entries(f.perImage))
      for (const [q, v] of Object.entries(row)) amount(`per_image.${size}.${q}`, v, true);
    amount('image_input_per_1m', f.imageInput, true);
  }
  f.aliases.forEach((a) => {
    if (!/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/.test(a)) errors.aliases = 'alias';
  });
  f.deployments.forEach((d, i) => {
    const at = `deployments[${i}]`;
    if (d.base_url_env && !/^[A-Z][A-Z0-9_]*_BASE_URL$/.test(d.base_url_env.trim()))
      errors[`${at}.base_url_env`] = 'env_base_url';
    if (d.api_key_env && !/^[A-Z][A-Z0-9_]*_API_KEY$/.test(d.api_key_env.trim()))
      errors[`${at}.api_key_env`] = 'env_api_key';
    const w = parseAmount(d.weight);
    if (w === null || Number.isNaN(w) || w <= 0) errors[`${at}.weight`] = 'weight';
  });
  return errors;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const orNull = (v: string) => (v.trim() === '' ? null : v.trim());

/**
 * The PUT body: the whole override (a PUT replaces it), so every field the override already sets is
 * sent again, and every field the form changed. A change of currency sends every price (they are all
 * read in the new currency).
 */
export function bodyOf(m: AdminModel, f: CatalogForm): PutModelBody {
  const initial = formOf(m);
  const keep = (field: string, changed: boolean) => changed || m.overridden_fields.includes(field);
  const currencyChanged = f.currency !== m.currency;
  const body: PutModelBody = { enabled: f.enabled };
  if (keep('currency', currencyChanged)) body.currency = f.currency;
  const prices: Record<string, number | null> = {};
  for (const name of pricesOf(m.kind))
    if (keep(`prices.${name}`, currencyChanged || f.prices[name] !== initial.prices[name]))
      prices[name] = parseAmount(f.prices[name]);
  if (Object.keys(prices).length) body.prices = prices as unknown as PutModelBody['prices'];
  if (m.kind === 'image') {
    if (keep('per_image', currencyChanged || !same(f.perImage, initial.perImage)))
      body.per_image = Object.fromEntries(
        Object.entries(f.perImage).map(([size, row]) => [
          size,
          Object.fromEntries(Object.entries(row).map(([q, v]) => [q, parseAmount(v) ?? 0])),
        ]),
      );
    if (keep('image_input_per_1m', currencyChanged || f.imageInput !== initial.imageInput))
      body.image_input_per_1m = parseAmount(f.imageInput) ?? 0;
  }
  if (keep('aliases', !same(f.aliases, initial.aliases))) body.aliases = f.aliases;
  if (keep('fallbacks', !same(f.fallbacks, initial.fallbacks))) body.fallbacks = f.fallbacks;
  if (keep('deployments', !same(f.deployments, initial.deployments)))
    body.deployments = f.deployments.length
      ? f.deployments.map((d, i) => ({
          id: d.id.trim() || `d${i}`,
          base_url: orNull(d.base_url),
          base_url_env: orNull(d.base_url_env),
          api_key_env: orNull(d.api_key_env),
          weight: parseAmount(d.weight) ?? 1,
        }))
      : null;
  return body;
}
