/**
 * The official `openai` SDK against the gateway, routed to the fake OpenAI upstream (and the
 * DeepSeek-style reasoner on a second OpenAI-compatible fake): non-stream, stream + include_usage,
 * tools (plain and streamed), json_schema passthrough, image input, models.list, reasoning — with
 * exact text, usage, cost and balance movement.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import request from 'supertest';
import { SAFE_FETCHER_OPTIONS, SafeFetcherOptions } from '@app/common';
import { FakeOpenAI, ImageServer, pngBytes } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { CostRub, PRICES, UPSTREAM_KEYS, Wallet, arr, expectedCost, obj, providerEnv } from './chat-helpers';

const WEATHER_TOOL: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city'],
    },
  },
};

/** The gateway's extra `cost` member, read without widening the SDK types to any. */
function costOf(value: object): CostRub | undefined {
  return (value as { cost?: CostRub }).cost;
}

describe(`openai SDK → gateway → OpenAI-compatible fakes (${backendKind()})`, () => {
  let openai: FakeOpenAI;
  let deepseek: FakeOpenAI;
  let images: ImageServer;
  let t: TestApp;
  let admin: AdminClient;
  let client: OpenAI;
  let wallet: Wallet;

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    deepseek = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.deepseek });
    images = await ImageServer.start();
    // image URLs are vetted (DNS-resolved, every address) before they are forwarded: the test's public
    // image host resolves, through an injected resolver, to a public address
    const resolver: SafeFetcherOptions['resolver'] = async (host) =>
      host === 'cdn.example.com' ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '10.0.0.7', family: 4 }];
    t = await createTestApp({
      env: providerEnv({ openai, deepseek }),
      overrides: [{ provide: SAFE_FETCHER_OPTIONS, useValue: { resolver } satisfies SafeFetcherOptions }],
    });
    admin = new AdminClient(t.url);
  });

  beforeEach(async () => {
    const { apiKey } = await admin.teamWithKey(100);
    client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 });
    wallet = await new Wallet(t.url, apiKey).snapshot();
  });

  afterEach(() => {
    openai.reset();
    deepseek.reset();
    images.reset();
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([openai?.close(), deepseek?.close(), images?.close()]);
  });

  it('non-stream: exact text, usage, cost object, x-gateway-cost-rub header and balance movement', async () => {
    openai.enqueue({ text: 'Hello there, friend!', usage: { input: 42, output: 7, cacheRead: 10 } });
    const { data, response } = await client.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Say hello' },
        ],
        max_tokens: 100,
        temperature: 0.3,
        user: 'u-1',
      })
      .withResponse();

    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe('gpt-4o-mini');
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]).toMatchObject({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Hello there, friend!' },
    });
    expect(data.usage).toEqual({
      prompt_tokens: 42,
      completion_tokens: 7,
      total_tokens: 49,
      prompt_tokens_details: { cached_tokens: 10 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    // 32 uncached × 15 + 10 cached × 7.5 + 7 × 60 = 480 + 75 + 420 µRUB
    const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 42, completion: 7, cacheRead: 10 });
    expect(cost.total_cost_rub).toBe(0.000975);
    expect(costOf(data)).toEqual(cost);
    expect(response.headers.get('x-gateway-cost-rub')).toBe(String(cost.total_cost_rub));

    const sent = openai.lastRequest;
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEYS.openai}`);
    expect(sent?.body).toMatchObject({
      model: 'gpt-4o-mini',
      max_tokens: 100,
      temperature: 0.3,
      user: 'u-1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    expect(sent?.body.stream).toBeUndefined();
    await wallet.expectCharged(cost.total_cost_rub, {
      model: 'gpt-4o-mini',
      endpoint: '/v1/chat/completions',
      promptTokens: 42,
      completionTokens: 7,
    });
  });

  it('stream + include_usage: deltas, finish chunk, final chunk with choices [] + usage + cost; billed exactly', async () => {
    const text = 'Streaming works across several small chunks.';
    openai.enqueue({ text, chunkSize: 5, usage: { input: 30, output: 9 } });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'stream please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);

    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(text);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-4o-mini')).toBe(true);
    const last = chunks[chunks.length - 1];
    const beforeLast = chunks[chunks.length - 2];
    expect(beforeLast.choices[0].finish_reason).toBe('stop');
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({
      prompt_tokens: 30,
      completion_tokens: 9,
      total_tokens: 39,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 30, completion: 9 });
    expect(costOf(last)).toEqual(cost);
    // every chunk before the usage chunk carries usage: null (OpenAI's include_usage convention)
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(openai.lastRequest?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    await wallet.expectCharged(cost.total_cost_rub, { promptTokens: 30, completionTokens: 9 });
  });

  it('stream without include_usage: no usage chunk, but billed from the usage the gateway requested upstream', async () => {
    openai.enqueue({ text: 'quiet stream', usage: { input: 12, output: 3 } });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('quiet stream');
    expect(chunks.some((c) => c.choices.length === 0)).toBe(false);
    expect(chunks.some((c) => c.usage !== undefined && c.usage !== null)).toBe(false);
    expect(openai.lastRequest?.body.stream_options).toEqual({ include_usage: true });
    await wallet.expectCharged(expectedCost(PRICES['gpt-4o-mini'], { prompt: 12, completion: 3 }).total_cost_rub, {
      promptTokens: 12,
      completionTokens: 3,
    });
  });

  it('tools, non-stream: tool definitions passed through, tool_calls returned, tool result sent on the follow-up turn', async () => {
    openai.enqueue({
      toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris', unit: 'c' } }],
      usage: { input: 80, output: 15 },
    });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      tools: [WEATHER_TOOL],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });

    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(first.choices[0].message.content).toBeNull();
    expect(first.choices[0].message.tool_calls).toEqual([
      { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' } },
    ]);
    expect(openai.lastRequest?.body).toMatchObject({
      tools: [WEATHER_TOOL],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    const firstCost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 80, completion: 15 });
    expect(costOf(first)).toEqual(firstCost);

    openai.enqueue({ text: 'It is 21°C in Paris.', usage: { input: 120, output: 8 } });
    const second = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      tools: [WEATHER_TOOL],
      messages: [
        ...messages,
        first.choices[0].message,
        { role: 'tool', tool_call_id: 'call_w1', content: '{"temp":21}' },
      ],
    });
    expect(second.choices[0].message.content).toBe('It is 21°C in Paris.');
    expect(openai.lastRequest?.body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_w1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' },
          },
        ],
      },
      { role: 'tool', content: '{"temp":21}', tool_call_id: 'call_w1' },
    ]);
    const secondCost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 120, completion: 8 });
    expect(costOf(second)).toEqual(secondCost);
    await wallet.expectChargedEach([firstCost.total_cost_rub, secondCost.total_cost_rub]);
  });

  it('tools, streamed: the SDK reassembles two parallel tool calls from the deltas (finish_reason tool_calls)', async () => {
    openai.enqueue({
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_b', name: 'get_weather', arguments: { city: 'Berlin', unit: 'f' } },
      ],
      chunkSize: 3,
      usage: { input: 70, output: 22 },
    });
    const runner = client.chat.completions.stream({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Paris and Berlin?' }],
      tools: [WEATHER_TOOL],
      stream_options: { include_usage: true },
    });
    let toolDeltas = 0;
    runner.on('chunk', (c) => {
      if (c.choices[0]?.delta.tool_calls?.length) toolDeltas++;
    });
    const final = await runner.finalChatCompletion();
    expect(toolDeltas).toBeGreaterThan(4); // the arguments really arrived in fragments
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(final.choices[0].message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Berlin","unit":"f"}' } },
    ]);
    expect(final.usage).toMatchObject({ prompt_tokens: 70, completion_tokens: 22, total_tokens: 92 });
    await wallet.expectCharged(expectedCost(PRICES['gpt-4o-mini'], { prompt: 70, completion: 22 }).total_cost_rub);
  });

  it('json_schema response_format is passed through verbatim; the answer parses against it', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, temp: { type: 'number' } },
      required: ['city', 'temp'],
      additionalProperties: false,
    };
    openai.enqueue({ text: '{"city":"Paris","temp":21}', usage: { input: 25, output: 10 } });
    const res = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather as JSON' }],
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } },
    });
    expect(JSON.parse(res.choices[0].message.content ?? '')).toEqual({ city: 'Paris', temp: 21 });
    expect(openai.lastRequest?.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'weather', schema, strict: true },
    });
    await wallet.expectCharged(expectedCost(PRICES['gpt-4o-mini'], { prompt: 25, completion: 10 }).total_cost_rub);
  });

  it('image input: data: URL and a public http URL are passed to OpenAI as given (vetted, nothing fetched), with the per-image fee', async () => {
    const dataUrl = `data:image/png;base64,${pngBytes(2, 2).toString('base64')}`;
    images.serve('/cat.png', pngBytes());
    const httpUrl = 'https://cdn.example.com/cat.png';
    openai.enqueue({ text: 'Two red squares.', usage: { input: 600, output: 4 } });
    const res = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: dataUrl, detail: 'low' } },
            { type: 'image_url', image_url: { url: httpUrl } },
          ],
        },
      ],
    });
    expect(res.choices[0].message.content).toBe('Two red squares.');
    expect(arr(openai.lastRequest?.body.messages)[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is in these?' },
        { type: 'image_url', image_url: { url: dataUrl, detail: 'low' } },
        { type: 'image_url', image_url: { url: httpUrl } },
      ],
    });
    expect(images.hits()).toBe(0);
    const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 600, completion: 4, images: 2 });
    expect(cost.image_cost_rub).toBe(0.2);
    expect(costOf(res)).toEqual(cost);
    await wallet.expectCharged(cost.total_cost_rub);
  });

  it('n = 2 returns two choices; completion tokens billed for both', async () => {
    openai.enqueue({ text: 'same', usage: { input: 10, output: 2 } });
    const res = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x' }],
      n: 2,
    });
    expect(res.choices.map((c) => [c.index, c.message.content])).toEqual([
      [0, 'same'],
      [1, 'same'],
    ]);
    expect(openai.lastRequest?.body.n).toBe(2);
    await wallet.expectCharged(expectedCost(PRICES['gpt-4o-mini'], { prompt: 10, completion: 2 }).total_cost_rub);
  });

  it('models.list(): the catalog in the OpenAI list shape', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) {
      // the OpenAI shape plus the gateway's three fields: where the provider keeps data, and whether it is configured
      expect(m).toEqual({
        id: m.id,
        object: 'model',
        owned_by: expect.any(String),
        created: expect.any(Number),
        jurisdiction: expect.stringMatching(/^(ru|foreign)$/),
        available: expect.any(Boolean),
        unavailable_reason: (m as unknown as { available: boolean }).available ? null : expect.any(String),
      });
      ids.push(m.id);
    }
    expect(ids).toEqual(
      expect.arrayContaining([
        'gpt-4o-mini',
        'gpt-4o',
        'deepseek-reasoner',
        'claude-sonnet-4',
        'gemini-2.5-flash',
        'local',
      ]),
    );
    const raw = await request(t.url).get('/v1/models').set('authorization', `Bearer ${wallet.apiKey}`);
    expect(raw.body.object).toBe('list');
  });

  it('DeepSeek-style reasoner: REST response.reasoning + has_reasoning, reasoning tokens billed as completion', async () => {
    deepseek.enqueue({
      reasoning: 'First, 2+2 is 4.',
      text: 'The answer is 4.',
      usage: { input: 18, output: 40, reasoning: 30 },
    });
    const res = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', wallet.apiKey)
      .send({ model: 'deepseek-reasoner', prompt: 'What is 2+2?', user_id: 'u-7' });
    expect(res.status).toBe(200);
    const cost = expectedCost(PRICES['deepseek-reasoner'], { prompt: 18, completion: 40 });
    expect(res.body).toEqual({
      response: { text: 'The answer is 4.', reasoning: 'First, 2+2 is 4.' },
      usage: {
        prompt_tokens: 18,
        completion_tokens: 40,
        total_tokens: 58,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      },
      cost,
      model: { model: 'deepseek-reasoner', context_window: 65536, supports_images: false },
      has_reasoning: true,
    });
    expect(deepseek.lastRequest?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEYS.deepseek}`);
    expect(deepseek.lastRequest?.body.model).toBe('deepseek-reasoner');
    expect(openai.requests).toHaveLength(0);
    await wallet.expectCharged(cost.total_cost_rub, { model: 'deepseek-reasoner', endpoint: '/api/v1/chat' });
  });

  it('DeepSeek-style reasoner through the SDK stream: reasoning_content deltas come before the content', async () => {
    deepseek.enqueue({
      reasoning: 'thinking hard',
      text: 'done',
      chunkSize: 4,
      usage: { input: 5, output: 6, reasoning: 4 },
    });
    const stream = await client.chat.completions.create({
      model: 'deepseek-reasoner',
      messages: [{ role: 'user', content: 'q' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let reasoning = '';
    let content = '';
    let reasoningAfterContent = false;
    let usageChunk: ChatCompletionChunk | undefined;
    for await (const c of stream) {
      const delta = obj(c.choices[0]?.delta ?? {}, 'delta');
      if (typeof delta.reasoning_content === 'string') {
        reasoning += delta.reasoning_content;
        if (content !== '') reasoningAfterContent = true;
      }
      if (typeof delta.content === 'string') content += delta.content;
      if (c.choices.length === 0) usageChunk = c;
    }
    expect(reasoning).toBe('thinking hard');
    expect(content).toBe('done');
    expect(reasoningAfterContent).toBe(false);
    expect(usageChunk?.usage).toMatchObject({
      prompt_tokens: 5,
      completion_tokens: 6,
      completion_tokens_details: { reasoning_tokens: 4 },
    });
    await wallet.expectCharged(expectedCost(PRICES['deepseek-reasoner'], { prompt: 5, completion: 6 }).total_cost_rub);
  });
});
