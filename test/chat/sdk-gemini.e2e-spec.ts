/**
 * The official `openai` SDK against the gateway, routed to the fake Gemini API: generateContent /
 * streamGenerateContent translation (systemInstruction, generationConfig, functionDeclarations,
 * functionResponse, responseJsonSchema, inlineData images fetched by the gateway) and
 * usageMetadata accounting (thoughts count as completion tokens, cached content as cache reads).
 */
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import request from 'supertest';
import { SAFE_FETCHER_OPTIONS, SafeFetcherOptions } from '@app/common';
import { FakeGemini, ImageServer, pngBytes } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { CostRub, PRICES, UPSTREAM_KEYS, Wallet, arr, expectedCost, obj, providerEnv } from './chat-helpers';

const WEATHER_PARAMS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const WEATHER_TOOL: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER_PARAMS },
};
const IMAGE_HOST = 'cdn.gateway-test.example';

function costOf(value: object): CostRub | undefined {
  return (value as { cost?: CostRub }).cost;
}

describe(`openai SDK → gateway → Gemini fake (${backendKind()})`, () => {
  let gemini: FakeGemini;
  let images: ImageServer;
  let t: TestApp;
  let admin: AdminClient;
  let client: OpenAI;
  let wallet: Wallet;

  beforeAll(async () => {
    gemini = await FakeGemini.start({ apiKey: UPSTREAM_KEYS.gemini });
    images = await ImageServer.start();
    const fetcherOptions: SafeFetcherOptions = {
      resolver: async (host) => (host === IMAGE_HOST ? [{ address: '127.0.0.1', family: 4 }] : []),
      allowAddress: (ip) => ip === '127.0.0.1',
    };
    t = await createTestApp({
      env: providerEnv({ gemini }),
      overrides: [{ provide: SAFE_FETCHER_OPTIONS, useValue: fetcherOptions }],
    });
    admin = new AdminClient(t.url);
  });

  beforeEach(async () => {
    const { apiKey } = await admin.teamWithKey(100);
    client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 });
    wallet = await new Wallet(t.url, apiKey).snapshot();
  });

  afterEach(() => {
    gemini.reset();
    images.reset();
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([gemini?.close(), images?.close()]);
  });

  it('non-stream: generateContent request shape, cached content billed at the cache price', async () => {
    gemini.enqueue({ text: 'Bonjour!', usage: { input: 100, output: 5, cacheRead: 40 } });
    const { data, response } = await client.chat.completions
      .create({
        model: 'gemini-2.5-flash',
        messages: [
          { role: 'system', content: 'Answer in French.' },
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: 'Salut' },
          { role: 'user', content: 'Again' },
        ],
        max_completion_tokens: 64,
        temperature: 0.5,
        seed: 7,
      })
      .withResponse();
    expect(data.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Bonjour!' },
    });
    expect(data.usage).toEqual({
      prompt_tokens: 100,
      completion_tokens: 5,
      total_tokens: 105,
      prompt_tokens_details: { cached_tokens: 40 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    // 60 × 30 + 40 × 7.5 + 5 × 250 = 1800 + 300 + 1250 µRUB
    const cost = expectedCost(PRICES['gemini-2.5-flash'], { prompt: 100, completion: 5, cacheRead: 40 });
    expect(cost.total_cost_rub).toBe(0.00335);
    expect(costOf(data)).toEqual(cost);
    expect(response.headers.get('x-gateway-cost-rub')).toBe('0.00335');

    const sent = gemini.lastRequest;
    expect(sent?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent?.headers['x-goog-api-key']).toBe(UPSTREAM_KEYS.gemini);
    expect(sent?.body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Hello' }] },
        { role: 'model', parts: [{ text: 'Salut' }] },
        { role: 'user', parts: [{ text: 'Again' }] },
      ],
      systemInstruction: { parts: [{ text: 'Answer in French.' }] },
      generationConfig: { maxOutputTokens: 64, temperature: 0.5, seed: 7 },
    });
    await wallet.expectCharged(0.00335, { model: 'gemini-2.5-flash', promptTokens: 100, completionTokens: 5 });
  });

  it('thoughts: REST reasoning + has_reasoning; thoughtsTokenCount billed as completion tokens', async () => {
    gemini.enqueue({ reasoning: 'The user greets me.', text: 'Hi!', usage: { input: 12, output: 30, reasoning: 22 } });
    const res = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', wallet.apiKey)
      .send({ model: 'gemini-2.5-flash', prompt: 'Hello', user_id: 'u' });
    expect(res.status).toBe(200);
    const cost = expectedCost(PRICES['gemini-2.5-flash'], { prompt: 12, completion: 30 });
    expect(res.body).toEqual({
      response: { text: 'Hi!', reasoning: 'The user greets me.' },
      usage: {
        prompt_tokens: 12,
        completion_tokens: 30,
        total_tokens: 42,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      },
      cost,
      model: { model: 'gemini-2.5-flash', context_window: 1048576, supports_images: true },
      has_reasoning: true,
    });
    await wallet.expectCharged(cost.total_cost_rub, { completionTokens: 30 });
  });

  it('stream + include_usage: streamGenerateContent?alt=sse translated; usage chunk; billed exactly', async () => {
    const text = 'Gemini streams candidates over SSE.';
    gemini.enqueue({ text, chunkSize: 7, usage: { input: 15, output: 8 } });
    const stream = await client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(text);
    expect(chunks.filter((c) => c.choices[0]?.finish_reason).map((c) => c.choices[0].finish_reason)).toEqual(['stop']);
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 15, completion_tokens: 8, total_tokens: 23 });
    const cost = expectedCost(PRICES['gemini-2.5-flash'], { prompt: 15, completion: 8 });
    expect(costOf(last)).toEqual(cost);
    expect(gemini.lastRequest?.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    await wallet.expectCharged(cost.total_cost_rub);
  });

  it('tools, non-stream: functionDeclarations out, functionCall → tool_calls, tool result → functionResponse', async () => {
    gemini.enqueue({
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Lima' } }],
      usage: { input: 50, output: 9 },
    });
    const first = await client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Weather in Lima?' }],
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
    });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const calls = first.choices[0].message.tool_calls ?? [];
    expect(calls).toHaveLength(1);
    const call = calls[0];
    expect(call).toEqual({
      id: expect.any(String),
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Lima"}' },
    });
    expect(call.id.length).toBeGreaterThan(0);
    expect(gemini.lastRequest?.body.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Current weather for a city', parametersJsonSchema: WEATHER_PARAMS },
        ],
      },
    ]);
    expect(gemini.lastRequest?.body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });

    gemini.enqueue({ text: 'Sunny, 24°C.', usage: { input: 80, output: 5 } });
    const second = await client.chat.completions.create({
      model: 'gemini-2.5-flash',
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: 'Weather in Lima?' },
        first.choices[0].message,
        { role: 'tool', tool_call_id: call.id, content: '{"temp":24}' },
      ],
    });
    expect(second.choices[0].message.content).toBe('Sunny, 24°C.');
    const contents = arr(gemini.lastRequest?.body.contents);
    expect(contents).toHaveLength(3);
    expect(obj(contents[1])).toMatchObject({
      role: 'model',
      parts: [{ functionCall: { name: 'get_weather', args: { city: 'Lima' } } }],
    });
    expect(contents[2]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { name: 'get_weather', response: { temp: 24 } } }],
    });
    await wallet.expectChargedEach([
      expectedCost(PRICES['gemini-2.5-flash'], { prompt: 50, completion: 9 }).total_cost_rub,
      expectedCost(PRICES['gemini-2.5-flash'], { prompt: 80, completion: 5 }).total_cost_rub,
    ]);
  });

  it('tools, streamed: two functionCalls become indexed tool-call deltas the SDK reassembles', async () => {
    gemini.enqueue({
      text: 'Checking both.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Lima' } },
        { name: 'get_weather', arguments: { city: 'Quito' } },
      ],
      usage: { input: 40, output: 20 },
    });
    const runner = client.chat.completions.stream({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Lima and Quito' }],
      tools: [WEATHER_TOOL],
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(final.choices[0].message.content).toBe('Checking both.');
    const calls = final.choices[0].message.tool_calls ?? [];
    expect(calls.map((c) => (c.type === 'function' ? [c.function.name, c.function.arguments] : []))).toEqual([
      ['get_weather', '{"city":"Lima"}'],
      ['get_weather', '{"city":"Quito"}'],
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    await wallet.expectCharged(expectedCost(PRICES['gemini-2.5-flash'], { prompt: 40, completion: 20 }).total_cost_rub);
  });

  it('json_schema → responseMimeType application/json + responseJsonSchema', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'integer' } }, required: ['answer'] };
    gemini.enqueue({ text: '{"answer":42}', usage: { input: 9, output: 6 } });
    const res = await client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'The answer?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
    });
    expect(JSON.parse(res.choices[0].message.content ?? '')).toEqual({ answer: 42 });
    // without max_tokens the gateway sends the model's output cap it reserved for
    expect(gemini.lastRequest?.body.generationConfig).toEqual({
      maxOutputTokens: 65536,
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
    await wallet.expectCharged(expectedCost(PRICES['gemini-2.5-flash'], { prompt: 9, completion: 6 }).total_cost_rub);
  });

  it('images: http URL fetched by the gateway and sent as inlineData next to a data: URL image', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9]);
    images.serve('/p.jpg', jpeg, 'image/jpeg');
    const png = pngBytes(1, 1, [0, 255, 0, 255]);
    gemini.enqueue({ text: 'Green and something.', usage: { input: 520, output: 4 } });
    const res = await client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
            { type: 'image_url', image_url: { url: `http://${IMAGE_HOST}:${new URL(images.baseUrl).port}/p.jpg` } },
            { type: 'text', text: 'Compare' },
          ],
        },
      ],
    });
    expect(res.choices[0].message.content).toBe('Green and something.');
    expect(images.hits('/p.jpg')).toBe(1);
    expect(gemini.lastRequest?.body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { inlineData: { mimeType: 'image/png', data: png.toString('base64') } },
          { inlineData: { mimeType: 'image/jpeg', data: jpeg.toString('base64') } },
          { text: 'Compare' },
        ],
      },
    ]);
    const cost = expectedCost(PRICES['gemini-2.5-flash'], { prompt: 520, completion: 4, images: 2 });
    expect(costOf(res)).toEqual(cost);
    await wallet.expectCharged(cost.total_cost_rub);
  });
});
