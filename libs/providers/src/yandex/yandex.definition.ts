import type { ProviderDefinition } from '../provider-definition';

/**
 * Yandex AI Studio (Foundation Models API): YandexGPT chat and text-search embeddings, billed to a
 * folder. YANDEX_API_KEY or YANDEX_IAM_TOKEN, and YANDEX_FOLDER_ID.
 */
export const YANDEX: ProviderDefinition = {
  name: 'yandex',
  type: 'yandex',
  env: { prefix: 'YANDEX', defaultBaseUrl: 'https://llm.api.cloud.yandex.net' },
  capabilities: { chat: true, embeddings: true, images: false },
  inlineImages: false,
  exactTokens: 'never',
};
