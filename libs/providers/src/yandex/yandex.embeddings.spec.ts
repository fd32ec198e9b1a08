import { ProviderConnection } from '../types';
import { readJsonFixture, thrownFields } from '../http/testing/fixtures';
import { buildYandexEmbeddingRequest, mapYandexEmbeddingResponse } from './yandex.embeddings';

const conn = {
  apiKey: 'AQVN-key',
  baseUrl: 'https://llm.api.cloud.yandex.net',
  timeoutMs: 1000,
  extra: { FOLDER_ID: 'b1gfolder' },
} as ProviderConnection;

describe('Yandex text embeddings', () => {
  it('documents go to text-search-doc, queries to text-search-query, one text per call', () => {
    const doc = buildYandexEmbeddingRequest('Глава 1', 'text-search', 'document', conn);
    expect(doc.url).toBe('https://llm.api.cloud.yandex.net/foundationModels/v1/textEmbedding');
    expect(doc.headers).toMatchObject({ authorization: 'Api-Key AQVN-key', 'x-folder-id': 'b1gfolder' });
    expect(doc.body).toEqual({ modelUri: 'emb://b1gfolder/text-search-doc/latest', text: 'Глава 1' });
    expect(buildYandexEmbeddingRequest('что?', 'text-search', 'query', conn).body.modelUri).toBe(
      'emb://b1gfolder/text-search-query/latest',
    );
    expect(buildYandexEmbeddingRequest('x', 'text-search', undefined, conn).body.modelUri).toBe(
      'emb://b1gfolder/text-search-doc/latest',
    );
    expect(buildYandexEmbeddingRequest('x', 'emb://f/custom/latest', 'query', conn).body.modelUri).toBe(
      'emb://f/custom/latest',
    );
  });

  it('reads the vector and the string-typed token count', () => {
    const out = mapYandexEmbeddingResponse(readJsonFixture(__dirname, 'embedding-doc.json'));
    expect(Array.from(out.vector)).toEqual(
      Array.from(Float32Array.from([0.0381, -0.0127, 0.0943, -0.0502, 0.0116, 0.0778, -0.0219, 0.0045])),
    );
    expect(out.tokens).toBe(6);
    expect(thrownFields(() => mapYandexEmbeddingResponse({ embedding: ['x'] }))).toMatchObject({ kind: 'upstream' });
  });
});
