/** The yandex adapter family: chat over foundationModels/v1/completion and text-search embeddings. */
import { EmbeddingProvider, HttpChatProvider, JsonProviderCall } from '../chat-provider';
import { ModelEntry } from '../catalog/model-catalog';
import { ProviderHttpClient } from '../http/provider-http.client';
import type { ProviderAdapters } from '../provider-adapters';
import { CanonicalEmbeddingRequest, CanonicalEmbeddingResponse, ProviderConnection, ProviderError } from '../types';
import { buildYandexEmbeddingRequest, mapYandexEmbeddingResponse } from './yandex.embeddings';
import { mapYandexError } from './yandex.errors';
import { yandexAdapter } from './index';

/** textEmbedding takes one text per call: calls in flight at once per batch (Yandex's default quota is 10 per second). */
export const YANDEX_EMBEDDING_CONCURRENCY = 4;

export class YandexEmbeddingProvider extends JsonProviderCall implements EmbeddingProvider {
  constructor(
    conn: ProviderConnection,
    http: ProviderHttpClient,
    private readonly model: Pick<ModelEntry, 'dimensions'>,
  ) {
    super(conn, http, mapYandexError);
  }

  async embed(req: CanonicalEmbeddingRequest, signal?: AbortSignal): Promise<CanonicalEmbeddingResponse> {
    if (req.dimensions !== undefined && req.dimensions !== this.model.dimensions)
      throw new ProviderError(
        'invalid_request',
        `Yandex text-search embeddings have ${this.model.dimensions ?? 'fixed'} dimensions; other dimensions are not supported`,
        undefined,
        undefined,
        'dimensions',
      );
    const vectors = new Array<Float32Array>(req.input.length);
    let tokens = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < req.input.length) {
        const i = next++;
        const request = buildYandexEmbeddingRequest(req.input[i], req.model, req.purpose, this.conn);
        const answer = mapYandexEmbeddingResponse(await this.post(request, signal));
        vectors[i] = answer.vector;
        tokens += answer.tokens;
      }
    };
    await Promise.all(Array.from({ length: Math.min(YANDEX_EMBEDDING_CONCURRENCY, req.input.length) }, worker));
    return { vectors, prompt_tokens: tokens };
  }
}

export const yandexProvider: ProviderAdapters = {
  type: 'yandex',
  chat: (ctx) => new HttpChatProvider(yandexAdapter, ctx.connection(), ctx.http, ctx.clock),
  embeddings: (ctx, model) => new YandexEmbeddingProvider(ctx.connection(), ctx.http, model),
};
