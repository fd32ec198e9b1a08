import type { ProviderDefinition } from '../provider-definition';

/** Gemini API (generateContent), chat and native image models. */
export const GEMINI: ProviderDefinition = {
  name: 'gemini',
  type: 'gemini',
  env: { prefix: 'GEMINI', defaultBaseUrl: 'https://generativelanguage.googleapis.com' },
  capabilities: { chat: true, embeddings: false, images: true, imageCallPerImage: true },
  jurisdiction: 'foreign',
  inlineImages: true,
  exactTokens: 'never',
};
