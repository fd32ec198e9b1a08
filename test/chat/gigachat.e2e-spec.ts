/**
 * GigaChat through every front door, against the fake GigaChat API (OAuth + chat + embeddings):
 * the OAuth exchange (Basic key, uuid4 RqUID, form scope) and one shared refresh under concurrency,
 * functions ↔ tools both ways (arguments an object on GigaChat's side), SSE, precached prompt tokens
 * billed as cache reads, error shapes, and charges = tokens × the catalog's RUB prices.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import request from 'supertest';
import { FakeGigaChat, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { Pricing, Wallet, arr, charges, expectedCost, obj, toMicro } from './chat-helpers';

const GIGA: Record<'gigachat-2' | 'gigachat-2-max', Pricing> = {
  'gigachat-2': { input: 65, output: 65, cacheRead: 0, cacheWrite: null, image: null },
  'gigachat-2-max': { input: 650, output: 650, cacheRead: 0, cacheWrite: null, image: null },
};
const EMBEDDINGS_RUB_PER_1M = 14;
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const WEATHER_TOOL: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe(`GigaChat through the gateway (${backendKind()})`, () => {
  let giga: FakeGigaChat;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let client: OpenAI;
  let wallet: Wallet;

  beforeAll(async () => {
    giga = await FakeGigaChat.start({
      authKey: 'c2VjcmV0LWlkOnNlY3JldC1rZXk=',
      scope: 'GIGACHAT_API_B2B',
      oauthDelayMs: 50,
    });
    t = await createTestApp({ env: { ...giga.env(), GIGACHAT_MAX_RETRIES: '0', INGEST_POLL_MS: '100' } });
    admin = new AdminClient(t.url);
  });

  beforeEach(async () => {
    ({ apiKey } = await admin.teamWithKey(100));
    client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 });
    wallet = await new Wallet(t.url, apiKey).snapshot();
  });

  afterEach(() => giga.reset());

  afterAll(async () => {
    await t?.close();
    await giga?.close();
  });

  it('OAuth (Basic key, uuid4 RqUID, form scope), then a chat answer billed with precached tokens as cache reads', async () => {
    giga.enqueue({ text: 'Привет!', usage: { input: 120, output: 7, cacheRead: 40 } });
    const res = await client.chat.completions.create({
      model: 'gigachat-2-max',
      messages: [
        { role: 'system', content: 'Answer in Russian.' },
        { role: 'user', content: 'Hello' },
      ],
      max_tokens: 64,
      temperature: 0.3,
    });
    expect(res.choices[0].message.content).toBe('Привет!');
    expect(res.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 7, total_tokens: 127 });
    expect(res.usage?.prompt_tokens_details?.cached_tokens).toBe(40);

    const oauth = giga.requests.filter((r) => r.path === '/api/v2/oauth');
    if (oauth.length > 0) {
      // the first test of the suite fetched the token: the exchange is Sber's
      expect(oauth[0].headers.authorization).toBe('Basic c2VjcmV0LWlkOnNlY3JldC1rZXk=');
      expect(String(oauth[0].headers.rquid)).toMatch(UUID4);
      expect(oauth[0].rawBody).toBe('scope=GIGACHAT_API_B2B');
    }
    const call = giga.requestsTo('/api/v1/chat/completions')[0];
    expect(String(call.headers.authorization)).toMatch(/^Bearer giga-token-\d+$/);
    expect(call.body).toEqual({
      model: 'GigaChat-2-Max',
      messages: [
        { role: 'system', content: 'Answer in Russian.' },
        { role: 'user', content: 'Hello' },
      ],
      temperature: 0.3,
      max_tokens: 64,
    });
    await wallet.expectCharged(
      expectedCost(GIGA['gigachat-2-max'], { prompt: 120, completion: 7, cacheRead: 40 }).total_cost_rub,
      { model: 'gigachat-2-max', promptTokens: 120, completionTokens: 7 },
    );
  });

  it('tools round trip: functions out, function_call (object arguments) back as tool_calls, results as function messages', async () => {
    giga.enqueue({
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Казань' } }],
      usage: { input: 50, output: 9 },
    });
    const first = await client.chat.completions.create({
      model: 'gigachat-2',
      messages: [{ role: 'user', content: 'Weather in Kazan?' }],
      tools: [WEATHER_TOOL],
    });
    const tc = first.choices[0].message.tool_calls![0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(tc.type === 'function' && tc.function.name).toBe('get_weather');
    expect(tc.type === 'function' && JSON.parse(tc.function.arguments)).toEqual({ city: 'Казань' });
    const sent = giga.requestsTo('/api/v1/chat/completions')[0].body;
    expect(sent.functions).toEqual([
      { name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER_TOOL.function.parameters },
    ]);
    expect(sent.function_call).toBe('auto');

    giga.enqueue({ text: 'В Казани +5.', usage: { input: 70, output: 5 } });
    const second = await client.chat.completions.create({
      model: 'gigachat-2',
      messages: [
        { role: 'user', content: 'Weather in Kazan?' },
        { role: 'assistant', content: null, tool_calls: first.choices[0].message.tool_calls },
        { role: 'tool', tool_call_id: tc.id, content: '+5 °C, cloudy' },
      ],
      tools: [WEATHER_TOOL],
    });
    expect(second.choices[0].message.content).toBe('В Казани +5.');
    const back = arr(giga.requestsTo('/api/v1/chat/completions')[1].body.messages);
    expect(back.slice(1)).toEqual([
      { role: 'assistant', content: '', function_call: { name: 'get_weather', arguments: { city: 'Казань' } } },
      { role: 'function', name: 'get_weather', content: JSON.stringify({ result: '+5 °C, cloudy' }) },
    ]);
    const p = GIGA['gigachat-2'];
    await wallet.expectChargedEach([
      expectedCost(p, { prompt: 50, completion: 9 }).total_cost_rub,
      expectedCost(p, { prompt: 70, completion: 5 }).total_cost_rub,
    ]);
  });

  it('stream: SSE deltas, a streamed function call, the final usage chunk, billed once', async () => {
    giga.enqueue({ text: 'Один два три', chunkSize: 4, usage: { input: 30, output: 3, cacheRead: 10 } });
    const stream = await client.chat.completions.create({
      model: 'gigachat-2',
      messages: [{ role: 'user', content: 'Count' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Один два три');
    expect(chunks.filter((c) => c.choices[0]?.finish_reason === 'stop')).toHaveLength(1);
    expect(chunks[chunks.length - 1].usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 3 });
    expect(giga.requestsTo('/api/v1/chat/completions')[0].body.stream).toBe(true);
    await wallet.expectCharged(
      expectedCost(GIGA['gigachat-2'], { prompt: 30, completion: 3, cacheRead: 10 }).total_cost_rub,
    );

    giga.enqueue({
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Омск' } }],
      usage: { input: 20, output: 4 },
    });
    const toolStream = await client.chat.completions.create({
      model: 'gigachat-2',
      messages: [{ role: 'user', content: 'Weather in Omsk?' }],
      tools: [WEATHER_TOOL],
      stream: true,
    });
    const calls: ChatCompletionChunk[] = [];
    for await (const c of toolStream) calls.push(c);
    const deltas = calls.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(deltas[0].function?.name).toBe('get_weather');
    expect(JSON.parse(deltas.map((d) => d.function?.arguments ?? '').join(''))).toEqual({ city: 'Омск' });
    expect(calls.some((c) => c.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
  });

  it('an expired token is refreshed exactly once for 50 concurrent requests (each retried once on the 401)', async () => {
    giga.setDefault({ text: 'ok', usage: { input: 5, output: 1 } });
    await client.chat.completions.create({ model: 'gigachat-2', messages: [{ role: 'user', content: 'warm up' }] });
    const expired = String(giga.lastRequest?.headers.authorization);
    giga.reset();
    giga.setDefault({ text: 'ok', usage: { input: 5, output: 1 } });
    giga.expireTokens();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        client.chat.completions.create({ model: 'gigachat-2', messages: [{ role: 'user', content: `q${i}` }] }),
      ),
    );
    expect(answers.every((a) => a.choices[0].message.content === 'ok')).toBe(true);
    expect(giga.oauthRequests).toHaveLength(1);
    const calls = giga.requestsTo('/api/v1/chat/completions');
    const stale = calls.filter((r) => r.headers.authorization === expired);
    const fresh = calls.filter((r) => r.headers.authorization !== expired);
    expect(new Set(fresh.map((r) => r.headers.authorization)).size).toBe(1);
    expect(stale.length).toBeGreaterThan(0); // requests in flight met the 401 …
    expect(fresh).toHaveLength(50); // … and every request was answered on the one new token
    expect(calls).toHaveLength(50 + stale.length); // a 401 is retried once, nothing more
  });

  it("errors: GigaChat's {status, message} bodies, 429 with and without Retry-After, 5xx; refusals before any call", async () => {
    giga.enqueue({ fault: faults.http(429, { retryAfter: 7 }) });
    const limited = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'gigachat-2', messages: [{ role: 'user', content: 'x' }] });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');

    giga.enqueue({ fault: faults.http(429, { retryAfter: null }) });
    const bare = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'gigachat-2', messages: [{ role: 'user', content: 'x' }] });
    expect(bare.status).toBe(429);

    giga.enqueue({ fault: faults.http(500, { message: 'Internal model error' }) });
    const broken = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'gigachat-2', messages: [{ role: 'user', content: 'x' }] });
    expect(broken.status).toBe(502);

    giga.enqueue({ fault: faults.http(422, { message: 'Invalid params: max_tokens too large' }) });
    const invalid = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'gigachat-2', messages: [{ role: 'user', content: 'x' }] });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toContain('Invalid params: max_tokens too large');
    giga.reset();

    for (const extra of [
      { response_format: { type: 'json_object' } },
      { stop: ['END'] },
      { seed: 3 },
      { frequency_penalty: 0.5 },
    ]) {
      const res = await request(t.url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ model: 'gigachat-2', messages: [{ role: 'user', content: 'x' }], ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(Object.keys(extra)[0]);
    }
    expect(giga.requestsTo('/api/v1/chat/completions')).toHaveLength(0);
    await wallet.expectUntouched();
  });

  it('/v1/responses and /v1/embeddings', async () => {
    giga.enqueue({ text: 'Ответ.', usage: { input: 11, output: 2 } });
    const r = await client.responses.create({ model: 'gigachat-2', input: 'Say something' });
    expect(r.output_text).toBe('Ответ.');
    expect(r.usage).toMatchObject({ input_tokens: 11, output_tokens: 2 });

    const emb = await client.embeddings.create({ model: 'gigachat-embeddings', input: ['alpha beta', 'gamma'] });
    expect(emb.data).toHaveLength(2);
    expect(emb.data[0].embedding).toHaveLength(1024);
    expect(emb.usage.prompt_tokens).toBe(3);
    expect(giga.requestsTo('/api/v1/embeddings')[0].body).toEqual({
      model: 'Embeddings',
      input: ['alpha beta', 'gamma'],
    });
    await wallet.expectChargedEach([
      expectedCost(GIGA['gigachat-2'], { prompt: 11, completion: 2 }).total_cost_rub,
      Number(((3 * EMBEDDINGS_RUB_PER_1M) / 1_000_000).toFixed(6)),
    ]);
  });

  it('/v1/messages with the Anthropic SDK: tools round trip and stream', async () => {
    const anthropic = new Anthropic({ baseURL: t.url, apiKey, maxRetries: 0 });
    const tool = {
      name: 'get_weather',
      description: 'Current weather for a city',
      input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
    };
    giga.enqueue({
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Сочи' } }],
      usage: { input: 40, output: 6 },
    });
    const first = await anthropic.messages.create({
      model: 'gigachat-2-max',
      max_tokens: 128,
      tools: [tool],
      messages: [{ role: 'user', content: 'Weather in Sochi?' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b) => b.type === 'tool_use');
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Сочи' } });

    giga.enqueue({ text: 'В Сочи +18.', chunkSize: 3, usage: { input: 60, output: 4 } });
    const stream = anthropic.messages.stream({
      model: 'gigachat-2-max',
      max_tokens: 128,
      tools: [tool],
      messages: [
        { role: 'user', content: 'Weather in Sochi?' },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: use!.type === 'tool_use' ? use!.id : '', content: '{"t": 18}' },
          ],
        },
      ],
    });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'В Сочи +18.' })]);
    expect(final.usage).toMatchObject({ input_tokens: 60, output_tokens: 4 });
    const back = arr(giga.requestsTo('/api/v1/chat/completions')[1].body.messages);
    expect(back.slice(1)).toEqual([
      { role: 'assistant', content: '', function_call: { name: 'get_weather', arguments: { city: 'Сочи' } } },
      { role: 'function', name: 'get_weather', content: '{"t": 18}' },
    ]);
    const p = GIGA['gigachat-2-max'];
    await wallet.expectChargedEach([
      expectedCost(p, { prompt: 40, completion: 6 }).total_cost_rub,
      expectedCost(p, { prompt: 60, completion: 4 }).total_cost_rub,
    ]);
  });

  it('REST /api/v1/chat with a project and a knowledge base built on gigachat-embeddings', async () => {
    const FACT = 'The harbor signal lantern on pier nine is amber.';
    const api = () => request(t.url);
    const up = await api()
      .post('/v1/files')
      .set('authorization', `Bearer ${apiKey}`)
      .field('purpose', 'assistants')
      .attach('file', Buffer.from(FACT), 'harbor.md');
    const kb = await api()
      .post('/v1/vector_stores')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ name: 'harbor', file_ids: [up.body.id], embedding_model: 'gigachat-embeddings' });
    expect(kb.status).toBe(200);
    let completed = 0;
    for (let i = 0; i < 100 && completed === 0; i++) {
      const s = await api().get(`/v1/vector_stores/${kb.body.id}`).set('authorization', `Bearer ${apiKey}`);
      completed = s.body.file_counts.completed;
      if (!completed) await new Promise((r) => setTimeout(r, 100));
    }
    expect(completed).toBe(1);
    expect(giga.requestsTo('/api/v1/embeddings')[0].body.model).toBe('Embeddings');
    const projectId = (await api().post('/api/v1/projects').set('api-key', apiKey).send({ name: 'Harbor' })).body.id;
    const attach = await api()
      .post(`/api/v1/projects/${projectId}/knowledge-bases`)
      .set('api-key', apiKey)
      .send({ knowledge_base_id: kb.body.id });
    expect(attach.status).toBeLessThan(300);

    giga.reset();
    giga.enqueue({ route: 'chat', text: 'Amber.', usage: { input: 90, output: 2 } });
    const res = await api().post('/api/v1/chat').set('api-key', apiKey).send({
      model: 'gigachat-2',
      user_id: 'u',
      prompt: 'What color is the harbor signal lantern?',
      project_id: projectId,
    });
    expect(res.status).toBe(200);
    expect(res.body.response.text).toBe('Amber.');
    expect(res.body.sources).toEqual([expect.objectContaining({ kind: 'knowledge_base', material_id: kb.body.id })]);
    expect(giga.requestsTo('/api/v1/embeddings')).toHaveLength(1); // the question, with the KB's model
    expect(JSON.stringify(giga.requestsTo('/api/v1/chat/completions')[0].body)).toContain(FACT);
    const chatCost = expectedCost(GIGA['gigachat-2'], { prompt: 90, completion: 2 });
    expect(res.body.cost).toMatchObject({
      input_cost_rub: chatCost.input_cost_rub,
      output_cost_rub: chatCost.output_cost_rub,
    });
    // the question's embedding is charged at the gigachat-embeddings price (with the rerank) as retrieval
    const questionTokens = giga.requestsTo('/api/v1/embeddings')[0].usage!.input;
    const ledger = await charges(t.url, apiKey);
    const embedCharge = ledger.find((e) => e.model === 'gigachat-embeddings' && e.endpoint === '/api/v1/chat')!;
    expect(toMicro(Math.abs(embedCharge.amount_rub))).toBe(questionTokens * EMBEDDINGS_RUB_PER_1M);
    expect(toMicro(res.body.cost.retrieval_cost_rub)).toBeGreaterThanOrEqual(questionTokens * EMBEDDINGS_RUB_PER_1M);
    expect(toMicro(res.body.cost.total_cost_rub)).toBe(
      toMicro(chatCost.total_cost_rub) + toMicro(res.body.cost.retrieval_cost_rub),
    );
    expect(obj(res.body.model).model).toBe('gigachat-2');
  });
});
