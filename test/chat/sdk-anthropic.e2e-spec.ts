/**
 * The official `openai` SDK against the gateway, routed to the fake Anthropic Messages API:
 * request translation (system, max_tokens, tools → input_schema, tool results → tool_result
 * blocks, json_schema → forced json_output tool, images → base64 blocks with http URLs fetched by
 * the gateway), response / stream translation back, and cache-token accounting.
 */
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import request from 'supertest';
import { SAFE_FETCHER_OPTIONS, SafeFetcherOptions } from '@app/common';
import { FakeAnthropic, ImageServer, pngBytes } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { CostRub, PRICES, UPSTREAM_KEYS, Wallet, arr, expectedCost, obj, providerEnv } from './chat-helpers';

const WEATHER_TOOL: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

const IMAGE_HOST = 'images.gateway-test.example';

function costOf(value: object): CostRub | undefined {
  return (value as { cost?: CostRub }).cost;
}

describe(`openai SDK → gateway → Anthropic fake (${backendKind()})`, () => {
  let anthropic: FakeAnthropic;
  let images: ImageServer;
  let t: TestApp;
  let admin: AdminClient;
  let client: OpenAI;
  let wallet: Wallet;
  const resolved: string[] = [];

  beforeAll(async () => {
    anthropic = await FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic });
    images = await ImageServer.start();
    // the test host name resolves to the loopback image server, and only 127.0.0.1 is allowed
    const fetcherOptions: SafeFetcherOptions = {
      resolver: async (host) => {
        resolved.push(host);
        if (host === IMAGE_HOST) return [{ address: '127.0.0.1', family: 4 }];
        throw new Error(`unexpected DNS lookup of ${host}`);
      },
      allowAddress: (ip) => ip === '127.0.0.1',
    };
    t = await createTestApp({
      env: providerEnv({ anthropic }),
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
    anthropic.reset();
    images.reset();
    resolved.length = 0;
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([anthropic?.close(), images?.close()]);
  });

  it('non-stream with cache tokens: prompt_tokens = input + cache read + cache write, cost split exactly', async () => {
    anthropic.enqueue({ text: 'Cached hello.', usage: { input: 1000, output: 50, cacheRead: 600, cacheWrite: 200 } });
    const { data, response } = await client.chat.completions
      .create({
        model: 'claude-sonnet-4',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'Hello' },
        ],
        max_tokens: 256,
        temperature: 1.7,
        stop: ['END'],
      })
      .withResponse();

    expect(data.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Cached hello.' },
    });
    expect(data.model).toBe('claude-sonnet-4');
    expect(data.usage).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 50,
      total_tokens: 1050,
      prompt_tokens_details: { cached_tokens: 600 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    // uncached 200 × 300 = 60 000; reads 600 × 30 = 18 000; writes 200 × 375 = 75 000; output 50 × 1500 = 75 000 (µRUB)
    const cost = expectedCost(PRICES['claude-sonnet-4'], {
      prompt: 1000,
      completion: 50,
      cacheRead: 600,
      cacheWrite: 200,
    });
    expect(cost).toEqual({
      input_cost_rub: 0.06,
      output_cost_rub: 0.075,
      image_cost_rub: null,
      cache_cost_rub: 0.093,
      total_cost_rub: 0.228,
      currency: 'RUB',
    });
    expect(costOf(data)).toEqual(cost);
    expect(response.headers.get('x-gateway-cost-rub')).toBe('0.228');

    const sent = anthropic.lastRequest;
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe(UPSTREAM_KEYS.anthropic);
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent?.body).toEqual({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 256,
      system: 'You are terse.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      temperature: 1, // Anthropic's range is 0..1
      stop_sequences: ['END'],
    });
    await wallet.expectCharged(0.228, { model: 'claude-sonnet-4', promptTokens: 1000, completionTokens: 50 });
  });

  it('REST: cache_read_tokens / cache_write_tokens and cache_cost_rub in the spec response', async () => {
    anthropic.enqueue({ text: 'ok', usage: { input: 500, output: 10, cacheRead: 300, cacheWrite: 100 } });
    const res = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', wallet.apiKey)
      .send({ model: 'claude-sonnet-4', prompt: 'hi', user_id: 'u' });
    expect(res.status).toBe(200);
    const cost = expectedCost(PRICES['claude-sonnet-4'], {
      prompt: 500,
      completion: 10,
      cacheRead: 300,
      cacheWrite: 100,
    });
    expect(res.body.usage).toEqual({
      prompt_tokens: 500,
      completion_tokens: 10,
      total_tokens: 510,
      cache_read_tokens: 300,
      cache_write_tokens: 100,
    });
    expect(res.body.cost).toEqual(cost);
    expect(cost.cache_cost_rub).toBe(0.0465); // 300 × 30 + 100 × 375 µRUB
    expect(anthropic.lastRequest?.body.metadata).toEqual({ user_id: 'u' });
    await wallet.expectCharged(cost.total_cost_rub);
  });

  it('stream + include_usage: Anthropic SSE translated to chunks; usage chunk with cache tokens; billed exactly', async () => {
    const text = 'Anthropic streams in content_block_delta events.';
    anthropic.enqueue({ text, chunkSize: 6, usage: { input: 400, output: 12, cacheRead: 100, cacheWrite: 50 } });
    const stream = await client.chat.completions.create({
      model: 'claude-sonnet-4',
      messages: [{ role: 'user', content: 'stream' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(text);
    expect(chunks.filter((c) => c.choices[0]?.finish_reason).map((c) => c.choices[0].finish_reason)).toEqual(['stop']);
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({
      prompt_tokens: 400,
      completion_tokens: 12,
      total_tokens: 412,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    const cost = expectedCost(PRICES['claude-sonnet-4'], {
      prompt: 400,
      completion: 12,
      cacheRead: 100,
      cacheWrite: 50,
    });
    expect(costOf(last)).toEqual(cost);
    expect(anthropic.lastRequest?.body.stream).toBe(true);
    await wallet.expectCharged(cost.total_cost_rub, { promptTokens: 400, completionTokens: 12 });
  });

  it('tools, non-stream: tools → input_schema, tool_use → tool_calls, tool result → tool_result block on the follow-up', async () => {
    anthropic.enqueue({
      text: 'Let me check.',
      toolCalls: [{ id: 'toolu_01', name: 'get_weather', arguments: { city: 'Oslo' } }],
      usage: { input: 90, output: 20 },
    });
    const first = await client.chat.completions.create({
      model: 'claude-sonnet-4',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
    });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(first.choices[0].message.content).toBe('Let me check.');
    expect(first.choices[0].message.tool_calls).toEqual([
      { id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(anthropic.lastRequest?.body.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        input_schema: WEATHER_TOOL.type === 'function' ? WEATHER_TOOL.function.parameters : {},
      },
    ]);
    expect(anthropic.lastRequest?.body.tool_choice).toEqual({ type: 'any' });

    anthropic.enqueue({ text: 'Cold: -3°C.', usage: { input: 140, output: 6 } });
    const second = await client.chat.completions.create({
      model: 'claude-sonnet-4',
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        first.choices[0].message,
        { role: 'tool', tool_call_id: 'toolu_01', content: '{"temp":-3}' },
      ],
    });
    expect(second.choices[0].message.content).toBe('Cold: -3°C.');
    expect(anthropic.lastRequest?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '{"temp":-3}' }] },
    ]);
    await wallet.expectChargedEach([
      expectedCost(PRICES['claude-sonnet-4'], { prompt: 90, completion: 20 }).total_cost_rub,
      expectedCost(PRICES['claude-sonnet-4'], { prompt: 140, completion: 6 }).total_cost_rub,
    ]);
  });

  it('tools, streamed: input_json_delta fragments become tool-call deltas the SDK reassembles', async () => {
    anthropic.enqueue({
      toolCalls: [
        { id: 'toolu_a', name: 'get_weather', arguments: { city: 'Rome' } },
        { id: 'toolu_b', name: 'get_weather', arguments: { city: 'Madrid' } },
      ],
      chunkSize: 4,
      usage: { input: 60, output: 30 },
    });
    const runner = client.chat.completions.stream({
      model: 'claude-sonnet-4',
      messages: [{ role: 'user', content: 'Rome and Madrid' }],
      tools: [WEATHER_TOOL],
      parallel_tool_calls: true,
    });
    let argumentFragments = 0;
    runner.on('chunk', (c) => {
      for (const tc of c.choices[0]?.delta.tool_calls ?? []) if (tc.function?.arguments) argumentFragments++;
    });
    const final = await runner.finalChatCompletion();
    expect(argumentFragments).toBeGreaterThan(4);
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(final.choices[0].message.tool_calls).toEqual([
      { id: 'toolu_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
      { id: 'toolu_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Madrid"}' } },
    ]);
    await wallet.expectCharged(expectedCost(PRICES['claude-sonnet-4'], { prompt: 60, completion: 30 }).total_cost_rub);
  });

  it('json_schema → a forced json_output tool upstream; its input comes back as the JSON content (stream and not)', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, temp: { type: 'number' } },
      required: ['city', 'temp'],
    };
    const format = { type: 'json_schema' as const, json_schema: { name: 'weather', schema } };
    anthropic.enqueue({
      toolCalls: [{ name: 'json_output', arguments: { city: 'Oslo', temp: -3 } }],
      usage: { input: 30, output: 12 },
    });
    const res = await client.chat.completions.create({
      model: 'claude-sonnet-4',
      messages: [{ role: 'user', content: 'JSON weather' }],
      response_format: format,
    });
    expect(res.choices[0].finish_reason).toBe('stop');
    expect(res.choices[0].message.tool_calls).toBeUndefined();
    expect(JSON.parse(res.choices[0].message.content ?? '')).toEqual({ city: 'Oslo', temp: -3 });
    const tools = arr(anthropic.lastRequest?.body.tools);
    expect(tools).toHaveLength(1);
    expect(obj(tools[0])).toMatchObject({ name: 'json_output', input_schema: schema });
    expect(anthropic.lastRequest?.body.tool_choice).toEqual({ type: 'tool', name: 'json_output' });

    anthropic.enqueue({
      toolCalls: [{ name: 'json_output', arguments: { city: 'Rome', temp: 19 } }],
      chunkSize: 5,
      usage: { input: 30, output: 12 },
    });
    const stream = await client.chat.completions.create({
      model: 'claude-sonnet-4',
      messages: [{ role: 'user', content: 'JSON weather' }],
      response_format: format,
      stream: true,
    });
    let content = '';
    const finishes: (string | null)[] = [];
    for await (const c of stream) {
      content += c.choices[0]?.delta.content ?? '';
      expect(c.choices[0]?.delta.tool_calls).toBeUndefined();
      if (c.choices[0]?.finish_reason) finishes.push(c.choices[0].finish_reason);
    }
    expect(JSON.parse(content)).toEqual({ city: 'Rome', temp: 19 });
    expect(finishes).toEqual(['stop']);
    const each = expectedCost(PRICES['claude-sonnet-4'], { prompt: 30, completion: 12 }).total_cost_rub;
    await wallet.expectChargedEach([each, each]);
  });

  it('images: data: URL → base64 block; http URL fetched by the gateway (SSRF-guarded) → base64 block; image fee charged', async () => {
    const served = pngBytes(3, 2, [0, 128, 255, 255]);
    images.serve('/photo.png', served, 'image/png');
    const httpUrl = `http://${IMAGE_HOST}:${new URL(images.baseUrl).port}/photo.png`;
    const inline = pngBytes(1, 1);
    anthropic.enqueue({ text: 'A blue and a red image.', usage: { input: 3200, output: 8 } });
    const res = await client.chat.completions.create({
      model: 'claude-sonnet-4',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe' },
            { type: 'image_url', image_url: { url: httpUrl } },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${inline.toString('base64')}` } },
          ],
        },
      ],
    });
    expect(res.choices[0].message.content).toBe('A blue and a red image.');
    expect(images.hits('/photo.png')).toBe(1);
    expect(resolved).toEqual([IMAGE_HOST]);
    expect(arr(anthropic.lastRequest?.body.messages)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: served.toString('base64') } },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: inline.toString('base64') } },
        ],
      },
    ]);
    const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 3200, completion: 8, images: 2 });
    expect(costOf(res)).toEqual(cost);
    await wallet.expectCharged(cost.total_cost_rub);
  });

  it('REST file_urls for Claude: the http image is fetched and inlined, prompt text kept with it', async () => {
    images.serve('/chart.png', pngBytes(2, 2), 'image/png');
    anthropic.enqueue({ text: 'A chart.', usage: { input: 1700, output: 3 } });
    const res = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', wallet.apiKey)
      .send({
        model: 'claude-sonnet-4',
        prompt: 'What is this?',
        user_id: 'u',
        system_prompt: 'Describe images.',
        file_urls: [`http://${IMAGE_HOST}:${new URL(images.baseUrl).port}/chart.png`],
      });
    expect(res.status).toBe(200);
    expect(res.body.response.text).toBe('A chart.');
    expect(anthropic.lastRequest?.body.system).toBe('Describe images.');
    expect(arr(anthropic.lastRequest?.body.messages)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: pngBytes(2, 2).toString('base64') },
          },
        ],
      },
    ]);
    const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 1700, completion: 3, images: 1 });
    expect(res.body.cost).toEqual(cost);
    expect(res.body.cost.image_cost_rub).toBe(0.1);
    await wallet.expectCharged(cost.total_cost_rub);
  });

  it('thinking blocks → REST response.reasoning / has_reasoning', async () => {
    anthropic.enqueue({ reasoning: 'Consider the options.', text: 'Option B.', usage: { input: 20, output: 30 } });
    const res = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', wallet.apiKey)
      .send({ model: 'claude-sonnet-4', prompt: 'A or B?', user_id: 'u' });
    expect(res.status).toBe(200);
    expect(res.body.response).toEqual({ text: 'Option B.', reasoning: 'Consider the options.' });
    expect(res.body.has_reasoning).toBe(true);
    await wallet.expectCharged(expectedCost(PRICES['claude-sonnet-4'], { prompt: 20, completion: 30 }).total_cost_rub);
  });

  it('n > 1 is a 400 for Claude, before anything is sent or reserved', async () => {
    const err = await client.chat.completions
      .create({ model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'x' }], n: 2 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ status: 400, param: 'n' });
    expect(anthropic.requests).toHaveLength(0);
    await wallet.expectUntouched();
  });
});
