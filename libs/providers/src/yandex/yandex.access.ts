/**
 * How a request reaches Yandex AI Studio: the folder that is billed (`x-folder-id`, and the folder
 * segment of every model URI) and the credential — an API key (`Authorization: Api-Key …`) or an
 * IAM token (`Authorization: Bearer …`). Read from the provider's connection (YANDEX_API_KEY, and
 * the definition's own YANDEX_FOLDER_ID / YANDEX_IAM_TOKEN).
 */
import { ProviderConnection, ProviderError } from '../types';

export interface YandexAccess {
  folderId: string;
  headers: Record<string, string>;
}

/** The provider's own variables as the connection carries them (by name after `YANDEX_`). */
function extraValue(conn: ProviderConnection, name: string): string | undefined {
  const value = conn.extra?.[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** An API key wins over an IAM token when both are set (a key does not expire; a token lives 12 hours). */
export function yandexAccess(conn: ProviderConnection): YandexAccess {
  const folderId = extraValue(conn, 'FOLDER_ID');
  const apiKey = conn.apiKey.trim();
  const iamToken = extraValue(conn, 'IAM_TOKEN');
  if (folderId === undefined || (apiKey === '' && iamToken === undefined))
    throw new ProviderError('auth', 'Yandex AI Studio needs YANDEX_FOLDER_ID and YANDEX_API_KEY or YANDEX_IAM_TOKEN');
  return {
    folderId,
    headers: {
      'content-type': 'application/json',
      authorization: apiKey !== '' ? `Api-Key ${apiKey}` : `Bearer ${iamToken}`,
      'x-folder-id': folderId,
    },
  };
}

/**
 * `gpt://<folder>/<model>/latest` for a plain model name (`yandexgpt`, `yandexgpt-lite`); a name that
 * already names a branch (`yandexgpt/rc`) keeps it; a full `gpt://…` URI is used as is.
 */
export function yandexModelUri(scheme: 'gpt' | 'emb', folderId: string, model: string): string {
  if (model.startsWith(`${scheme}://`)) return model;
  return `${scheme}://${folderId}/${model.includes('/') ? model : `${model}/latest`}`;
}
