/** The openai adapter family: OpenAI and every OpenAI-compatible upstream (chat, embeddings, images). */
import { EmbeddingProvider, HttpChatProvider } from '../chat-provider';
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
export class OpenAiEmbeddingProvider implements EmbeddingProvider {
  constructor(
    private readonly conn: ProviderConnection,
    private readonly http: ProviderHttpClient,
  ) {}

  async embed(req: CanonicalEmbeddingRequest, signal?: AbortSignal): Promise<CanonicalEmbeddingResponse> {
    const { url, headers, body } = buildEmbeddingRequest(req, this.conn);
    const res = await this.http.postJson(url, headers, body, { timeoutMs: this.conn.timeoutMs, signal, mapError: mapOpenAiError });
    return mapEmbeddingResponse(res.json);
  }
}

/** OpenAI-compatible `POST /images/generations` (one call returns all n images). */
export class OpenAiImageProvider implements ImageProvider {
  constructor(
    private readonly conn: ProviderConnection,
    private readonly http: ProviderHttpClient,
  ) {}

  async generate(req: ImageGenerationRequest, signal?: AbortSignal): Promise<ImageGenerationResult> {
    const { url, headers, body } = buildOpenAiImageRequest(req, this.conn);
    const res = await this.http.postJson(url, headers, body, { timeoutMs: this.conn.timeoutMs, signal, mapError: mapOpenAiError });
    return mapOpenAiImageResponse(res.json, req);
  }
}

export const openaiProvider: ProviderAdapters = {
  type: 'openai',
  chat: (ctx) => new HttpChatProvider(openaiAdapter, ctx.connection(), ctx.http),
  embeddings: (ctx) => new OpenAiEmbeddingProvider(ctx.connection(), ctx.http),
  images: (ctx) => new OpenAiImageProvider(ctx.connection(), ctx.http),
};
