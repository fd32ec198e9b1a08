/** The openai adapter family: OpenAI and every OpenAI-compatible upstream (chat, embeddings, images). */
import { EmbeddingProvider, HttpChatProvider, JsonProviderCall } from '../chat-provider';
import { ProviderHttpClient } from '../http/provider-http.client';
import { ImageProvider } from '../images/image-providers';
import { ImageGenerationRequest, ImageGenerationResult } from '../images/image-types';
import type { ProviderAdapters } from '../provider-adapters';
import { CanonicalEmbeddingRequest, CanonicalEmbeddingResponse, ProviderConnection } from '../types';
import { buildEmbeddingRequest, mapEmbeddingResponse } from './openai.embeddings';
import { mapOpenAiError } from './openai.errors';
import { buildOpenAiImageRequest, mapOpenAiImageResponse } from './openai.images';
import { openaiAdapter } from './index';

/** `POST {baseUrl}/embeddings`. */
export class OpenAiEmbeddingProvider extends JsonProviderCall implements EmbeddingProvider {
  constructor(conn: ProviderConnection, http: ProviderHttpClient) {
    super(conn, http, mapOpenAiError);
  }

  async embed(req: CanonicalEmbeddingRequest, signal?: AbortSignal): Promise<CanonicalEmbeddingResponse> {
    return mapEmbeddingResponse(await this.post(buildEmbeddingRequest(req, this.conn), signal));
  }
}

/** OpenAI-compatible `POST /images/generations` (one call returns all n images). */
export class OpenAiImageProvider extends JsonProviderCall implements ImageProvider {
  constructor(conn: ProviderConnection, http: ProviderHttpClient) {
    super(conn, http, mapOpenAiError);
  }

  async generate(req: ImageGenerationRequest, signal?: AbortSignal): Promise<ImageGenerationResult> {
    return mapOpenAiImageResponse(await this.post(buildOpenAiImageRequest(req, this.conn), signal), req);
  }
}

export const openaiProvider: ProviderAdapters = {
  type: 'openai',
  chat: (ctx) => new HttpChatProvider(openaiAdapter, ctx.connection(), ctx.http, ctx.clock),
  embeddings: (ctx) => new OpenAiEmbeddingProvider(ctx.connection(), ctx.http),
  images: (ctx) => new OpenAiImageProvider(ctx.connection(), ctx.http),
};
