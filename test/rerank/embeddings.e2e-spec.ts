/**
 * POST /v1/embeddings with the official `openai` SDK unchanged (default base64 decoding, float
 * format, `dimensions`), and POST /api/v1/embeddings (REST): exact vectors (the fake's), exact
 * provider-reported usage, exact cost at the catalog price, balance movement, validation errors.
 */
import OpenAI from 'openai';
import request from 'supertest';
import { fakeEmbedding, fakeTokenCount, FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import {
  costRub,
  embeddingCalls,
  errorBody,
  FAKE_OPENAI_KEY,
  lastLedgerEntry,
  openAiEnv,
  toMicro,
} from './rerank-helpers';

const TEXTS = ['The quick brown fox', 'jumps over the lazy dog near the river bank'];

describe(`embeddings endpoints (openai SDK) on ${backendKind()}`, () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let client: OpenAI;
  /** bodies the SDK sent to the gateway */
  const sent: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({ env: openAiEnv(fake) });
    admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(10, 'emb-team'));
    client = new OpenAI({
      apiKey,
      baseURL: `${t.url}/v1`,
      maxRetries: 0,
      fetch: async (url, init) => {
        if (typeof init?.body === 'string') sent.push(JSON.parse(init.body));
        return fetch(url, init);
      },
    });
  });
  afterEach(() => {
    fake.reset();
    sent.length = 0;
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('embeddings.create with defaults: the SDK asks for base64 and decodes exactly the fake’s float32 vectors', async () => {
    const before = await admin.balance(apiKey);
    const { data: res, response } = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: TEXTS })
      .withResponse();
    expect(sent).toEqual([{ model: 'text-embedding-3-small', input: TEXTS, encoding_format: 'base64' }]);
    expect(res.object).toBe('list');
    expect(res.model).toBe('text-embedding-3-small');
    expect(res.data.map((d) => d.index)).toEqual([0, 1]);
    expect(res.data[0].embedding).toHaveLength(1536);
    expect(res.data[0].embedding).toEqual(Array.from(fakeEmbedding(TEXTS[0], 1536)));
    expect(res.data[1].embedding).toEqual(Array.from(fakeEmbedding(TEXTS[1], 1536)));
    const tokens = fakeTokenCount(TEXTS[0]) + fakeTokenCount(TEXTS[1]);
    expect(tokens).toBe(13);
    expect(res.usage).toEqual({ prompt_tokens: 13, total_tokens: 13 });
    // upstream: one call, base64
    expect(embeddingCalls(fake)).toEqual([
      {
        model: 'text-embedding-3-small',
        input: TEXTS,
        encoding_format: 'base64',
        dimensions: undefined,
        auth: `Bearer ${FAKE_OPENAI_KEY}`,
      },
    ]);
    // catalog price 200 RUB / 1M tokens
    expect(response.headers.get('x-gateway-cost-rub')).toBe(String(costRub(13)));
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(13 * 200);
    expect(await lastLedgerEntry(t.url, apiKey)).toMatchObject({
      kind: 'charge',
      endpoint: '/v1/embeddings',
      model: 'text-embedding-3-small',
      prompt_tokens: 13,
      amount_rub: -costRub(13),
    });
  });

  it('float format and a string input', async () => {
    const res = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: TEXTS[1],
      encoding_format: 'float',
    });
    expect(sent[0]).toEqual({ model: 'text-embedding-3-small', input: TEXTS[1], encoding_format: 'float' });
    expect(res.data).toHaveLength(1);
    expect(res.data[0].embedding).toEqual(Array.from(fakeEmbedding(TEXTS[1], 1536)));
    expect(res.usage.prompt_tokens).toBe(9);
  });

  it('dimensions: passed upstream, vectors of that size (the fake’s prefix-normalised vector)', async () => {
    const res = await client.embeddings.create({ model: 'text-embedding-3-small', input: TEXTS, dimensions: 256 });
    expect(embeddingCalls(fake)[0]).toMatchObject({ dimensions: 256, encoding_format: 'base64' });
    expect(res.data.map((d) => d.embedding.length)).toEqual([256, 256]);
    expect(res.data[0].embedding).toEqual(Array.from(fakeEmbedding(TEXTS[0], 256)));
  });

  it('text-embedding-3-large: 3072 dimensions at 780 RUB per 1M tokens', async () => {
    const before = await admin.balance(apiKey);
    const { data: res, response } = await client.embeddings
      .create({ model: 'text-embedding-3-large', input: TEXTS[0] })
      .withResponse();
    expect(res.data[0].embedding).toEqual(Array.from(fakeEmbedding(TEXTS[0], 3072)));
    expect(response.headers.get('x-gateway-cost-rub')).toBe(String(costRub(4, 'large')));
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(4 * 780);
  });

  it('SDK errors: dimensions above the native size and an empty input are 400s naming the field', async () => {
    const tooBig = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: 'x', dimensions: 4096 })
      .catch((e: unknown) => e);
    expect(tooBig).toBeInstanceOf(OpenAI.BadRequestError);
    expect((tooBig as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('dimensions');
    const empty = await client.embeddings
      .create({ model: 'text-embedding-3-small', input: [] })
      .catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(OpenAI.BadRequestError);
    expect((empty as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('input');
    const unknown = await client.embeddings.create({ model: 'no-such-model', input: 'x' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.APIError);
    expect((unknown as InstanceType<typeof OpenAI.APIError>).status).toBe(404);
    expect(fake.requests).toHaveLength(0);
  });

  it('REST /api/v1/embeddings with the api-key header: same body, usage and cost', async () => {
    const before = await admin.balance(apiKey);
    const res = await request(t.url)
      .post('/api/v1/embeddings')
      .set('api-key', apiKey)
      .send({ model: 'text-embedding-3-small', input: TEXTS, encoding_format: 'base64', dimensions: 8 });
    expect(res.status).toBe(200);
    const decode = (b64: string) => Array.from(new Float32Array(new Uint8Array(Buffer.from(b64, 'base64')).buffer));
    expect(res.body).toEqual({
      object: 'list',
      data: TEXTS.map((text, index) => ({ object: 'embedding', index, embedding: expect.any(String) })),
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 13, total_tokens: 13 },
      cost: { total_cost_rub: costRub(13), currency: 'RUB' },
    });
    expect(decode(res.body.data[1].embedding)).toEqual(Array.from(fakeEmbedding(TEXTS[1], 8)));
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(13 * 200);

    // token arrays are taken (test/conformance/embeddings-token-input.e2e-spec.ts); an empty one is not
    const tokenArrays = await request(t.url)
      .post('/api/v1/embeddings')
      .set('api-key', apiKey)
      .send({ model: 'text-embedding-3-small', input: [[]] });
    expect(tokenArrays.status).toBe(400);
    expect(tokenArrays.body).toEqual(errorBody('invalid_request_error', 'input[0]'));
    const badFormat = await request(t.url)
      .post('/api/v1/embeddings')
      .set('api-key', apiKey)
      .send({ model: 'text-embedding-3-small', input: 'x', encoding_format: 'int8' });
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.error.param).toBe('encoding_format');
  });
});
