import { ImageGenerationRequest, ImageGenerationResult } from './image-types';

/**
 * One provider's image generation: canonical request in, canonical result out. Implementations
 * live in their family's folder (openai/openai.provider.ts, gemini/gemini.provider.ts,
 * local/local.providers.ts).
 */
export interface ImageProvider {
  generate(req: ImageGenerationRequest, signal?: AbortSignal): Promise<ImageGenerationResult>;
}
