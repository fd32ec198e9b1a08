import { buildGeminiImageRequest, combineGeminiImages, mapGeminiImageResponse } from '../gemini/gemini.images';
import { mapGeminiError } from '../gemini/gemini.errors';
import { ProviderHttpClient } from '../http/provider-http.client';
import { generateLocalImages } from '../local/local-image';
import { buildOpenAiImageRequest, mapOpenAiImageResponse } from '../openai/openai.images';
import { mapOpenAiError } from '../openai/openai.errors';
import { ProviderConnection } from '../types';
import { ImageGenerationRequest, ImageGenerationResult } from './image-types';

/** One provider's image generation: canonical request in, canonical result out. */
export interface ImageProvider {
  generate(req: ImageGenerationRequest, signal?: AbortSignal): Promise<ImageGenerationResult>;
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

/** Gemini native image models: one generateContent call per image, run in parallel. */
export class GeminiImageProvider implements ImageProvider {
  constructor(
    private readonly conn: ProviderConnection,
    private readonly http: ProviderHttpClient,
  ) {}

  async generate(req: ImageGenerationRequest, signal?: AbortSignal): Promise<ImageGenerationResult> {
    const { url, headers, body } = buildGeminiImageRequest(req, this.conn);
    const answers = await Promise.all(
      Array.from({ length: req.n }, async () => {
        const res = await this.http.postJson(url, headers, body, { timeoutMs: this.conn.timeoutMs, signal, mapError: mapGeminiError });
        return mapGeminiImageResponse(res.json);
      }),
    );
    return combineGeminiImages(answers, req);
  }
}

/** The offline procedural generator (see local-image.ts: a placeholder pattern, not a model). */
export class LocalImageProvider implements ImageProvider {
  generate(req: ImageGenerationRequest): Promise<ImageGenerationResult> {
    return Promise.resolve(generateLocalImages(req));
  }
}
