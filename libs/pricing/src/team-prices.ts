import type { ModelEntry } from '@app/providers';
import { usdItemPriceToRub, usdTokenPriceToRub, type FxQuote } from '@app/fx';

/** A team's own RUB prices for one model; a field left out keeps the catalog price (with the team's discount/markup). */
export interface TeamModelPrices {
  input_per_1m_rub?: number;
  output_per_1m_rub?: number;
  cache_read_per_1m_rub?: number;
  cache_write_per_1m_rub?: number;
  cache_write_1h_per_1m_rub?: number;
  /** chat models: per input image */
  image_rub?: number;
  /** the fee per call (0: none); left out, the catalog's fee with the team's discount/markup */
  request_rub?: number;
}

/** What an operator set for one team. */
export interface TeamPricing {
  discount_percent: number;
  markup_percent: number;
  models: Record<string, TeamModelPrices>;
}

type Fn = (v: number) => number;
const orNull = (v: number | null | undefined, f: Fn): number | null => (v === null || v === undefined ? null : f(v));

/** `e` with every price passed through `token` (per-1M-token prices) or `item` (per-image prices). */
export function mapPrices(e: ModelEntry, token: Fn, item: Fn): ModelEntry {
  const p = e.pricing;
  const image = e.image
    ? {
        ...e.image,
        image_input_rub_per_1m: token(e.image.image_input_rub_per_1m),
        per_image_rub: Object.fromEntries(
          Object.entries(e.image.per_image_rub).map(([size, row]) => [
            size,
            Object.fromEntries(Object.entries(row).map(([q, v]) => [q, item(v)])),
          ]),
        ),
      }
    : null;
  return {
    ...e,
    pricing: {
      input_rub_per_1m: token(p.input_rub_per_1m),
      output_rub_per_1m: token(p.output_rub_per_1m),
      cache_read_rub_per_1m: orNull(p.cache_read_rub_per_1m, token),
      cache_write_rub_per_1m: orNull(p.cache_write_rub_per_1m, token),
      cache_write_1h_rub_per_1m: orNull(p.cache_write_1h_rub_per_1m, token),
      image_rub: orNull(p.image_rub, item),
      request_rub: orNull(p.request_rub, item),
    },
    image,
  };
}

/**
 * A catalog entry in RUB: RUB entries as they are; USD entries at `quote` — price × rate ×
 * (1 + markup %), whole µRUB per token (per image: whole µRUB) — stamped with the rate used.
 */
export function inRub(e: ModelEntry, quote: FxQuote): ModelEntry {
  if (e.currency === 'RUB') return e;
  const { rate, markupPercent } = quote;
  const out = mapPrices(
    e,
    (v) => usdTokenPriceToRub(v, rate, markupPercent),
    (v) => usdItemPriceToRub(v, rate, markupPercent),
  );
  return { ...out, currency: 'RUB', fx: { rate: Number(rate), date: quote.date, markup_percent: markupPercent } };
}

/** Rounds to 1e-6 (µRUB per image; µRUB per 1M tokens), away from float noise. */
const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/**
 * A RUB entry at a team's prices: the team's own prices for the model where given, every other
 * price × (1 + markup %) × (1 − discount %).
 */
export function forTeam(e: ModelEntry, t: TeamPricing | undefined): ModelEntry {
  if (!t) return e;
  const f = (1 + t.markup_percent / 100) * (1 - t.discount_percent / 100);
  const scaled =
    f === 1
      ? e
      : mapPrices(
          e,
          (v) => round6(v * f),
          (v) => round6(v * f),
        );
  const own = t.models[e.key];
  if (!own) return scaled;
  const p = scaled.pricing;
  return {
    ...scaled,
    pricing: {
      input_rub_per_1m: own.input_per_1m_rub ?? p.input_rub_per_1m,
      output_rub_per_1m: own.output_per_1m_rub ?? p.output_rub_per_1m,
      cache_read_rub_per_1m: own.cache_read_per_1m_rub ?? p.cache_read_rub_per_1m,
      cache_write_rub_per_1m: own.cache_write_per_1m_rub ?? p.cache_write_rub_per_1m,
      cache_write_1h_rub_per_1m: own.cache_write_1h_per_1m_rub ?? p.cache_write_1h_rub_per_1m,
      image_rub: own.image_rub ?? p.image_rub,
      request_rub: own.request_rub ?? p.request_rub ?? null,
    },
  };
}
