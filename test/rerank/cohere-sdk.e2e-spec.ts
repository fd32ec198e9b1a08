/**
 * POST /v1/rerank and /v2/rerank with the `cohere-ai` SDK pointed at the gateway (CohereClient and
 * CohereClientV2): result order, indices and relevance scores (cosines of the fake's vectors),
 * returned documents, billed units, and the shared cache and billing (a repeated call is a hit that
 * bills only the query).
 */
import { CohereClient, CohereClientV2, CohereError } from 'cohere-ai';
import request from 'supertest';
import { fakeTokenCount, FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import {
  cacheStats,
  costRub,
  DIMS,
  embeddingCalls,
  FAKE_OPENAI_KEY,
  lastLedgerEntry,
  openAiEnv,
  rawScore,
  round4,
  tokens,
  toMicro,
} from './rerank-helpers';

const QUERY = 'What is the capital of the United States?';
const DOCUMENTS = [
  'Carson City is the capital city of the American state of Nevada.',
  'The Commonwealth of the Northern Mariana Islands is a group of islands in the Pacific Ocean. Its capital is Saipan.',
  'Washington, D.C. (also known as simply Washington or D.C., and officially as the District of Columbia) is the capital of the United States. It is a federal district.',
  'Capital punishment has existed in the United States since before the United States was a country.',
];

/** Expected Cohere results: every document, best first (ties in input order), at most topN. */
function expectedResults(query: string, docs: string[], topN = docs.length, dims: number = DIMS.small) {
  return docs
    .map((text, index) => ({ index, score: rawScore(query, text, dims) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, topN);
}

describe(`Cohere-compatible rerank with the cohere-ai SDK on ${backendKind()}`, () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({ env: openAiEnv(fake) });
    admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(10, 'cohere-team'));
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('CohereClient.rerank (v1): order, indices, relevance scores, documents, billed units; then a cache hit', async () => {
    const cohere = new CohereClient({ token: apiKey, environment: t.url });
    const before = await admin.balance(apiKey);
    const res = await cohere.rerank({
      model: 'rerank-v3.5',
      query: QUERY,
      documents: DOCUMENTS,
      topN: 3,
      returnDocuments: true,
    });
    const expected = expectedResults(QUERY, DOCUMENTS, 3);
    expect(res.results).toEqual(
      expected.map((e) => ({
        index: e.index,
        relevanceScore: round4(e.score),
        document: { text: DOCUMENTS[e.index] },
      })),
    );
    // the Washington document is the best match
    // written out (cosines of the fake's bag-of-words vectors): the words shared with the query decide
    expect(res.results.map((r) => [r.index, r.relevanceScore])).toEqual([
      [3, 0.6348],
      [1, 0.625],
      [0, 0.5894],
    ]);
    const q = fakeTokenCount(QUERY);
    const d = tokens(DOCUMENTS);
    expect(res.meta?.billedUnits).toEqual({ searchUnits: 1, inputTokens: q + d });
    expect(typeof res.id).toBe('string');
    // same engine: query alone, documents in one call, small model
    expect(embeddingCalls(fake).map((c) => [c.model, c.input])).toEqual([
      ['text-embedding-3-small', [QUERY]],
      ['text-embedding-3-small', DOCUMENTS],
    ]);
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe((q + d) * 200);
    expect(await lastLedgerEntry(t.url, apiKey)).toMatchObject({
      endpoint: '/v1/rerank',
      model: 'rerank-small',
      prompt_tokens: q + d,
      amount_rub: -costRub(q + d),
    });

    // same documents again: served from the caller's cache, only the query is embedded and billed
    fake.reset();
    const again = await cohere.rerank({
      model: 'rerank-v3.5',
      query: QUERY,
      documents: DOCUMENTS.map((text) => ({ text })),
    });
    expect(again.results).toEqual(
      expectedResults(QUERY, DOCUMENTS).map((e) => ({ index: e.index, relevanceScore: round4(e.score) })),
    );
    expect(again.meta?.billedUnits?.inputTokens).toBe(q);
    expect(embeddingCalls(fake).map((c) => c.input)).toEqual([[QUERY]]);
    expect(await cacheStats(t.url, apiKey)).toMatchObject({ entries: 1, hits: 1, misses: 1, tokens_saved: d });
  });

  it('CohereClient.rerank without a model (optional in the v1 SDK) uses small', async () => {
    const cohere = new CohereClient({ token: apiKey, environment: t.url });
    const res = await cohere.rerank({ query: 'islands in the Pacific', documents: DOCUMENTS.slice(0, 2) });
    expect(res.results.map((r) => r.index)).toEqual(
      expectedResults('islands in the Pacific', DOCUMENTS.slice(0, 2)).map((e) => e.index),
    );
    expect(embeddingCalls(fake)[0].model).toBe('text-embedding-3-small');
  });

  it('CohereClientV2.rerank (v2): string documents, topN, a "large" model name', async () => {
    const cohere = new CohereClientV2({ token: apiKey, environment: t.url });
    const res = await cohere.rerank({ model: 'rerank-large', query: QUERY, documents: DOCUMENTS, topN: 2 });
    expect(res.results).toEqual(
      expectedResults(QUERY, DOCUMENTS, 2, DIMS.large).map((e) => ({
        index: e.index,
        relevanceScore: round4(e.score),
      })),
    );
    expect(embeddingCalls(fake).map((c) => [c.model, c.dimensions])).toEqual([
      ['text-embedding-3-large', 3072],
      ['text-embedding-3-large', 3072],
    ]);
    expect(res.meta?.billedUnits?.inputTokens).toBe(fakeTokenCount(QUERY) + tokens(DOCUMENTS));
  });

  it('SDK errors: a wrong key is 401, an empty document list is 400', async () => {
    const wrong = new CohereClient({ token: 'sk-not-a-key', environment: t.url });
    const err = await wrong
      .rerank({ model: 'rerank-v3.5', query: QUERY, documents: DOCUMENTS })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CohereError);
    expect((err as CohereError).statusCode).toBe(401);
    const cohere = new CohereClient({ token: apiKey, environment: t.url });
    const empty = await cohere.rerank({ model: 'rerank-v3.5', query: QUERY, documents: [] }).catch((e: unknown) => e);
    expect((empty as CohereError).statusCode).toBe(400);
    expect(fake.requests).toHaveLength(0);
  });

  it('raw /v1/rerank: Jina-style body, malformed documents named by index', async () => {
    const res = await request(t.url)
      .post('/v1/rerank')
      .set('authorization', `Bearer ${apiKey}`)
      .send({
        model: 'jina-reranker-v2',
        query: QUERY,
        documents: DOCUMENTS.slice(2),
        top_n: 1,
        return_documents: true,
      });
    expect(res.status).toBe(200);
    expect(expectedResults(QUERY, DOCUMENTS.slice(2))[0].index).toBe(1);
    expect(res.body).toEqual({
      id: res.headers['x-request-id'],
      model: 'jina-reranker-v2',
      results: [{ index: 1, relevance_score: 0.6348, document: { text: DOCUMENTS[3] } }],
      meta: {
        api_version: { version: '1' },
        billed_units: { search_units: 1, input_tokens: fakeTokenCount(QUERY) + tokens(DOCUMENTS.slice(2)) },
      },
      usage: { total_tokens: fakeTokenCount(QUERY) + tokens(DOCUMENTS.slice(2)) },
      // the gateway's cost extension: what the ledger charged
      cost: { total_cost_rub: costRub(fakeTokenCount(QUERY) + tokens(DOCUMENTS.slice(2))), currency: 'RUB' },
    });
    expect(res.headers['x-gateway-cost-rub']).toBe(String(costRub(fakeTokenCount(QUERY) + tokens(DOCUMENTS.slice(2)))));
    fake.reset();
    const bad = await request(t.url)
      .post('/v1/rerank')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ query: QUERY, documents: ['ok', { title: 'no text' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('documents[1]');
    expect(fake.requests).toHaveLength(0);
  });
});
