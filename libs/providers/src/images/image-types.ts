/**
 * Canonical image-generation types inside the gateway (the OpenAI images API's vocabulary).
 * Provider adapters map this request to their wire format and their answer back to
 * `ImageGenerationResult`. Nothing in here is provider specific.
 */

export type ImageOutputFormat = 'png' | 'jpeg' | 'webp';

export interface ImageGenerationRequest {
  /** upstream model id (catalog entry's `upstream_model`) */
  model: string;
  prompt: string;
  n: number;
  /** "WIDTHxHEIGHT" or "auto" (resolved by the provider) */
  size: string;
  /** low | medium | high | standard | hd | auto */
  quality: string;
  style?: 'vivid' | 'natural';
  background?: 'transparent' | 'opaque' | 'auto';
  output_format: ImageOutputFormat;
  output_compression?: number;
  user?: string;
}

export interface GeneratedImage {
  /** raw image bytes, base64 */
  b64: string;
  mime: string;
  revised_prompt?: string;
}

/** Token usage as image providers report it (absent → the per-image price applies). */
export interface ImageUsage {
  text_input_tokens: number;
  image_input_tokens: number;
  output_tokens: number;
}

export interface ImageGenerationResult {
  images: GeneratedImage[];
  usage: ImageUsage | null;
  /** size / quality the provider actually used ("auto" resolved when it says so) */
  size: string;
  quality: string;
  output_format: ImageOutputFormat;
}

export const OUTPUT_MIME: Record<ImageOutputFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
};

/** "1024x1536" → {width: 1024, height: 1536}; null when not of that form */
export function parseSize(size: string): { width: number; height: number } | null {
  const m = /^(\d{2,5})x(\d{2,5})$/.exec(size);
  if (!m) return null;
  return { width: Number(m[1]), height: Number(m[2]) };
}
