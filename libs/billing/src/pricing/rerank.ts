import { InputPrice, inputOnlyChargeMicro, inputOnlyHoldMicro } from './input-only';

/**
 * Rerank at the price of the embedding model it runs on: hold for the query and every document as
 * counted; charge the query and the documents embedded (none on a cache hit). What a cache hit saved
 * is the same price applied to the cached documents' tokens.
 */
export function rerankHoldMicro(pricing: InputPrice, countedTokens: number): number {
  return inputOnlyHoldMicro(pricing, countedTokens);
}

export function rerankChargeMicro(pricing: InputPrice, used: { queryTokens: number; documentTokens: number }): number {
  return inputOnlyChargeMicro(pricing, used.queryTokens + used.documentTokens);
}
