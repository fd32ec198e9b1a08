/**
 * Image generation over the Gemini API's native image models (gemini-2.5-flash-image …):
 * `generateContent` with `responseModalities: ["IMAGE"]` and `imageConfig.aspectRatio`.
 * One call yields one image, so `n` images are `n` calls (the service runs them in parallel);
 * usage is summed over the calls.
 */
import { ImageGenerationRequest, ImageGenerationResult, ImageUsage } from '../images/image-types';
import { ProviderConnection, ProviderError } from '../types';
import { asArray, asCount, asRecord, isRecord } from '../http/wire-json';
import { geminiChatUrl } from './gemini.request';

/** Gemini's image sizes per aspect ratio (gemini-2.5-flash-image documentation). */
export const GEMINI_ASPECT_BY_SIZE: Record<string, string> = {
  '1024x1024': '1:1',
  '832x1248': '2:3',
  '1248x832': '3:2',
  '864x1184': '3:4',
  '1184x864': '4:3',
  '896x1152': '4:5',
  '1152x896': '5:4',
  '768x1344': '9:16',
  '1344x768': '16:9',
  '1536x672': '21:9',
};

export interface GeminiImageBody {
  contents: { role: 'user'; parts: { text: string }[] }[];
  generationConfig: { responseModalities: ['IMAGE']; imageConfig?: { aspectRatio: string } };
}

export function buildGeminiImageBody(req: ImageGenerationRequest): GeminiImageBody {
  const aspectRatio = req.size === 'auto' ? undefined : GEMINI_ASPECT_BY_SIZE[req.size];
  if (req.size !== 'auto' && !aspectRatio)
    throw new ProviderError(
      'invalid_request',
      `size ${req.size} is not available for ${req.model}`,
      undefined,
      undefined,
      'size',
    );
  return {
    contents: [{ role: 'user', parts: [{ text: req.prompt }] }],
    generationConfig: { responseModalities: ['IMAGE'], ...(aspectRatio ? { imageConfig: { aspectRatio } } : {}) },
  };
}

export function buildGeminiImageRequest(
  req: ImageGenerationRequest,
  conn: ProviderConnection,
): { url: string; headers: Record<string, string>; body: GeminiImageBody } {
  return {
    url: geminiChatUrl(conn.baseUrl, req.model, false),
    headers: { 'content-type': 'application/json', 'x-goog-api-key': conn.apiKey },
    body: buildGeminiImageBody(req),
  };
}

/** One generateContent answer → its image (inlineData) and usage. */
export function mapGeminiImageResponse(body: unknown): {
  b64: string;
  mime: string;
  text?: string;
  usage: ImageUsage | null;
} {
  if (!isRecord(body)) throw new ProviderError('upstream', 'Upstream returned a malformed generateContent body');
  const candidate = asRecord(asArray(body.candidates)[0]);
  const parts = asArray(asRecord(candidate?.content)?.parts).map(asRecord);
  const image = parts.find((p) => asRecord(p?.inlineData) && typeof asRecord(p?.inlineData)?.data === 'string');
  if (!image) {
    const reason =
      typeof candidate?.finishReason === 'string' ? candidate.finishReason : asRecord(body.promptFeedback)?.blockReason;
    if (reason === 'SAFETY' || reason === 'PROHIBITED_CONTENT' || reason === 'IMAGE_SAFETY' || reason === 'BLOCKLIST') {
      throw new ProviderError(
        'invalid_request',
        `The provider refused to generate this image (${String(reason)})`,
        undefined,
        undefined,
        'prompt',
      );
    }
    throw new ProviderError('upstream', 'Upstream answered without an image');
  }
  const inline = asRecord(image!.inlineData)!;
  const text = parts
    .map((p) => (typeof p?.text === 'string' && p.thought !== true ? p.text : ''))
    .join('')
    .trim();
  const meta = asRecord(body.usageMetadata);
  let usage: ImageUsage | null = null;
  if (meta) {
    const promptDetails = asArray(meta.promptTokensDetails).map(asRecord);
    const imageIn = promptDetails
      .filter((d) => d?.modality === 'IMAGE')
      .reduce((s, d) => s + asCount(d?.tokenCount), 0);
    const promptTokens = asCount(meta.promptTokenCount);
    usage = {
      text_input_tokens: Math.max(0, promptTokens - imageIn),
      image_input_tokens: imageIn,
      output_tokens: asCount(meta.candidatesTokenCount) + asCount(meta.thoughtsTokenCount),
    };
  }
  return {
    b64: inline.data as string,
    mime: typeof inline.mimeType === 'string' ? inline.mimeType : 'image/png',
    ...(text ? { text } : {}),
    usage,
  };
}

/** Combine the n single-image answers into one canonical result. */
export function combineGeminiImages(
  answers: ReturnType<typeof mapGeminiImageResponse>[],
  req: ImageGenerationRequest,
): ImageGenerationResult {
  const withUsage = answers.filter((a) => a.usage);
  const usage =
    withUsage.length === answers.length && answers.length > 0
      ? withUsage.reduce<ImageUsage>(
          (s, a) => ({
            text_input_tokens: s.text_input_tokens + a.usage!.text_input_tokens,
            image_input_tokens: s.image_input_tokens + a.usage!.image_input_tokens,
            output_tokens: s.output_tokens + a.usage!.output_tokens,
          }),
          { text_input_tokens: 0, image_input_tokens: 0, output_tokens: 0 },
        )
      : null;
  const format = answers[0]?.mime === 'image/jpeg' ? 'jpeg' : answers[0]?.mime === 'image/webp' ? 'webp' : 'png';
  return {
    images: answers.map((a) => ({ b64: a.b64, mime: a.mime, ...(a.text ? { revised_prompt: a.text } : {}) })),
    usage,
    size: req.size === 'auto' ? '1024x1024' : req.size,
    quality: req.quality,
    output_format: format,
  };
}
