import type { ProviderDefinition } from '../provider-definition';

/** OpenAI itself, or any OpenAI-compatible server at OPENAI_BASE_URL; also the remote embedding models. */
export const OPENAI: ProviderDefinition = {
  name: 'openai',
  type: 'openai',
  env: { prefix: 'OPENAI', defaultBaseUrl: 'https://api.openai.com/v1' },
  capabilities: { chat: true, embeddings: true, images: true },
  jurisdiction: 'foreign',
  inlineImages: false,
  exactTokens: 'at-default-base-url',
};
