/**
 * YandexGPT through every front door, against the fake Foundation Models API: the official `openai`
 * SDK (/v1/chat/completions, stream and not, a tools round trip; /v1/responses; /v1/embeddings),
 * the official Anthropic SDK (/v1/messages, tools round trip, stream), REST /api/v1/chat with a
 * project and a knowledge base built on yandex-embeddings (documents embedded with text-search-doc,
 * the question with text-search-query), the error contract, and an IAM-token configuration.
 * Each charge equals the reported tokens × the catalog's RUB price.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import request from 'supertest';
import { FakeYandex, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { CostRub, Pricing, Wallet, charges, eventually, expectedCost, toMicro } from './chat-helpers';

const FOLDER = 'b1gtestfolder';
const KEY = 'AQVN-yandex-fake-key';
/** models.json, written out: a catalog change must be a visible test change */
const YANDEXGPT: Pricing = { input: 1200, output: 1200, cacheRead: null, cacheWrite: null, image: null };
const EMBEDDING_RUB_PER_1M = 10;
const WEATHER: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

const yandexEnv = (fake: FakeYandex, credential: Record<string, string>): Record<string, string> => ({
  YANDEX_BASE_URL: fake.baseUrl,
  YANDEX_FOLDER_ID: FOLDER,
  YANDEX_MAX_RETRIES: '0',
  INGEST_POLL_MS: '100',
  ...credential,
});

function costOf(value: object): CostRub | undefined {
  return (value as { cost?: CostRub }).cost;
}

describe(`YandexGPT through every front door (${backendKind()})`, () => {
  let yandex: FakeYandex;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let client: OpenAI;
  let wallet: Wallet;

  beforeAll(async () => {
    yandex = await FakeYandex.start({ apiKey: KEY, folderId: FOLDER });
    t = await createTestApp({ env: yandexEnv(yandex, { YANDEX_API_KEY: KEY }) });
    admin = new AdminClient(t.url);
  });

  beforeEach(async () => {
    ({ apiKey } = await admin.teamWithKey(100));
    client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 });
    wallet = await new Wallet(t.url, apiKey).snapshot();
  });

  afterEach(() => yandex.reset());

  afterAll(async () => {
    await t?.close();
    await yandex?.close();
  });

  it('/v1/models: the Yandex models are available, in the ru jurisdiction', async () => {
    const res = await request(t.url).get('/v1/models').set('authorization', `Bearer ${apiKey}`);
    const byId = new Map((res.body.data as { id: string }[]).map((m) => [m.id, m]));
    for (const id of ['yandexgpt', 'yandexgpt-lite', 'yandex-embeddings'])
      expect(byId.get(id)).toMatchObject({ available: true, jurisdiction: 'ru' });
  });

  it('chat completions, non-stream: the native request (Api-Key, folder, model URI, maxTokens as a string); string usage billed exactly', async () => {
    yandex.enqueue({ text: 'Привет! Чем могу помочь?', usage: { input: 19, output: 7 } });
    const { data, response } = await client.chat.completions
      .create({
        model: 'yandexgpt',
        messages: [
          { role: 'system', content: 'Отвечай кратко.' },
          { role: 'user', content: 'Привет' },
        ],
        max_tokens: 100,
        temperature: 0.3,
      })
      .withResponse();
    expect(data.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Привет! Чем могу помочь?' },
    });
    expect(data.usage).toMatchObject({ prompt_tokens: 19, completion_tokens: 7, total_tokens: 26 });
    const sent = yandex.lastRequest!;
    expect(sent.path).toBe('/foundationModels/v1/completion');
    expect(sent.headers.authorization).toBe(`Api-Key ${KEY}`);
    expect(sent.headers['x-folder-id']).toBe(FOLDER);
    expect(sent.body).toEqual({
      modelUri: `gpt://${FOLDER}/yandexgpt/latest`,
      completionOptions: { stream: false, temperature: 0.3, maxTokens: '100' },
      messages: [
        { role: 'system', text: 'Отвечай кратко.' },
        { role: 'user', text: 'Привет' },
      ],
    });
    const cost = expectedCost(YANDEXGPT, { prompt: 19, completion: 7 });
    expect(cost.total_cost_rub).toBe(0.0312); // 26 tokens × 1200 RUB / 1M
    expect(costOf(data)).toEqual(cost);
    expect(response.headers.get('x-gateway-cost-rub')).toBe('0.0312');
    await wallet.expectCharged(0.0312, { model: 'yandexgpt', promptTokens: 19, completionTokens: 7 });
  });

  it('chat completions, stream: cumulative NDJSON lines become deltas of new text only; usage chunk; billed once', async () => {
    const text = 'Яндекс присылает весь текст целиком в каждой строке.';
    yandex.enqueue({ text, chunkSize: 6, usage: { input: 12, output: 9 } });
    const stream = await client.chat.completions.create({
      model: 'yandexgpt-lite',
      messages: [{ role: 'user', content: 'stream' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    const deltas = chunks.map((c) => c.choices[0]?.delta.content ?? '').filter((d) => d !== '');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(text);
    expect(deltas.every((d) => d.length <= 6)).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 9 });
    expect(yandex.lastRequest?.body).toMatchObject({
      modelUri: `gpt://${FOLDER}/yandexgpt-lite/latest`,
      completionOptions: { stream: true },
    });
    const cost = expectedCost({ ...YANDEXGPT, input: 200, output: 200 }, { prompt: 12, completion: 9 });
    await wallet.expectCharged(cost.total_cost_rub, { model: 'yandexgpt-lite', promptTokens: 12 });
  });

  it('tools round trip: tools → function tools, toolCallList → tool_calls, the tool result → a toolResultList', async () => {
    yandex.enqueue(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Москва' } }], usage: { input: 40, output: 10 } },
      { text: 'В Москве −3 °C.', usage: { input: 60, output: 6 } },
    );
    const first = await client.chat.completions.create({
      model: 'yandexgpt',
      messages: [{ role: 'user', content: 'Погода в Москве?' }],
      tools: [WEATHER],
      tool_choice: 'auto',
    });
    const call = first.choices[0].message.tool_calls![0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Москва"}' } });
    expect(yandex.lastRequest?.body).toMatchObject({
      tools: [{ function: { name: 'get_weather', description: 'Current weather for a city' } }],
      toolChoice: { mode: 'AUTO' },
    });
    const second = await client.chat.completions.create({
      model: 'yandexgpt',
      messages: [
        { role: 'user', content: 'Погода в Москве?' },
        first.choices[0].message,
        { role: 'tool', tool_call_id: call.id, content: '{"temp": -3}' },
      ],
      tools: [WEATHER],
    });
    expect(second.choices[0].message.content).toBe('В Москве −3 °C.');
    expect(yandex.lastRequest?.body.messages).toEqual([
      { role: 'user', text: 'Погода в Москве?' },
      {
        role: 'assistant',
        toolCallList: { toolCalls: [{ functionCall: { name: 'get_weather', arguments: { city: 'Москва' } } }] },
      },
      {
        role: 'user',
        toolResultList: { toolResults: [{ functionResult: { name: 'get_weather', content: '{"temp": -3}' } }] },
      },
    ]);
    await wallet.expectChargedEach([
      expectedCost(YANDEXGPT, { prompt: 40, completion: 10 }).total_cost_rub,
      expectedCost(YANDEXGPT, { prompt: 60, completion: 6 }).total_cost_rub,
    ]);
  });

  it('JSON schema → jsonSchema; unsupported stop sequences → 400 before any upstream call', async () => {
    yandex.enqueue({ text: '{"city":"Москва"}', usage: { input: 8, output: 5 } });
    const schema = { type: 'object', properties: { city: { type: 'string' } } };
    const ok = await client.chat.completions.create({
      model: 'yandexgpt',
      messages: [{ role: 'user', content: 'JSON please' }],
      response_format: { type: 'json_schema', json_schema: { name: 'city', schema } },
    });
    expect(ok.choices[0].message.content).toBe('{"city":"Москва"}');
    expect(yandex.lastRequest?.body.jsonSchema).toEqual({ schema });
    await wallet.expectCharged(expectedCost(YANDEXGPT, { prompt: 8, completion: 5 }).total_cost_rub);

    yandex.reset();
    wallet = await wallet.snapshot();
    const refused = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'yandexgpt', messages: [{ role: 'user', content: 'x' }], stop: ['\n'] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ param: 'stop' });
    expect(yandex.requests).toHaveLength(0);
    await wallet.expectUntouched();
  });

  it('errors: 429 with and without Retry-After → 429; a bad key → 502; the content filter → finish_reason content_filter', async () => {
    yandex.enqueue({ fault: faults.http(429, { retryAfter: 7 }) });
    const limited = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'yandexgpt', messages: [{ role: 'user', content: 'x' }] });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect(limited.body.error.type).toBeDefined();

    yandex.enqueue({ fault: faults.http(429, { retryAfter: null, errorType: 'grpc' }) });
    const bare = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'yandexgpt', messages: [{ role: 'user', content: 'x' }] });
    expect(bare.status).toBe(429);

    yandex.enqueue({ fault: faults.http(401) });
    const auth = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'yandexgpt', messages: [{ role: 'user', content: 'x' }] });
    expect(auth.status).toBe(502);
    await wallet.expectUntouched();

    yandex.enqueue({ text: 'Не могу обсуждать эту тему.', finish: 'content_filter', usage: { input: 5, output: 6 } });
    const filtered = await client.chat.completions.create({
      model: 'yandexgpt',
      messages: [{ role: 'user', content: 'forbidden' }],
    });
    expect(filtered.choices[0].finish_reason).toBe('content_filter');
    await wallet.expectCharged(expectedCost(YANDEXGPT, { prompt: 5, completion: 6 }).total_cost_rub);
  });

  it('/v1/responses: answered by YandexGPT, billed exactly', async () => {
    yandex.enqueue({ text: 'Столица Франции — Париж.', usage: { input: 14, output: 6 } });
    const data = await client.responses.create({
      model: 'yandexgpt',
      input: 'Столица Франции?',
      max_output_tokens: 50,
    });
    expect(data.status).toBe('completed');
    expect(data.output_text).toBe('Столица Франции — Париж.');
    expect(data.usage).toMatchObject({ input_tokens: 14, output_tokens: 6 });
    expect(yandex.lastRequest?.body.completionOptions).toMatchObject({ maxTokens: '50' });
    const cost = expectedCost(YANDEXGPT, { prompt: 14, completion: 6 });
    await wallet.expectCharged(cost.total_cost_rub, { endpoint: '/v1/responses', promptTokens: 14 });
  });

  it('/v1/messages with the Anthropic SDK: a tools round trip, then a stream', async () => {
    const anthropic = new Anthropic({ baseURL: t.url, apiKey, maxRetries: 0 });
    const tools: Anthropic.Tool[] = [
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    yandex.enqueue(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Казань' } }], usage: { input: 30, output: 8 } },
      { text: 'В Казани солнечно.', usage: { input: 45, output: 5 } },
    );
    const first = await anthropic.messages.create({
      model: 'yandexgpt',
      max_tokens: 200,
      tools,
      messages: [{ role: 'user', content: 'Погода в Казани?' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Казань' } });
    const second = await anthropic.messages.create({
      model: 'yandexgpt',
      max_tokens: 200,
      tools,
      messages: [
        { role: 'user', content: 'Погода в Казани?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'солнечно, +12' }] },
      ],
    });
    expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: 'В Казани солнечно.' })]);
    expect(yandex.lastRequest?.body.messages).toContainEqual({
      role: 'user',
      toolResultList: { toolResults: [{ functionResult: { name: 'get_weather', content: 'солнечно, +12' } }] },
    });

    yandex.enqueue({ text: 'Потоковый ответ через Messages API.', chunkSize: 5, usage: { input: 10, output: 7 } });
    const stream = anthropic.messages.stream({
      model: 'yandexgpt',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'stream' }],
    });
    let streamed = '';
    stream.on('text', (d) => (streamed += d));
    const final = await stream.finalMessage();
    expect(streamed).toBe('Потоковый ответ через Messages API.');
    expect(final.usage).toMatchObject({ input_tokens: 10, output_tokens: 7 });
    await wallet.expectChargedEach(
      [
        [30, 8],
        [45, 5],
        [10, 7],
      ].map(([p, c]) => expectedCost(YANDEXGPT, { prompt: p, completion: c }).total_cost_rub),
    );
  });

  it('/v1/embeddings: one textEmbedding call per input on text-search-doc, numTokens billed at 10 RUB / 1M', async () => {
    const res = await client.embeddings.create({
      model: 'yandex-embeddings',
      input: ['первый текст', 'второй длинный текст'],
    });
    expect(res.data).toHaveLength(2);
    expect(res.data[0].embedding).toHaveLength(256);
    expect(res.usage.prompt_tokens).toBe(5);
    const calls = yandex.requestsTo('/foundationModels/v1/textEmbedding');
    expect(calls.map((c) => c.body).sort((a, b) => String(a.text).localeCompare(String(b.text)))).toEqual([
      { modelUri: `emb://${FOLDER}/text-search-doc/latest`, text: 'второй длинный текст' },
      { modelUri: `emb://${FOLDER}/text-search-doc/latest`, text: 'первый текст' },
    ]);
    await wallet.expectCharged((5 * EMBEDDING_RUB_PER_1M) / 1_000_000, { model: 'yandex-embeddings', promptTokens: 5 });
  });

  it('REST chat with a project and a knowledge base on yandex-embeddings: chunks embedded as documents, the question as a query', async () => {
    const api = () => request(t.url);
    const FACT = 'The harbor signal lantern is amber and glows above pier nine.';
    const kb = await api()
      .post('/api/v1/knowledge-bases')
      .set('api-key', apiKey)
      .send({ name: 'harbor', embedding_model: 'yandex-embeddings' });
    expect(kb.status).toBe(201);
    expect(kb.body).toMatchObject({ embedding_model: 'yandex-embeddings', dimensions: 256 });
    const doc = await api()
      .post(`/api/v1/knowledge-bases/${kb.body.id}/documents`)
      .set('api-key', apiKey)
      .send({ name: 'harbor', text: FACT });
    expect(doc.status).toBe(202);
    await eventually(
      async () => {
        const s = await api().get(`/api/v1/knowledge-bases/${kb.body.id}`).set('api-key', apiKey);
        return s.body.file_counts?.completed === 1 ? true : undefined;
      },
      30_000,
      'ingestion',
    );
    const ingested = yandex.requestsTo('/foundationModels/v1/textEmbedding');
    expect(ingested.length).toBeGreaterThan(0);
    expect(ingested.every((r) => r.body.modelUri === `emb://${FOLDER}/text-search-doc/latest`)).toBe(true);

    const project = await api().post('/api/v1/projects').set('api-key', apiKey).send({ name: 'Harbor' });
    const attach = await api()
      .post(`/api/v1/projects/${project.body.id}/knowledge-bases`)
      .set('api-key', apiKey)
      .send({ knowledge_base_id: kb.body.id });
    expect(attach.status).toBeLessThan(300);

    yandex.reset();
    yandex.enqueue({ route: 'chat', text: 'The lantern is amber.', usage: { input: 80, output: 5 } });
    const before = (await charges(t.url, apiKey)).length;
    const res = await api().post('/api/v1/chat').set('api-key', apiKey).send({
      model: 'yandexgpt',
      user_id: 'u',
      prompt: 'What color is the harbor signal lantern?',
      project_id: project.body.id,
    });
    expect(res.status).toBe(200);
    expect(res.body.response.text).toBe('The lantern is amber.');
    expect(res.body.sources).toEqual([expect.objectContaining({ kind: 'knowledge_base', material_id: kb.body.id })]);
    const searched = yandex.requestsTo('/foundationModels/v1/textEmbedding');
    expect(searched.map((r) => r.body)).toEqual([
      { modelUri: `emb://${FOLDER}/text-search-query/latest`, text: 'What color is the harbor signal lantern?' },
    ]);
    const completion = yandex.requestsTo('/foundationModels/v1/completion')[0];
    expect(JSON.stringify(completion.body.messages)).toContain(FACT);
    const chatCost = expectedCost(YANDEXGPT, { prompt: 80, completion: 5 });
    expect(res.body.cost).toMatchObject({
      input_cost_rub: chatCost.input_cost_rub,
      output_cost_rub: chatCost.output_cost_rub,
    });
    // one request: the chat, the question's yandex-embeddings query (7 words) and the other retrieval
    // steps (the project's own store, rerank), each charged at its own model's price
    const all = await charges(t.url, apiKey);
    const added = all.slice(0, all.length - before);
    const byModel = new Map(added.map((e) => [e.model, e]));
    expect(toMicro(-byModel.get('yandexgpt')!.amount_rub)).toBe(toMicro(chatCost.total_cost_rub));
    const query = byModel.get('yandex-embeddings')!;
    expect(query.prompt_tokens).toBe(7);
    expect(toMicro(-query.amount_rub)).toBe(7 * EMBEDDING_RUB_PER_1M);
    const retrieval = added.filter((e) => e.model !== 'yandexgpt').reduce((sum, e) => sum + toMicro(-e.amount_rub), 0);
    expect(toMicro(res.body.cost.retrieval_cost_rub)).toBe(retrieval);
    expect(toMicro(res.body.cost.total_cost_rub)).toBe(toMicro(chatCost.total_cost_rub) + retrieval);
    // ingestion: numTokens of every chunk × 10 RUB / 1M
    const ingestion = all.find((e) => e.endpoint === 'knowledge-base ingestion')!;
    expect(ingestion.model).toBe('yandex-embeddings');
    expect(toMicro(-ingestion.amount_rub)).toBe(ingestion.prompt_tokens! * EMBEDDING_RUB_PER_1M);
  });
});

describe(`YandexGPT with an IAM token (${backendKind()})`, () => {
  let yandex: FakeYandex;
  let t: TestApp;

  beforeAll(async () => {
    yandex = await FakeYandex.start({ iamToken: 't1.iam-token', folderId: FOLDER });
    t = await createTestApp({ env: yandexEnv(yandex, { YANDEX_IAM_TOKEN: 't1.iam-token' }) });
  });

  afterAll(async () => {
    await t?.close();
    await yandex?.close();
  });

  it('sends Authorization: Bearer <token>', async () => {
    const { apiKey } = await new AdminClient(t.url).teamWithKey(10);
    yandex.enqueue({ text: 'ok', usage: { input: 3, output: 1 } });
    const res = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({ model: 'yandexgpt-lite', user_id: 'u', prompt: 'hi' });
    expect(res.status).toBe(200);
    expect(res.body.response.text).toBe('ok');
    expect(yandex.lastRequest?.headers.authorization).toBe('Bearer t1.iam-token');
    expect(res.body.cost.total_cost_rub).toBe(0.0008); // 4 tokens × 200 RUB / 1M
  });
});
