import { exactCostMicro } from '@app/common';
import { holdTokens } from './hold-padding';

/** The one price an input-only model has (embedding models). */
export interface InputPrice {
  input_rub_per_1m: number;
}

/** Input-only, hold: the counted estimate, padded (exact tokenizer), at the input price. */
export function inputOnlyHoldMicro(pricing: InputPrice, countedTokens: number): number {
  return exactCostMicro([{ tokens: holdTokens(countedTokens), rubPer1M: pricing.input_rub_per_1m }]).totalMicro;
}

/** Input-only, charge: the reported tokens at the input price. */
export function inputOnlyChargeMicro(pricing: InputPrice, tokens: number): number {
  return exactCostMicro([{ tokens, rubPer1M: pricing.input_rub_per_1m }]).totalMicro;
}
