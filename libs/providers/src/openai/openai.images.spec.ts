import { ProviderError } from '../types';
import { readJsonFixture } from '../http/testing/fixtures';
import { buildOpenAiImageRequest, mapOpenAiImageResponse } from './openai.images';
import { ImageGenerationRequest } from '../images/image-types';

const conn = { apiKey: 'k', baseUrl: 'https://api.openai.com/v1', timeoutMs: 1 };
const gpt: ImageGenerationRequest = {
  model: 'gpt-image-1',
  prompt: 'a fox',
  n: 2,
  size: '1024x1024',
  quality: 'low',
  output_format: 'png',
  background: 'opaque',
  user: 'u1',
};
const dalle: ImageGenerationRequest = {
  model: 'dall-e-3',
  prompt: 'a fox',
  n: 1,
  size: '1024x1792',
  quality: 'hd',
  style: 'natural',
  output_format: 'png',
};

describe('buildOpenAiImageRequest', () => {
  it('gpt-image-1: output_format/background, never response_format', () => {
    expect(buildOpenAiImageRequest(gpt, conn)).toEqual({
      url: 'https://api.openai.com/v1/images/generations',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: {
        model: 'gpt-image-1',
        prompt: 'a fox',
        n: 2,
        size: '1024x1024',
        quality: 'low',
        output_format: 'png',
        background: 'opaque',
        user: 'u1',
      },
    });
  });
  it('gpt-image-1: compression only for lossy formats, auto size/quality left to the provider', () => {
    const body = buildOpenAiImageRequest(
      { ...gpt, size: 'auto', quality: 'auto', output_format: 'webp', output_compression: 60 },
      conn,
    ).body;
    expect(body).toEqual({
      model: 'gpt-image-1',
      prompt: 'a fox',
      n: 2,
      output_format: 'webp',
      output_compression: 60,
      background: 'opaque',
      user: 'u1',
    });
    expect(buildOpenAiImageRequest({ ...gpt, output_compression: 60 }, conn).body).not.toHaveProperty(
      'output_compression',
    );
  });
  it('dall-e-3: asks for b64_json and passes style', () => {
    expect(buildOpenAiImageRequest(dalle, conn).body).toEqual({
      model: 'dall-e-3',
      prompt: 'a fox',
      n: 1,
      size: '1024x1792',
      quality: 'hd',
      style: 'natural',
      response_format: 'b64_json',
    });
  });
});

describe('mapOpenAiImageResponse', () => {
  it('gpt-image-1 answer: images and token usage split by modality', () => {
    const out = mapOpenAiImageResponse(readJsonFixture(__dirname, 'images-gpt-image-1.json'), gpt);
    expect(out.images).toHaveLength(2);
    expect(Buffer.from(out.images[0].b64, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(out.images[0].mime).toBe('image/png');
    expect(out.usage).toEqual({ text_input_tokens: 12, image_input_tokens: 0, output_tokens: 544 });
    expect([out.size, out.quality, out.output_format]).toEqual(['1024x1024', 'low', 'png']);
  });
  it('dall-e-3 answer: revised prompt kept, no usage (per-image price applies)', () => {
    const out = mapOpenAiImageResponse(readJsonFixture(__dirname, 'images-dall-e-3.json'), dalle);
    expect(out.images[0].revised_prompt).toMatch(/red fox/);
    expect(out.usage).toBeNull();
    expect([out.size, out.quality]).toEqual(['1024x1792', 'hd']);
  });
  it('rejects bodies without image data', () => {
    expect(() => mapOpenAiImageResponse({ data: [{ url: 'https://x' }] }, gpt)).toThrow(ProviderError);
    expect(() => mapOpenAiImageResponse({ data: [] }, gpt)).toThrow('no images');
    expect(() => mapOpenAiImageResponse({ error: {} }, gpt)).toThrow(ProviderError);
  });
});
