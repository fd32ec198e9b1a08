import { Injectable } from '@nestjs/common';
import { exactCostMicro } from '@app/common';

/** One priced quantity: `tokens` at `rubPer1M` RUB per million (a per-item price is 1M "tokens" per item). */
export interface PricePart {
  tokens: number;
  rubPer1M: number;
}

/**
 * Price arithmetic and THE padding rule for holds. Prices themselves come from the model catalog
 * (`pricing` of each entry); nothing here hard-codes a price.
 */
@Injectable()
export class PricingService {
  /**
   * Tokens to hold for `counted` tokens counted by the gateway. Where the gateway's tokenizer is the
   * provider's (`exact`: OpenAI models, the local models, the embedding tokenizer) 10 % + 32 covers
   * framing. Elsewhere (Anthropic, Gemini, DeepSeek, OpenAI-compatible servers) other tokenizers
   * count Cyrillic, CJK and code higher: the larger of 1.5 × the count and one token per non-ASCII
   * character plus one per three ASCII characters of `text`, plus 32. The charge is always the
   * provider's report; this only sizes the hold.
   */
  holdTokens(counted: number, opts: { exact: boolean; text?: string } = { exact: true }): number {
    if (opts.exact) return Math.ceil(counted * 1.1) + 32;
    const text = opts.text ?? '';
    let nonAscii = 0;
    for (const ch of text) if (ch.codePointAt(0)! > 0x7f) nonAscii++;
    return Math.max(Math.ceil(counted * 1.5), nonAscii + Math.ceil((text.length - nonAscii) / 3)) + 32;
  }

  /** Σ tokens × price, rounded once to the µRUB. */
  micro(parts: PricePart[]): number {
    return exactCostMicro(parts).totalMicro;
  }

  /** Input-only (embedding) pricing: hold for a counted estimate, charge for the reported tokens. */
  inputHoldMicro(pricing: { input_rub_per_1m: number }, countedTokens: number): number {
    return this.micro([{ tokens: this.holdTokens(countedTokens), rubPer1M: pricing.input_rub_per_1m }]);
  }

  inputMicro(pricing: { input_rub_per_1m: number }, tokens: number): number {
    return this.micro([{ tokens, rubPer1M: pricing.input_rub_per_1m }]);
  }
}
