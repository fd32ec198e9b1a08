/**
 * POST /v1/embeddings takes OpenAI's token-array inputs (an array of token ids, or an array of
 * token-id arrays — what LangChain's OpenAIEmbeddings sends by default): the ids (cl100k_base) are
 * read as their text, so the upstream gets the same text and the answer, usage and charge equal
 * those of the string input. Malformed token input is a 400 naming the item, before any upstream call.
 */
import OpenAI from 'openai';
import request from 'supertest';
import { getEncoding } from 'js-tiktoken';
import { fakeEmbedding, FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';

const cl100k = getEncoding('cl100k_base');
const TEXTS = ['The quick brown fox', 'jumps over the lazy dog'];

describe(`embeddings with token-array input (${backendKind()})`, () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({ env: openAiEnv(fake) });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100));
    client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 });
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('an array of token-id arrays: the upstream gets the texts; vectors, usage and cost equal the string input', async () => {
    const byTokens = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: TEXTS.map((s) => cl100k.encode(s)),
      encoding_format: 'float',
      dimensions: 8,
    });
    expect(fake.lastRequest?.body).toMatchObject({ input: TEXTS });
    expect(byTokens.data.map((d) => d.embedding)).toEqual(TEXTS.map((s) => Array.from(fakeEmbedding(s, 8))));
    const byText = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: TEXTS,
      encoding_format: 'float',
      dimensions: 8,
    });
    expect(byTokens.usage).toEqual(byText.usage);
    expect((byTokens as unknown as { cost: unknown }).cost).toEqual((byText as unknown as { cost: unknown }).cost);
  });

  it('one array of token ids is one input (local embedder too)', async () => {
    const res = await request(t.url)
      .post('/v1/embeddings')
      .set('Authorization', `Bearer ${apiKey}`)
      .send({ model: 'local-embedding-small', input: cl100k.encode(TEXTS[0]) });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    const text = await request(t.url)
      .post('/v1/embeddings')
      .set('Authorization', `Bearer ${apiKey}`)
      .send({ model: 'local-embedding-small', input: TEXTS[0] });
    expect(res.body.data[0].embedding).toEqual(text.body.data[0].embedding);
  });

  it('malformed token input: 400 naming the item, nothing sent upstream', async () => {
    for (const [input, param] of [
      [[[1, 2], []], 'input[1]'],
      [[[1, -2]], 'input[0][1]'],
      [[[1, 2.5]], 'input[0][1]'],
      [[[1, 2], 'text'], 'input[1]'],
      [['text', [1, 2]], 'input[1]'],
      [[[999_999_999]], 'input[0]'],
    ] as const) {
      const res = await request(t.url)
        .post('/v1/embeddings')
        .set('Authorization', `Bearer ${apiKey}`)
        .send({ model: 'text-embedding-3-small', input });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
    }
    expect(fake.requests).toHaveLength(0);
  });
});
