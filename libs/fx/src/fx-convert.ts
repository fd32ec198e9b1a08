/**
 * USD → RUB price conversion in exact decimal arithmetic: price × rate × (1 + markup / 100),
 * rounded half up. Token prices (RUB per 1M tokens = µRUB per token) round to whole µRUB per token;
 * per-item prices (an image) round to whole µRUB.
 */

const USD_SCALE = 10n ** 9n;
const RATE_SCALE = 10n ** 10n;
const MARKUP_SCALE = 10n ** 8n; // (1 + percent/100) × 1e8

function scaled(v: number | string, scale: bigint, what: string): bigint {
  const s = typeof v === 'number' ? v.toFixed(12) : v;
  const m = /^(\d+)(?:\.(\d+))?$/.exec(s.trim());
  if (!m) throw new RangeError(`${what} must be a non-negative decimal, got ${s}`);
  const digits = scale.toString().length - 1;
  const frac = (m[2] ?? '').padEnd(digits + 1, '0');
  const base = BigInt(m[1]) * scale + BigInt(frac.slice(0, digits) || '0');
  return frac[digits] >= '5' ? base + 1n : base;
}

function factor(markupPercent: number): bigint {
  if (!(markupPercent >= 0)) throw new RangeError('markup must be >= 0');
  return MARKUP_SCALE + scaled(markupPercent, 10n ** 6n, 'markup');
}

/** price × rate × (1 + markup%), in units of 1 / `unit` RUB, rounded half up. */
function convert(usd: number, rate: string | number, markupPercent: number, unit: bigint): number {
  const num = scaled(usd, USD_SCALE, 'price') * scaled(rate, RATE_SCALE, 'rate') * factor(markupPercent) * unit;
  const den = USD_SCALE * RATE_SCALE * MARKUP_SCALE;
  return Number((num + den / 2n) / den);
}

/** A USD token price (USD per 1M tokens) in RUB per 1M tokens, whole µRUB per token. */
export function usdTokenPriceToRub(usdPer1M: number, rate: string | number, markupPercent: number): number {
  return convert(usdPer1M, rate, markupPercent, 1n);
}

/** A USD per-item price (per image) in RUB, rounded to whole µRUB. */
export function usdItemPriceToRub(usd: number, rate: string | number, markupPercent: number): number {
  return convert(usd, rate, markupPercent, 1_000_000n) / 1_000_000;
}
