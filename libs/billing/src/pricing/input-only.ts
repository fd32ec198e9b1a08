import { exactCostMicro } from '@app/common';
import { holdTokens } from './hold-padding';

/** The one price an input-only model has (embedding models). */
export interface InputPrice {
  input_rub_per_1m: number;
  /** a flat fee per call (null or absent: none) */
  request_rub?: number | null;
}

/** The fee per call as a price part: one "item" at request_rub. */
const perCall = (pricing: InputPrice) => ({
  tokens: pricing.request_rub ? 1_000_000 : 0,
  rubPer1M: pricing.request_rub ?? 0,
});

/** Input-only, hold: the counted estimate, padded (exact tokenizer), at the input price, plus the fee per call. */
export function inputOnlyHoldMicro(pricing: InputPrice, countedTokens: number): number {
  return exactCostMicro([{ tokens: holdTokens(countedTokens), rubPer1M: pricing.input_rub_per_1m }, perCall(pricing)])
    .totalMicro;
}

/** Input-only, charge: the reported tokens at the input price, plus the fee per call. */
export function inputOnlyChargeMicro(pricing: InputPrice, tokens: number): number {
  return exactCostMicro([{ tokens, rubPer1M: pricing.input_rub_per_1m }, perCall(pricing)]).totalMicro;
}
