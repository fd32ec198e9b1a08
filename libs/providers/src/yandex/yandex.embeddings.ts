/**
 * Yandex text embeddings: `POST {baseUrl}/foundationModels/v1/textEmbedding` with `{modelUri, text}`
 * — one text per call — answering `{embedding: number[], numTokens: "<int64>", modelVersion}`.
 * Yandex pairs two models: `text-search-doc` for documents and `text-search-query` for search
 * queries. A catalog entry names the pair by its stem (`text-search`); the request's purpose picks
 * the member. A full `emb://…` URI is used as is, whatever the purpose.
 */
import { EmbeddingPurpose, ProviderConnection, ProviderError } from '../types';
import { joinUrl } from '../http/urls';
import { asArray, isRecord } from '../http/wire-json';
import { yandexAccess, yandexModelUri } from './yandex.access';
import { yandexCount } from './yandex.response';

export interface YandexEmbeddingBody {
  modelUri: string;
  text: string;
}

/** `text-search` + document → `text-search-doc`; + query → `text-search-query`. */
export function yandexEmbeddingModel(stem: string, purpose: EmbeddingPurpose | undefined): string {
  if (stem.startsWith('emb://') || stem.includes('/')) return stem;
  return `${stem}-${purpose === 'query' ? 'query' : 'doc'}`;
}

export function buildYandexEmbeddingRequest(
  text: string,
  model: string,
  purpose: EmbeddingPurpose | undefined,
  conn: ProviderConnection,
): { url: string; headers: Record<string, string>; body: YandexEmbeddingBody } {
  const access = yandexAccess(conn);
  return {
    url: joinUrl(conn.baseUrl, 'foundationModels/v1/textEmbedding'),
    headers: access.headers,
    body: { modelUri: yandexModelUri('emb', access.folderId, yandexEmbeddingModel(model, purpose)), text },
  };
}

export function mapYandexEmbeddingResponse(body: unknown): { vector: Float32Array; tokens: number } {
  if (!isRecord(body) || !Array.isArray(body.embedding))
    throw new ProviderError('upstream', 'Upstream returned a textEmbedding body without an embedding');
  const values = asArray(body.embedding);
  if (values.length === 0 || !values.every((v) => typeof v === 'number' && Number.isFinite(v)))
    throw new ProviderError('upstream', 'Upstream embedding is not an array of numbers');
  return { vector: Float32Array.from(values as number[]), tokens: yandexCount(body.numTokens) };
}
