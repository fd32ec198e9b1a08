import { exactCostMicro, tokenCostMicro } from '@app/common';
import type { CanonicalUsage, ModelPricing } from '@app/providers';

/** Cost of one chat call in µRUB, per part, with the total computed from one exact sum and rounded once. */
export interface ChatCost {
  inputMicro: number;
  outputMicro: number;
  /** null when the request carried no images */
  imageMicro: number | null;
  /** null when the model has no cache prices and no cache tokens were reported */
  cacheMicro: number | null;
  /** the model's flat fee per call (absent when it has none) */
  requestMicro?: number;
  totalMicro: number;
}

/** An image fee is a per-image price: 1M "tokens" per image at image_rub per 1M. */
const perImage = (images: number, rub: number | null) => ({ tokens: images * 1_000_000, rubPer1M: rub ?? 0 });

/** The model's flat fee per call as a price part: one "item" at request_rub. */
export const perRequestPart = (pricing: { request_rub?: number | null }) => ({
  tokens: pricing.request_rub ? 1_000_000 : 0,
  rubPer1M: pricing.request_rub ?? 0,
});

/**
 * Chat tokens, hold: every prompt token at the dearest input-side price (input, cache read, cache
 * write or 1-hour cache write), the full output cap, every input image at the image fee, and the
 * model's fee per call.
 */
export function chatTokensHoldMicro(
  promptTokens: number,
  maxOutputTokens: number,
  pricing: ModelPricing,
  images: number,
): number {
  const inputSide = Math.max(
    pricing.input_rub_per_1m,
    pricing.cache_write_rub_per_1m ?? 0,
    pricing.cache_write_1h_rub_per_1m ?? 0,
    pricing.cache_read_rub_per_1m ?? 0,
  );
  return exactCostMicro([
    { tokens: promptTokens, rubPer1M: inputSide },
    { tokens: maxOutputTokens, rubPer1M: pricing.output_rub_per_1m },
    perImage(images, pricing.image_rub),
    perRequestPart(pricing),
  ]).totalMicro;
}

/**
 * Chat tokens, charge. prompt_tokens includes cache reads and writes (normalised by the adapters),
 * so the input price applies to the uncached part only; cache reads and writes are charged at their
 * own prices (the input price when the catalog has none; 1-hour writes at the 1-hour price, else the
 * write price). Reasoning tokens are part of completion_tokens. Input images at the image fee, plus
 * the model's fee per call when it has one.
 */
export function chatTokensCharge(usage: CanonicalUsage, pricing: ModelPricing, images: number): ChatCost {
  const cacheRead = Math.max(0, usage.cache_read_tokens);
  const cacheWrite = Math.max(0, usage.cache_write_tokens);
  // 1-hour cache writes have their own price; the rest of the writes are 5-minute ones
  const cacheWrite1h = Math.min(cacheWrite, Math.max(0, usage.cache_write_1h_tokens ?? 0));
  const cacheWrite5m = cacheWrite - cacheWrite1h;
  const uncached = Math.max(0, usage.prompt_tokens - cacheRead - cacheWrite);
  const readPrice = pricing.cache_read_rub_per_1m ?? pricing.input_rub_per_1m;
  const writePrice = pricing.cache_write_rub_per_1m ?? pricing.input_rub_per_1m;
  const write1hPrice = pricing.cache_write_1h_rub_per_1m ?? writePrice;
  const image = perImage(images, pricing.image_rub);
  const { totalMicro } = exactCostMicro([
    { tokens: uncached, rubPer1M: pricing.input_rub_per_1m },
    { tokens: usage.completion_tokens, rubPer1M: pricing.output_rub_per_1m },
    { tokens: cacheRead, rubPer1M: readPrice },
    { tokens: cacheWrite5m, rubPer1M: writePrice },
    { tokens: cacheWrite1h, rubPer1M: write1hPrice },
    image,
    perRequestPart(pricing),
  ]);
  const hasCachePricing = pricing.cache_read_rub_per_1m !== null || pricing.cache_write_rub_per_1m !== null;
  return {
    inputMicro: tokenCostMicro(uncached, pricing.input_rub_per_1m),
    outputMicro: tokenCostMicro(usage.completion_tokens, pricing.output_rub_per_1m),
    imageMicro: images > 0 ? tokenCostMicro(image.tokens, image.rubPer1M) : null,
    cacheMicro:
      hasCachePricing || cacheRead + cacheWrite > 0
        ? tokenCostMicro(cacheRead, readPrice) +
          tokenCostMicro(cacheWrite5m, writePrice) +
          tokenCostMicro(cacheWrite1h, write1hPrice)
        : null,
    ...(pricing.request_rub ? { requestMicro: tokenCostMicro(1_000_000, pricing.request_rub) } : {}),
    totalMicro,
  };
}

/**
 * The output a hold affords: the most output tokens per choice (`n` choices, at most
 * `maxOutputTokens`) whose chat hold — the prompt side held as `promptTokens`, the images, the
 * output — fits in `heldMicro`. 0 when the prompt side alone does not fit.
 */
export function chatOutputWithin(
  heldMicro: number,
  promptTokens: number,
  maxOutputTokens: number,
  pricing: ModelPricing,
  images: number,
  n = 1,
): number {
  const fits = (out: number) => chatTokensHoldMicro(promptTokens, out * n, pricing, images) <= heldMicro;
  if (!fits(0)) return 0;
  let lo = 0;
  let hi = Math.max(0, maxOutputTokens);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
