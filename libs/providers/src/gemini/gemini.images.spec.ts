import { ProviderError } from '../types';
import { readJsonFixture } from '../http/testing/fixtures';
import { buildGeminiImageRequest, combineGeminiImages, mapGeminiImageResponse } from './gemini.images';
import { ImageGenerationRequest } from '../images/image-types';

const conn = { apiKey: 'g', baseUrl: 'https://generativelanguage.googleapis.com', timeoutMs: 1 };
const req: ImageGenerationRequest = {
  model: 'gemini-2.5-flash-image',
  prompt: 'a fox',
  n: 2,
  size: '1344x768',
  quality: 'auto',
  output_format: 'png',
};

describe('buildGeminiImageRequest', () => {
  it('asks for image output with the aspect ratio of the size', () => {
    expect(buildGeminiImageRequest(req, conn)).toEqual({
      url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash-image:generateContent',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'g' },
      body: {
        contents: [{ role: 'user', parts: [{ text: 'a fox' }] }],
        generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '16:9' } },
      },
    });
  });
  it('auto size leaves the ratio to the model; unknown sizes are refused', () => {
    expect(buildGeminiImageRequest({ ...req, size: 'auto' }, conn).body.generationConfig).toEqual({
      responseModalities: ['IMAGE'],
    });
    expect(() => buildGeminiImageRequest({ ...req, size: '1000x1000' }, conn)).toThrow(ProviderError);
  });
});

describe('mapGeminiImageResponse', () => {
  it('reads the inline image, the text part and usage', () => {
    const one = mapGeminiImageResponse(readJsonFixture(__dirname, 'generate-content-image.json'));
    expect(one.mime).toBe('image/png');
    expect(Buffer.from(one.b64, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(one.text).toBe('Here is a red fox in snow.');
    expect(one.usage).toEqual({ text_input_tokens: 9, image_input_tokens: 0, output_tokens: 1290 });
    const combined = combineGeminiImages([one, one], req);
    expect(combined.images).toHaveLength(2);
    expect(combined.usage).toEqual({ text_input_tokens: 18, image_input_tokens: 0, output_tokens: 2580 });
    expect(combined.size).toBe('1344x768');
  });
  it('a safety block is a client error naming the prompt', () => {
    try {
      mapGeminiImageResponse(readJsonFixture(__dirname, 'generate-content-image-blocked.json'));
      throw new Error('expected a ProviderError');
    } catch (err) {
      expect(err).toBeInstanceOf(ProviderError);
      expect((err as ProviderError).kind).toBe('invalid_request');
      expect((err as ProviderError).param).toBe('prompt');
    }
  });
  it('usage is null when any call reported none', () => {
    const one = mapGeminiImageResponse(readJsonFixture(__dirname, 'generate-content-image.json'));
    expect(combineGeminiImages([one, { ...one, usage: null }], req).usage).toBeNull();
  });
});
