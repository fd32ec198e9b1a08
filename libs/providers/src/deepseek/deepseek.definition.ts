import type { ProviderDefinition } from '../provider-definition';

/** DeepSeek: an OpenAI-compatible chat API (served by the openai adapters). */
export const DEEPSEEK: ProviderDefinition = {
  name: 'deepseek',
  type: 'openai',
  env: { prefix: 'DEEPSEEK', defaultBaseUrl: 'https://api.deepseek.com/v1' },
  capabilities: { chat: true, embeddings: false, images: false },
  jurisdiction: 'foreign',
  inlineImages: false,
  exactTokens: 'never',
};
