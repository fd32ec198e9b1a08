import { InputPrice, inputOnlyChargeMicro, inputOnlyHoldMicro } from './input-only';

/**
 * Embeddings (/v1/embeddings, knowledge-base ingestion and search queries): input-only, at the
 * embedding model's input price.
 */
export function embeddingsHoldMicro(pricing: InputPrice, countedTokens: number): number {
  return inputOnlyHoldMicro(pricing, countedTokens);
}

/** The tokens the embedding call reported. */
export function embeddingsChargeMicro(pricing: InputPrice, reportedTokens: number): number {
  return inputOnlyChargeMicro(pricing, reportedTokens);
}
