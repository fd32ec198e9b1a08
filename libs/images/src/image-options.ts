import { ApiError } from '@app/common';
import { ImageGenerationRequest, ImageOutputFormat, ModelEntry } from '@app/providers';

/** The request fields that the catalog constrains (already type-checked by the DTO). */
export interface ImageRequestFields {
  prompt: string;
  n?: number;
  size?: string;
  quality?: string;
  style?: 'vivid' | 'natural';
  background?: 'transparent' | 'opaque' | 'auto';
  output_format?: ImageOutputFormat;
  output_compression?: number;
  user?: string;
}

function oneOf(value: string, allowed: string[], param: string, model: string): void {
  if (!allowed.includes(value))
    throw ApiError.badRequest(
      `${param} "${value}" is not supported by ${model}; use one of: ${allowed.join(', ')}.`,
      param,
    );
}

/**
 * Checks a request against the model's catalog entry (sizes, qualities, n, prompt length, style,
 * output format) and fills the defaults. Throws 400 naming the parameter; never calls anything.
 */
export function resolveImageRequest(model: ModelEntry, dto: ImageRequestFields): ImageGenerationRequest {
  const s = model.image;
  if (!s) throw ApiError.badRequest(`${model.key} is not an image model.`, 'model');
  if (dto.prompt.trim() === '') throw ApiError.badRequest('prompt is required and must not be blank.', 'prompt');
  if (dto.prompt.length > s.max_prompt_chars)
    throw ApiError.badRequest(
      `prompt is ${dto.prompt.length} characters; ${model.key} accepts at most ${s.max_prompt_chars}.`,
      'prompt',
    );
  const n = dto.n ?? 1;
  if (n > s.max_n) throw ApiError.badRequest(`n must be at most ${s.max_n} for ${model.key}.`, 'n');
  const size = dto.size ?? s.default_size;
  oneOf(size, s.sizes, 'size', model.key);
  const quality = dto.quality ?? s.default_quality;
  oneOf(quality, s.qualities, 'quality', model.key);
  if (dto.style !== undefined) {
    if (s.styles.length === 0) throw ApiError.badRequest(`style is not supported by ${model.key}.`, 'style');
    oneOf(dto.style, s.styles, 'style', model.key);
  }
  const outputFormat = dto.output_format ?? 'png';
  oneOf(outputFormat, s.output_formats, 'output_format', model.key);
  if (dto.background === 'transparent' && outputFormat === 'jpeg')
    throw ApiError.badRequest('background "transparent" needs output_format png or webp.', 'background');
  if (dto.output_compression !== undefined && outputFormat === 'png')
    throw ApiError.badRequest('output_compression applies to jpeg and webp only.', 'output_compression');
  return {
    model: model.upstream_model,
    prompt: dto.prompt,
    n,
    size,
    quality,
    output_format: outputFormat,
    ...(dto.style !== undefined ? { style: dto.style } : {}),
    ...(dto.background !== undefined ? { background: dto.background } : {}),
    ...(dto.output_compression !== undefined ? { output_compression: dto.output_compression } : {}),
    ...(dto.user !== undefined ? { user: dto.user } : {}),
  };
}
