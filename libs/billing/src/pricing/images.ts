import { exactCostMicro } from '@app/common';
import { imageCallsFor, pricedQualities } from '@app/providers';
import type { ImageGenerationResult, ImageModelSpec, ModelEntry } from '@app/providers';

/**
 * One image request's cost, µRUB: `imageMicro` is the generated images, `inputMicro` the prompt side
 * (with the model's fee per call, when it has one).
 */
export interface ImageCost {
  imageMicro: number;
  inputMicro: number;
  totalMicro: number;
  /** how it was priced: provider-reported tokens, or the catalog's per-image table */
  basis: 'tokens' | 'per_image';
}

function spec(model: ModelEntry): ImageModelSpec {
  if (!model.image) throw new Error(`${model.key} is not an image model`);
  return model.image;
}

/** Candidate rows of the price table for a requested size/quality ("auto" → every row it may resolve to). */
function candidates(s: ImageModelSpec, size: string, quality: string): number[] {
  const sizes = size === 'auto' || !s.per_image_rub[size] ? Object.keys(s.per_image_rub) : [size];
  const priced = pricedQualities(s.qualities);
  const qualities = quality === 'auto' || !priced.includes(quality) ? priced : [quality];
  const out: number[] = [];
  for (const sz of sizes) for (const q of qualities) out.push(s.per_image_rub[sz]?.[q] ?? 0);
  return out;
}

/** A per-image price as an exactCostMicro part: 1M "tokens" per image at price RUB per 1M. */
const perImagePart = (images: number, rub: number) => ({ tokens: images * 1_000_000, rubPer1M: rub });

/** The model's flat fee per call (pricing.request_rub), µRUB; charged with the prompt side. */
const feeMicro = (model: ModelEntry) => exactCostMicro([perImagePart(1, model.pricing.request_rub ?? 0)]).totalMicro;

/**
 * Images, hold: n × the dearest image the request may produce, plus the prompt at the text-input
 * price counted as one token per character (an upper bound of any tokenizer's count) once per
 * upstream call (a provider that makes one call per image sends the prompt n times), plus the
 * model's fee per call.
 */
export function imageHoldMicro(
  model: ModelEntry,
  req: { n: number; size: string; quality: string; prompt: string },
): number {
  const s = spec(model);
  const dearest = Math.max(0, ...candidates(s, req.size, req.quality));
  const calls = imageCallsFor(model.provider, req.n);
  return exactCostMicro([
    perImagePart(req.n, dearest),
    { tokens: s.token_priced ? req.prompt.length * calls : 0, rubPer1M: model.pricing.input_rub_per_1m },
    perImagePart(1, model.pricing.request_rub ?? 0),
  ]).totalMicro;
}

/**
 * Images, charge. Token-priced models with reported usage: tokens × prices (text input, image input,
 * output). Otherwise each returned image at the table price of the size/quality the provider used
 * (the dearest candidate when it resolved "auto" without saying to what).
 */
export function imageCharge(model: ModelEntry, result: ImageGenerationResult): ImageCost {
  const s = spec(model);
  if (s.token_priced && result.usage) {
    const u = result.usage;
    const input =
      exactCostMicro([
        { tokens: u.text_input_tokens, rubPer1M: model.pricing.input_rub_per_1m },
        { tokens: u.image_input_tokens, rubPer1M: s.image_input_rub_per_1m },
      ]).totalMicro + feeMicro(model);
    const image = exactCostMicro([{ tokens: u.output_tokens, rubPer1M: model.pricing.output_rub_per_1m }]).totalMicro;
    return { imageMicro: image, inputMicro: input, totalMicro: input + image, basis: 'tokens' };
  }
  const each = Math.max(0, ...candidates(s, result.size, result.quality));
  const image = exactCostMicro([perImagePart(result.images.length, each)]).totalMicro;
  const fee = feeMicro(model);
  return { imageMicro: image, inputMicro: fee, totalMicro: image + fee, basis: 'per_image' };
}
