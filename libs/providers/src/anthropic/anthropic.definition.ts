import type { ProviderDefinition } from '../provider-definition';

/** Anthropic Messages API. */
export const ANTHROPIC: ProviderDefinition = {
  name: 'anthropic',
  type: 'anthropic',
  env: { prefix: 'ANTHROPIC', defaultBaseUrl: 'https://api.anthropic.com' },
  capabilities: { chat: true, embeddings: false, images: false, messagesApi: true },
  jurisdiction: 'foreign',
  inlineImages: true,
  exactTokens: 'never',
};
