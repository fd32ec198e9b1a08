import { ProviderError } from '../types';
import { readJsonFixture } from '../http/testing/fixtures';
import { buildEmbeddingRequest, decodeBase64Float32, mapEmbeddingResponse } from './openai.embeddings';

const vector0 = [0.012299999594688416, -0.5, 0.25, 1, -0.0009765625, 0.75, -1.5, 0.10000000149011612];
const vector1 = [-0.20000000298023224, 0.30000001192092896, 0, 0.5, 0.125, -0.875, 0.0625, 2];

describe('buildEmbeddingRequest', () => {
  it('asks for base64 vectors and passes dimensions', () => {
    expect(
      buildEmbeddingRequest(
        { model: 'text-embedding-3-small', input: ['a', 'b'], dimensions: 8 },
        { apiKey: 'k', baseUrl: 'https://api.openai.com/v1', timeoutMs: 1 },
      ),
    ).toEqual({
      url: 'https://api.openai.com/v1/embeddings',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: { model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'base64', dimensions: 8 },
    });
  });

  it('omits dimensions when not given', () => {
    expect(
      buildEmbeddingRequest({ model: 'm', input: ['a'] }, { apiKey: 'k', baseUrl: 'http://h/v1', timeoutMs: 1 }).body,
    ).toEqual({ model: 'm', input: ['a'], encoding_format: 'base64' });
  });
});

describe('mapEmbeddingResponse', () => {
  it('decodes base64 little-endian float32 vectors and orders them by index', () => {
    const result = mapEmbeddingResponse(readJsonFixture(__dirname, 'embeddings-base64.json'));
    expect(result.prompt_tokens).toBe(12);
    expect(result.vectors.map((v) => v instanceof Float32Array)).toEqual([true, true]);
    expect(result.vectors.map((v) => Array.from(v))).toEqual([vector0, vector1]);
  });

  it('accepts float arrays too', () => {
    const result = mapEmbeddingResponse(readJsonFixture(__dirname, 'embeddings-float.json'));
    expect(result.vectors.map((v) => Array.from(v))).toEqual([vector0, vector1]);
    expect(result.vectors[0]).toBeInstanceOf(Float32Array);
  });

  it('decodes from an unaligned buffer offset', () => {
    expect(Array.from(decodeBase64Float32('AACAPwAAAMA='))).toEqual([1, -2]);
  });

  it('rejects malformed bodies with ProviderError(upstream)', () => {
    expect(() => mapEmbeddingResponse({})).toThrow(
      new ProviderError('upstream', 'Upstream returned an embeddings body without data'),
    );
    expect(() => mapEmbeddingResponse({ data: [{ index: 0, embedding: 'AAA' }] })).toThrow(ProviderError);
    expect(() => mapEmbeddingResponse({ data: [{ index: 0, embedding: { x: 1 } }] })).toThrow(
      new ProviderError('upstream', 'Upstream embedding is neither base64 nor a number array'),
    );
  });
});
