import type { ProviderDefinition } from '../provider-definition';

/** The OAuth endpoint that turns GIGACHAT_AUTH_KEY into a 30-minute access token. */
export const GIGACHAT_DEFAULT_OAUTH_URL = 'https://ngw.devices.sberbank.ru:9443/api/v2/oauth';

/**
 * Sber GigaChat API: OAuth (authorization key → access token), its own chat wire format
 * (functions / function_call), embeddings. Served by the gigachat adapters.
 */
export const GIGACHAT: ProviderDefinition = {
  name: 'gigachat',
  type: 'gigachat',
  env: {
    prefix: 'GIGACHAT',
    defaultBaseUrl: 'https://gigachat.devices.sberbank.ru/api/v1',
    extra: [
      // base64 of client_id:client_secret, sent as Basic credentials to the OAuth endpoint
      { name: 'AUTH_KEY' },
      {
        name: 'SCOPE',
        oneOf: ['GIGACHAT_API_PERS', 'GIGACHAT_API_B2B', 'GIGACHAT_API_CORP'],
        default: 'GIGACHAT_API_PERS',
      },
      { name: 'OAUTH_URL', kind: 'url', default: GIGACHAT_DEFAULT_OAUTH_URL },
      // PEM bundle added to the trusted roots (the Russian Trusted Root CA)
      { name: 'CA_FILE', kind: 'file' },
    ],
    credentials: [['AUTH_KEY']],
  },
  capabilities: { chat: true, embeddings: true, images: false },
  jurisdiction: 'ru',
  inlineImages: false,
  exactTokens: 'never',
};
