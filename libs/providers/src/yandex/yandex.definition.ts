import type { ProviderDefinition } from '../provider-definition';

/**
 * Yandex AI Studio (Foundation Models API): YandexGPT chat and text-search embeddings, billed to a
 * folder. Configured by YANDEX_FOLDER_ID and a credential: YANDEX_API_KEY (an API key of a service
 * account) or YANDEX_IAM_TOKEN (an IAM token).
 */
export const YANDEX: ProviderDefinition = {
  name: 'yandex',
  type: 'yandex',
  env: {
    prefix: 'YANDEX',
    defaultBaseUrl: 'https://llm.api.cloud.yandex.net',
    extra: [{ name: 'FOLDER_ID' }, { name: 'IAM_TOKEN' }],
    credentials: [
      ['API_KEY', 'FOLDER_ID'],
      ['IAM_TOKEN', 'FOLDER_ID'],
    ],
  },
  capabilities: { chat: true, embeddings: true, images: false },
  jurisdiction: 'ru',
  inlineImages: false,
  exactTokens: 'never',
};
