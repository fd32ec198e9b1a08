import { Injectable } from '@nestjs/common';
import { exactCostMicro } from '@app/common';
import { holdTokens } from './hold-padding';
import { InputPrice, inputOnlyChargeMicro, inputOnlyHoldMicro } from './input-only';

/** One priced quantity: `tokens` at `rubPer1M` RUB per million (a per-item price is 1M "tokens" per item). */
export interface PricePart {
  tokens: number;
  rubPer1M: number;
}

/**
 * The injectable face of the price rules (this folder, one file per rule). Prices themselves come
 * from the model catalog (`pricing` of each entry); nothing here hard-codes a price.
 */
@Injectable()
export class PricingService {
  /** The padding rule for holds (hold-padding.ts). */
  holdTokens(counted: number, opts: { exact: boolean; text?: string } = { exact: true }): number {
    return holdTokens(counted, opts);
  }

  /** Σ tokens × price, rounded once to the µRUB. */
  micro(parts: PricePart[]): number {
    return exactCostMicro(parts).totalMicro;
  }

  /** Input-only pricing (input-only.ts): hold for a counted estimate, charge for the reported tokens. */
  inputHoldMicro(pricing: InputPrice, countedTokens: number): number {
    return inputOnlyHoldMicro(pricing, countedTokens);
  }

  inputMicro(pricing: InputPrice, tokens: number): number {
    return inputOnlyChargeMicro(pricing, tokens);
  }
}
