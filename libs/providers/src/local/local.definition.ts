import type { ProviderDefinition } from '../provider-definition';

/** The offline models (extractive chat, lexical embeddings, procedural images): no credentials. */
export const LOCAL: ProviderDefinition = {
  name: 'local',
  type: 'local',
  capabilities: { chat: true, embeddings: true, images: true },
  jurisdiction: 'ru',
  inlineImages: false,
  exactTokens: 'always',
};
