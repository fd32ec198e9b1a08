/** Image generation over OpenAI-compatible `POST {baseUrl}/images/generations` (gpt-image-1, dall-e-3). */
import { ImageGenerationRequest, ImageGenerationResult, OUTPUT_MIME, ImageOutputFormat } from '../images/image-types';
import { ProviderConnection, ProviderError } from '../types';
import { joinUrl } from '../http/urls';
import { asArray, asCount, asRecord, isRecord } from '../http/wire-json';
import { openAiHeaders, UpstreamHttpRequest } from './openai.request';

export interface OpenAiImageBody {
  model: string;
  prompt: string;
  n: number;
  size?: string;
  quality?: string;
  style?: string;
  background?: string;
  output_format?: string;
  output_compression?: number;
  response_format?: 'b64_json';
  user?: string;
}

/** DALL·E models take `response_format` and `style`; the GPT image models always answer base64 and take output_format/background. */
export function isDallE(model: string): boolean {
  return /^dall-e/i.test(model);
}

export function buildOpenAiImageBody(req: ImageGenerationRequest): OpenAiImageBody {
  const body: OpenAiImageBody = { model: req.model, prompt: req.prompt, n: req.n };
  if (req.size !== 'auto') body.size = req.size;
  if (req.quality !== 'auto') body.quality = req.quality;
  if (req.user !== undefined) body.user = req.user;
  if (isDallE(req.model)) {
    // the gateway stores images and serves its own signed URLs, so it always asks for bytes
    body.response_format = 'b64_json';
    if (req.style) body.style = req.style;
  } else {
    body.output_format = req.output_format;
    if (req.background) body.background = req.background;
    if (req.output_compression !== undefined && req.output_format !== 'png')
      body.output_compression = req.output_compression;
  }
  return body;
}

export function buildOpenAiImageRequest(req: ImageGenerationRequest, conn: ProviderConnection): UpstreamHttpRequest {
  return {
    url: joinUrl(conn.baseUrl, 'images/generations'),
    headers: openAiHeaders(conn),
    body: buildOpenAiImageBody(req),
  };
}

function outputFormat(raw: unknown, fallback: ImageOutputFormat): ImageOutputFormat {
  return raw === 'png' || raw === 'jpeg' || raw === 'webp' ? raw : fallback;
}

export function mapOpenAiImageResponse(body: unknown, req: ImageGenerationRequest): ImageGenerationResult {
  if (!isRecord(body) || !Array.isArray(body.data))
    throw new ProviderError('upstream', 'Upstream returned an images body without data');
  const format = outputFormat(body.output_format, isDallE(req.model) ? 'png' : req.output_format);
  const images = asArray(body.data).map((raw) => {
    const item = asRecord(raw);
    if (!item || typeof item.b64_json !== 'string' || item.b64_json === '')
      throw new ProviderError('upstream', 'Upstream returned an image without b64_json data');
    return {
      b64: item.b64_json,
      mime: OUTPUT_MIME[format],
      ...(typeof item.revised_prompt === 'string' ? { revised_prompt: item.revised_prompt } : {}),
    };
  });
  if (images.length === 0) throw new ProviderError('upstream', 'Upstream returned no images');
  const usage = asRecord(body.usage);
  const details = asRecord(usage?.input_tokens_details);
  return {
    images,
    usage: usage
      ? {
          text_input_tokens: details ? asCount(details.text_tokens) : asCount(usage.input_tokens),
          image_input_tokens: details ? asCount(details.image_tokens) : 0,
          output_tokens: asCount(usage.output_tokens),
        }
      : null,
    size: typeof body.size === 'string' ? body.size : req.size,
    quality: typeof body.quality === 'string' ? body.quality : req.quality,
    output_format: format,
  };
}
