/** The gemini adapter family: chat over generateContent and the native image models. */
import { HttpChatProvider, JsonProviderCall } from '../chat-provider';
import { ProviderHttpClient } from '../http/provider-http.client';
import { ImageProvider } from '../images/image-providers';
import { ImageGenerationRequest, ImageGenerationResult } from '../images/image-types';
import type { ProviderAdapters } from '../provider-adapters';
import { ProviderConnection } from '../types';
import { mapGeminiError } from './gemini.errors';
import { buildGeminiImageRequest, combineGeminiImages, mapGeminiImageResponse } from './gemini.images';
import { geminiAdapter } from './index';

/** Gemini native image models: one generateContent call per image, run in parallel. */
export class GeminiImageProvider extends JsonProviderCall implements ImageProvider {
  constructor(conn: ProviderConnection, http: ProviderHttpClient) {
    super(conn, http, mapGeminiError);
  }

  async generate(req: ImageGenerationRequest, signal?: AbortSignal): Promise<ImageGenerationResult> {
    const request = buildGeminiImageRequest(req, this.conn);
    const answers = await Promise.all(
      Array.from({ length: req.n }, async () => mapGeminiImageResponse(await this.post(request, signal))),
    );
    return combineGeminiImages(answers, req);
  }
}

export const geminiProvider: ProviderAdapters = {
  type: 'gemini',
  chat: (ctx) => new HttpChatProvider(geminiAdapter, ctx.connection(), ctx.http, ctx.clock),
  images: (ctx) => new GeminiImageProvider(ctx.connection(), ctx.http),
};
