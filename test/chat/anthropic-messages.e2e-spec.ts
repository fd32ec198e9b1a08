/**
 * The official `@anthropic-ai/sdk`, unchanged, against the gateway's /v1/messages with a fake
 * Anthropic upstream (Claude models: bodies and events pass through natively) and a fake OpenAI
 * upstream (other models: translated both ways): create, stream + finalMessage, a two-turn tool
 * loop, thinking signatures, images, PDFs, cache_control with 5 m / 1 h cache writes billed at their
 * prices, countTokens, models.list, and each error kind raising the SDK's class. A recorded
 * Claude-Code-shaped request goes to Anthropic byte-for-byte and works translated for gpt-4o.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import request from 'supertest';
import { FakeAnthropic, FakeOpenAI, faults, pngBytes } from '../fakes';
import { MessagesService } from '@app/chat';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import {
  CostRub,
  PRICES,
  UPSTREAM_KEYS,
  Wallet,
  arr,
  charges,
  expectedCost,
  obj,
  postSse,
  providerEnv,
} from './chat-helpers';

const RECORDED = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'claude-code-request.json'), 'utf8')) as {
  headers: Record<string, string>;
  body: Record<string, unknown>;
};

const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const PDF_BASE64 = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF').toString('base64');

type SdkError = InstanceType<typeof Anthropic.APIError>;

function costOf(value: object): CostRub {
  return obj((value as { cost?: unknown }).cost, 'cost') as unknown as CostRub;
}

describe(`Anthropic SDK → gateway /v1/messages (${backendKind()})`, () => {
  let anthropic: FakeAnthropic;
  let openai: FakeOpenAI;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let client: Anthropic;
  let wallet: Wallet;

  // claude-3-5-haiku falls back to gpt-4o-mini (a translated fallback of a native model)
  const catalogDir = mkdtempSync(join(tmpdir(), 'gw-messages-'));
  const modelsFile = join(catalogDir, 'models.yaml');
  writeFileSync(modelsFile, 'models:\n  - key: claude-3-5-haiku\n    fallbacks: [gpt-4o-mini]\n');

  beforeAll(async () => {
    anthropic = await FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic });
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    t = await createTestApp({
      env: {
        ...providerEnv({ anthropic, openai }),
        MODEL_ALIASES: 'claude-sonnet-4-20250514=claude-sonnet-4, claude-3-5-sonnet-latest=claude-sonnet-4',
        RETRY_BASE_DELAY_MS: '0',
        RETRY_MAX_DELAY_MS: '0',
        BODY_LIMIT_MB: '2',
        MODELS_FILE: modelsFile,
      },
    });
    admin = new AdminClient(t.url);
  });

  beforeEach(async () => {
    apiKey = (await admin.teamWithKey(100)).apiKey;
    client = new Anthropic({ baseURL: t.url, apiKey, maxRetries: 0 });
    wallet = await new Wallet(t.url, apiKey).snapshot();
  });

  afterEach(() => {
    anthropic.reset();
    openai.reset();
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([anthropic?.close(), openai?.close()]);
    rmSync(catalogDir, { recursive: true, force: true });
  });

  describe('Claude models: native pass-through', () => {
    it('messages.create: the body goes upstream as sent (model id swapped), the message comes back with cost', async () => {
      anthropic.enqueue({ text: 'Hello from Claude.', usage: { input: 20, output: 5 } });
      const { data, response } = await client.messages
        .create({
          model: 'claude-sonnet-4',
          max_tokens: 256,
          system: 'You are terse.',
          messages: [{ role: 'user', content: 'Hello' }],
          // sampling fields older Claude models take (the SDK's types no longer list them)
          ...{ temperature: 0.5, top_k: 40 },
          stop_sequences: ['END'],
          metadata: { user_id: 'end-user-7' },
        } as Anthropic.MessageCreateParamsNonStreaming)
        .withResponse();

      expect(data).toMatchObject({
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-20250514',
        content: [{ type: 'text', text: 'Hello from Claude.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 20, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      });
      const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 20, completion: 5 });
      expect(costOf(data)).toEqual(cost);
      expect(response.headers.get('x-gateway-cost-rub')).toBe(String(cost.total_cost_rub));
      expect(response.headers.get('x-gateway-model')).toBe('claude-sonnet-4');

      const sent = anthropic.lastRequest!;
      expect(sent.path).toBe('/v1/messages');
      expect(sent.headers['x-api-key']).toBe(UPSTREAM_KEYS.anthropic);
      // the SDK's own anthropic-version travels on (the raw-request tests check the exact value)
      expect(sent.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(sent.body).toEqual({
        model: 'claude-sonnet-4-20250514',
        max_tokens: 256,
        system: 'You are terse.',
        messages: [{ role: 'user', content: 'Hello' }],
        temperature: 0.5,
        top_k: 40,
        stop_sequences: ['END'],
        metadata: { user_id: 'end-user-7' },
      });
      await wallet.expectCharged(cost.total_cost_rub, {
        model: 'claude-sonnet-4',
        endpoint: '/v1/messages',
        promptTokens: 20,
        completionTokens: 5,
      });
    });

    it('Authorization: Bearer (Claude Code with ANTHROPIC_AUTH_TOKEN) works like x-api-key', async () => {
      anthropic.enqueue({ text: 'ok', usage: { input: 3, output: 1 } });
      const bearer = new Anthropic({ baseURL: t.url, authToken: apiKey, apiKey: null, maxRetries: 0 });
      const msg = await bearer.messages.create({
        model: 'claude-sonnet-4',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(msg.content).toEqual([{ type: 'text', text: 'ok' }]);
      // the caller's credentials never travel upstream
      expect(anthropic.lastRequest?.headers.authorization).toBeUndefined();
      expect(anthropic.lastRequest?.headers['x-api-key']).toBe(UPSTREAM_KEYS.anthropic);
    });

    it('messages.stream + finalMessage(): the upstream events relayed, message_delta carries cost, charged once', async () => {
      anthropic.enqueue({
        text: 'Streaming hello world.',
        reasoning: 'Think first.',
        usage: { input: 40, output: 12 },
      });
      const stream = client.messages.stream({
        model: 'claude-sonnet-4',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'Say hello' }],
      });
      const texts: string[] = [];
      stream.on('text', (d) => texts.push(d));
      const final = await stream.finalMessage();
      expect(texts.join('')).toBe('Streaming hello world.');
      expect(final.content).toEqual([
        { type: 'thinking', thinking: 'Think first.', signature: expect.any(String) },
        { type: 'text', text: 'Streaming hello world.' },
      ]);
      expect(final.stop_reason).toBe('end_turn');
      expect(final.usage).toMatchObject({ input_tokens: 40, output_tokens: 12 });
      expect(anthropic.lastRequest?.body).toMatchObject({
        stream: true,
        thinking: { type: 'enabled', budget_tokens: 1024 },
      });
      const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 40, completion: 12 });
      await wallet.expectCharged(cost.total_cost_rub, {
        model: 'claude-sonnet-4',
        promptTokens: 40,
        completionTokens: 12,
      });

      // the raw events: the upstream's sequence, cost added to message_delta
      anthropic.enqueue({ text: 'Hi.', usage: { input: 4, output: 2 } });
      const raw = await postSse(
        `${t.url}/v1/messages`,
        { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
        { model: 'claude-sonnet-4', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      );
      expect(raw.status).toBe(200);
      expect(raw.messages.map((m) => m.event)).toEqual([
        'message_start',
        'content_block_start',
        'ping',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      const delta = obj(JSON.parse(raw.messages[5].data));
      expect(delta.cost).toEqual(expectedCost(PRICES['claude-sonnet-4'], { prompt: 4, completion: 2 }));
      expect(delta.usage).toEqual({ output_tokens: 2 });
    });

    it('a two-turn tool loop: tool_use answered with tool_result; thinking with its signature round-trips unchanged', async () => {
      anthropic.enqueue({
        reasoning: 'I need the weather tool.',
        signature: 'c2lnbmF0dXJlLW9mLXR1cm4tMQ==',
        text: 'Let me check.',
        toolCalls: [{ id: 'toolu_weather_1', name: 'get_weather', arguments: { city: 'Paris' } }],
        usage: { input: 50, output: 30 },
      });
      const first = await client.messages.create({
        model: 'claude-sonnet-4',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        tools: [WEATHER],
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
      });
      expect(first.stop_reason).toBe('tool_use');
      const toolUse = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
      expect(toolUse).toEqual({
        type: 'tool_use',
        id: 'toolu_weather_1',
        name: 'get_weather',
        input: { city: 'Paris' },
      });
      expect(first.content[0]).toEqual({
        type: 'thinking',
        thinking: 'I need the weather tool.',
        signature: 'c2lnbmF0dXJlLW9mLXR1cm4tMQ==',
      });

      anthropic.enqueue({ text: 'It is sunny in Paris.', usage: { input: 90, output: 8 } });
      const second = await client.messages.create({
        model: 'claude-sonnet-4',
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        tools: [WEATHER],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '22°C, sunny' }] },
        ],
      });
      expect(second.content).toEqual([{ type: 'text', text: 'It is sunny in Paris.' }]);
      const sent = obj(anthropic.lastRequest?.body);
      const turns = arr(sent.messages);
      // the assistant turn (thinking block with its signature) is exactly what the first answer returned
      expect(obj(turns[1]).content).toEqual(JSON.parse(JSON.stringify(first.content)));
      expect(obj(turns[2]).content).toEqual([
        { type: 'tool_result', tool_use_id: 'toolu_weather_1', content: '22°C, sunny' },
      ]);
      await wallet.expectChargedEach([
        expectedCost(PRICES['claude-sonnet-4'], { prompt: 50, completion: 30 }).total_cost_rub,
        expectedCost(PRICES['claude-sonnet-4'], { prompt: 90, completion: 8 }).total_cost_rub,
      ]);
    });

    it('images and PDFs pass through natively; the image fee is charged', async () => {
      anthropic.enqueue({ text: 'A tiny PNG and a PDF.', usage: { input: 1700, output: 6 } });
      const png = pngBytes().toString('base64');
      const msg = await client.messages.create({
        model: 'claude-sonnet-4',
        max_tokens: 100,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
              { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 } },
              { type: 'text', text: 'What are these?' },
            ],
          },
        ],
      });
      expect(msg.content).toEqual([{ type: 'text', text: 'A tiny PNG and a PDF.' }]);
      const content = arr(obj(arr(obj(anthropic.lastRequest?.body).messages)[0]).content);
      expect(content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } });
      expect(content[1]).toEqual({ type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } });
      expect(content[2]).toEqual({
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 },
      });
      const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 1700, completion: 6, images: 2 });
      expect(costOf(msg)).toEqual(cost);
      await wallet.expectCharged(cost.total_cost_rub);
    });

    it('cache_control: 5-minute and 1-hour cache writes and cache reads are billed at their own prices', async () => {
      // 100 uncached, 300 read, 200 written (5 m: 50, 1 h: 150), 10 output
      anthropic.enqueue({
        text: 'cached',
        usage: { input: 600, output: 10, cacheRead: 300, cacheWrite: 200 },
        rawUsage: {
          input_tokens: 100,
          cache_read_input_tokens: 300,
          cache_creation_input_tokens: 200,
          cache_creation: { ephemeral_5m_input_tokens: 50, ephemeral_1h_input_tokens: 150 },
          output_tokens: 10,
        },
      });
      const msg = await client.messages.create({
        model: 'claude-sonnet-4',
        max_tokens: 100,
        system: [
          { type: 'text', text: 'Long stable instructions.', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: 'Per-session context.', cache_control: { type: 'ephemeral' } },
        ],
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(msg.usage).toMatchObject({
        input_tokens: 100,
        cache_read_input_tokens: 300,
        cache_creation_input_tokens: 200,
        cache_creation: { ephemeral_5m_input_tokens: 50, ephemeral_1h_input_tokens: 150 },
      });
      // µRUB: input 100×300 = 30 000; reads 300×30 = 9 000; 5 m writes 50×375 = 18 750;
      // 1 h writes 150×600 = 90 000; output 10×1500 = 15 000 → 162 750
      expect(costOf(msg)).toEqual({
        input_cost_rub: 0.03,
        output_cost_rub: 0.015,
        image_cost_rub: null,
        cache_cost_rub: 0.11775,
        total_cost_rub: 0.16275,
        currency: 'RUB',
      });
      expect(arr(obj(anthropic.lastRequest?.body).system)[0]).toEqual({
        type: 'text',
        text: 'Long stable instructions.',
        cache_control: { type: 'ephemeral', ttl: '1h' },
      });
      await wallet.expectCharged(0.16275, { promptTokens: 600, completionTokens: 10 });
    });

    it('an upstream 529 is retried by the gateway; the answer is charged once', async () => {
      anthropic.enqueue({ fault: faults.http(529) }, { text: 'after retry', usage: { input: 5, output: 2 } });
      const msg = await client.messages.create({
        model: 'claude-sonnet-4',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(msg.content).toEqual([{ type: 'text', text: 'after retry' }]);
      expect(anthropic.requestsTo('/v1/messages')).toHaveLength(2);
      await wallet.expectCharged(expectedCost(PRICES['claude-sonnet-4'], { prompt: 5, completion: 2 }).total_cost_rub);
    });

    it('a Claude model that keeps failing falls back to its catalog fallback, translated; charged at its prices', async () => {
      anthropic.enqueue(...Array.from({ length: 3 }, () => ({ fault: faults.http(500) })));
      openai.enqueue({ text: 'From the fallback.', usage: { input: 12, output: 4 } });
      const { data, response } = await client.messages
        .create({ model: 'claude-3-5-haiku', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      expect(data).toMatchObject({
        type: 'message',
        model: 'gpt-4o-mini',
        content: [{ type: 'text', text: 'From the fallback.' }],
        stop_reason: 'end_turn',
      });
      expect(response.headers.get('x-gateway-model')).toBe('gpt-4o-mini');
      expect(anthropic.requestsTo('/v1/messages')).toHaveLength(3);
      expect(openai.lastRequest?.body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 64 });
      await wallet.expectCharged(expectedCost(PRICES['gpt-4o-mini'], { prompt: 12, completion: 4 }).total_cost_rub, {
        model: 'gpt-4o-mini',
      });
    });

    it('streaming: a Claude stream that fails before any content falls back to a translated stream', async () => {
      anthropic.enqueue(...Array.from({ length: 3 }, () => ({ fault: faults.http(529) })));
      openai.enqueue({ text: 'Fallback stream.', usage: { input: 9, output: 3 } });
      const final = await client.messages
        .stream({ model: 'claude-3-5-haiku', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
        .finalMessage();
      expect(final).toMatchObject({
        model: 'gpt-4o-mini',
        content: [{ type: 'text', text: 'Fallback stream.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 9, output_tokens: 3 },
      });
      expect(anthropic.requestsTo('/v1/messages')).toHaveLength(3);
      await wallet.expectCharged(expectedCost(PRICES['gpt-4o-mini'], { prompt: 9, completion: 3 }).total_cost_rub, {
        model: 'gpt-4o-mini',
      });
    });

    it('a stream cut after content: an error event ends the stream, the delivered tokens are charged', async () => {
      anthropic.enqueue({
        text: 'one two three four five six seven eight',
        usage: { input: 10, output: 8 },
        fault: faults.streamError({ afterChunks: 5, errorType: 'overloaded_error', message: 'Overloaded' }),
      });
      const raw = await postSse(
        `${t.url}/v1/messages`,
        { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
        { model: 'claude-sonnet-4', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'count' }] },
      );
      expect(raw.status).toBe(200);
      const last = raw.messages[raw.messages.length - 1];
      expect(last.event).toBe('error');
      expect(JSON.parse(last.data)).toEqual({
        type: 'error',
        error: { type: expect.any(String), message: expect.any(String) },
      });
      expect(raw.messages.some((m) => m.event === 'content_block_delta')).toBe(true);
      expect(raw.messages.some((m) => m.event === 'message_stop')).toBe(false);
      const charged = await charges(t.url, apiKey);
      expect(charged).toHaveLength(1);
      expect(charged[0].completion_tokens).toBeGreaterThan(0);
      expect(charged[0].amount_rub).not.toBe(0);
    });

    it('MODEL_ALIASES: a dated Claude name the catalog lacks is served by its catalog model', async () => {
      anthropic.enqueue({ text: 'aliased', usage: { input: 3, output: 1 } });
      const msg = await client.messages.create({
        model: 'claude-3-5-sonnet-latest',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(msg.content).toEqual([{ type: 'text', text: 'aliased' }]);
      expect(obj(anthropic.lastRequest?.body).model).toBe('claude-sonnet-4-20250514');
      await wallet.expectCharged(expectedCost(PRICES['claude-sonnet-4'], { prompt: 3, completion: 1 }).total_cost_rub, {
        model: 'claude-sonnet-4',
      });
    });
  });

  describe('other models: translated through the canonical types', () => {
    it('messages.create to gpt-4o-mini: system blocks, tools and tool_choice translated; the answer in Anthropic shape', async () => {
      openai.enqueue({
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }],
        usage: { input: 60, output: 9, cacheRead: 20 },
      });
      const msg = await client.messages.create({
        model: 'gpt-4o-mini',
        max_tokens: 300,
        system: [
          { type: 'text', text: 'You are a weather bot.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Use tools.' },
        ],
        tools: [WEATHER],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        stop_sequences: ['STOP'],
        metadata: { user_id: 'end-user-9' },
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      });
      expect(msg).toMatchObject({
        type: 'message',
        role: 'assistant',
        model: 'gpt-4o-mini',
        stop_reason: 'tool_use',
        content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } }],
        usage: { input_tokens: 40, output_tokens: 9, cache_read_input_tokens: 20, cache_creation_input_tokens: 0 },
      });
      expect(msg.id).toMatch(/^msg_/);
      expect(openai.lastRequest?.body).toMatchObject({
        model: 'gpt-4o-mini',
        max_tokens: 300,
        messages: [
          { role: 'system', content: 'You are a weather bot.\nUse tools.' },
          { role: 'user', content: 'Weather in Oslo?' },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'Current weather for a city',
              parameters: WEATHER.input_schema,
            },
          },
        ],
        tool_choice: 'required',
        parallel_tool_calls: false,
        stop: ['STOP'],
        user: 'end-user-9',
      });
      const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 60, completion: 9, cacheRead: 20 });
      expect(costOf(msg)).toEqual(cost);
      await wallet.expectCharged(cost.total_cost_rub, { model: 'gpt-4o-mini', endpoint: '/v1/messages' });
    });

    it('the tool loop translated: tool_use / tool_result become tool_calls / tool messages; an image in a tool result follows as a user turn', async () => {
      openai.enqueue({ text: 'Sunny, and that is a PNG.', usage: { input: 80, output: 7 } });
      const png = pngBytes().toString('base64');
      const msg = await client.messages.create({
        model: 'gpt-4o-mini',
        max_tokens: 100,
        tools: [WEATHER],
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'call_1',
                content: [
                  { type: 'text', text: 'sunny' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
                ],
              },
            ],
          },
        ],
      });
      expect(msg.content).toEqual([{ type: 'text', text: 'Sunny, and that is a PNG.' }]);
      expect(msg.stop_reason).toBe('end_turn');
      expect(arr(obj(openai.lastRequest?.body).messages)).toEqual([
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] },
      ]);
    });

    it('messages.stream to gpt-4o-mini: the exact Anthropic event sequence, reasoning as thinking, finalMessage with cost', async () => {
      openai.enqueue({
        reasoning: 'Hmm.',
        text: 'Hello there!',
        toolCalls: [{ id: 'call_9', name: 'get_weather', arguments: { city: 'Rome' } }],
        usage: { input: 30, output: 12 },
      });
      const stream = client.messages.stream({
        model: 'gpt-4o-mini',
        max_tokens: 100,
        tools: [WEATHER],
        messages: [{ role: 'user', content: 'hi' }],
      });
      const final = await stream.finalMessage();
      expect(final.content).toEqual([
        { type: 'thinking', thinking: 'Hmm.', signature: '' },
        { type: 'text', text: 'Hello there!' },
        { type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Rome' } },
      ]);
      expect(final.stop_reason).toBe('tool_use');
      expect(final.usage).toMatchObject({ input_tokens: 30, output_tokens: 12 });
      const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 30, completion: 12 });
      await wallet.expectCharged(cost.total_cost_rub, { model: 'gpt-4o-mini' });

      openai.enqueue({ text: 'Hi!', usage: { input: 8, output: 2 } });
      const raw = await postSse(
        `${t.url}/v1/messages`,
        { authorization: `Bearer ${apiKey}`, 'anthropic-version': '2023-06-01' },
        { model: 'gpt-4o-mini', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      );
      expect(raw.messages.map((m) => m.event)).toEqual([
        'message_start',
        'ping',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      expect(raw.messages.every((m) => obj(JSON.parse(m.data)).type === m.event)).toBe(true);
      expect(JSON.parse(raw.messages[5].data)).toEqual({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: {
          input_tokens: 8,
          output_tokens: 2,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        },
        cost: expectedCost(PRICES['gpt-4o-mini'], { prompt: 8, completion: 2 }),
      });
    });

    it('a translated stream: ping keep-alives in long pauses; a failure mid-stream ends it with an error event, delivered tokens charged', async () => {
      const service = t.get(MessagesService);
      service.pingIntervalMs = 40;
      try {
        openai.enqueue({
          text: 'alpha beta gamma delta epsilon',
          chunkSize: 6,
          chunkDelayMs: 120,
          usage: { input: 10, output: 5 },
          fault: faults.streamError({ afterChunks: 3 }),
        });
        const raw = await postSse(
          `${t.url}/v1/messages`,
          { 'x-api-key': apiKey },
          { model: 'gpt-4o-mini', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'greek' }] },
        );
        const names = raw.messages.map((m) => m.event);
        expect(names.slice(0, 2)).toEqual(['message_start', 'ping']);
        expect(names.filter((n) => n === 'ping').length).toBeGreaterThan(2);
        expect(names[names.length - 1]).toBe('error');
        expect(names).not.toContain('message_stop');
        expect(JSON.parse(raw.messages[raw.messages.length - 1].data)).toEqual({
          type: 'error',
          error: { type: 'api_error', message: expect.stringContaining('openai') },
        });
        const charged = await charges(t.url, apiKey);
        expect(charged).toHaveLength(1);
        expect(charged[0].completion_tokens).toBeGreaterThan(0);
      } finally {
        service.pingIntervalMs = 10_000;
      }
    });

    it('what only Claude can take (a PDF, a server tool, top_k) → 400 before any upstream call, nothing charged', async () => {
      const cases: Anthropic.MessageCreateParamsNonStreaming[] = [
        {
          model: 'gpt-4o-mini',
          max_tokens: 10,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 } },
              ],
            },
          ],
        },
        {
          model: 'gpt-4o-mini',
          max_tokens: 10,
          tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
          messages: [{ role: 'user', content: 'news?' }],
        },
        {
          model: 'gpt-4o-mini',
          max_tokens: 10,
          ...{ top_k: 5 },
          messages: [{ role: 'user', content: 'hi' }],
        } as Anthropic.MessageCreateParamsNonStreaming,
      ];
      for (const params of cases) {
        const err = await client.messages.create(params).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(Anthropic.BadRequestError);
        expect((err as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
          type: 'error',
          error: { type: 'invalid_request_error', message: expect.stringContaining('gpt-4o-mini') },
        });
      }
      expect(openai.requests).toHaveLength(0);
      await wallet.expectUntouched();
    });
  });

  describe('a recorded Claude Code request', () => {
    it('reaches Anthropic byte-for-byte (body and anthropic headers) and streams back', async () => {
      anthropic.enqueue({
        reasoning: 'Add a test.',
        text: 'Adding a test now.',
        usage: { input: 9000, output: 40, cacheRead: 8000 },
      });
      const raw = await fetch(`${t.url}/v1/messages?beta=true`, {
        method: 'POST',
        headers: { ...RECORDED.headers, 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify(RECORDED.body),
      });
      expect(raw.status).toBe(200);
      await raw.text();
      const sent = anthropic.lastRequest!;
      expect(sent.rawBody).toBe(JSON.stringify(RECORDED.body));
      expect(sent.headers['anthropic-beta']).toBe(RECORDED.headers['anthropic-beta']);
      expect(sent.headers['anthropic-version']).toBe(RECORDED.headers['anthropic-version']);
      expect(sent.headers.authorization).toBeUndefined();
      await wallet.expectCharged(
        expectedCost(PRICES['claude-sonnet-4'], { prompt: 9000, completion: 40, cacheRead: 8000 }).total_cost_rub,
      );
    });

    it('is translated to a working request for gpt-4o', async () => {
      openai.enqueue({ text: 'Test added.', usage: { input: 3000, output: 20 } });
      const body = { ...RECORDED.body, model: 'gpt-4o' };
      const raw = await postSse(
        `${t.url}/v1/messages`,
        { ...RECORDED.headers, authorization: `Bearer ${apiKey}` },
        body,
      );
      expect(raw.status).toBe(200);
      expect(raw.messages[raw.messages.length - 1].event).toBe('message_stop');
      const sent = obj(openai.lastRequest?.body);
      expect(sent.model).toBe('gpt-4o');
      // Claude Code's max_tokens (32000) is above gpt-4o's output cap: the cap is used
      expect(sent.max_tokens).toBe(16384);
      expect(arr(sent.tools)).toHaveLength(20);
      const msgs = arr(sent.messages).map((m) => obj(m));
      expect(msgs[0]).toMatchObject({ role: 'system' });
      expect(msgs.filter((m) => m.role === 'tool')).toHaveLength(6);
      // every tool result answers a tool call made before it
      const called = new Set<string>();
      for (const m of msgs) {
        for (const c of (m.tool_calls as { id: string }[] | undefined) ?? []) called.add(c.id);
        if (m.role === 'tool') expect(called.has(String(m.tool_call_id))).toBe(true);
      }
      expect(openai.lastRequest?.headers['anthropic-beta']).toBeUndefined();
    });
  });

  describe('countTokens and models.list', () => {
    it("countTokens: Claude models ask the provider's free counting endpoint, others are counted locally; nothing charged", async () => {
      const claude = await client.messages.countTokens({
        model: 'claude-sonnet-4',
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'one two three' }],
      });
      expect(claude.input_tokens).toBeGreaterThan(0);
      expect(anthropic.requestsTo('/v1/messages/count_tokens')).toHaveLength(1);
      expect(obj(anthropic.lastRequest?.body).model).toBe('claude-sonnet-4-20250514');

      const local = await client.messages.countTokens({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'one two three' }],
      });
      expect(local.input_tokens).toBeGreaterThan(3);
      expect(openai.requests).toHaveLength(0);
      await wallet.expectUntouched();
    });

    it("models.list: Anthropic's list shape with the chat models; the OpenAI shape stays without anthropic-version", async () => {
      const ids: string[] = [];
      for await (const m of client.models.list()) {
        expect(m.type).toBe('model');
        ids.push(m.id);
      }
      expect(ids).toEqual(expect.arrayContaining(['claude-sonnet-4', 'gpt-4o-mini', 'local']));
      expect(ids).not.toContain('text-embedding-3-small');
      // one model; an alias answers with its catalog entry
      expect(await client.models.retrieve('claude-3-5-sonnet-latest')).toMatchObject({
        type: 'model',
        id: 'claude-sonnet-4',
      });
      const openAiShape = await request(t.url).get('/v1/models').set('authorization', `Bearer ${apiKey}`);
      expect(openAiShape.body.object).toBe('list');
    });
  });

  describe('errors: Anthropic shape and statuses on /v1/messages, the SDK raises its classes', () => {
    it('401 authentication_error, 404 not_found_error, 400 invalid_request_error, 402 billing_error', async () => {
      const bad = new Anthropic({ baseURL: t.url, apiKey: 'sk-not-a-key', maxRetries: 0 });
      const unauth = await bad.messages
        .create({ model: 'claude-sonnet-4', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(unauth).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((unauth as SdkError).error).toMatchObject({
        type: 'error',
        error: { type: 'authentication_error' },
      });

      const missing = await client.messages
        .create({ model: 'claude-9000', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
      expect((missing as SdkError).error).toMatchObject({ error: { type: 'not_found_error' } });

      for (const body of [
        { model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'x' }] },
        { model: 'claude-sonnet-4', max_tokens: 5, messages: [{ role: 'system', content: 'x' }] },
        {
          model: 'claude-sonnet-4',
          max_tokens: 5,
          messages: [
            {
              role: 'user',
              content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AA' } }],
            },
          ],
        },
        {
          model: 'claude-sonnet-4',
          max_tokens: 2000,
          thinking: { type: 'enabled', budget_tokens: 100 },
          messages: [{ role: 'user', content: 'x' }],
        },
      ]) {
        const invalid = await client.messages
          .create(body as unknown as Anthropic.MessageCreateParamsNonStreaming)
          .catch((e: unknown) => e);
        expect(invalid).toBeInstanceOf(Anthropic.BadRequestError);
        expect((invalid as SdkError).error).toMatchObject({
          type: 'error',
          error: { type: 'invalid_request_error', message: expect.any(String) },
        });
      }

      const poor = (await admin.teamWithKey(0.0001, 'poor')).apiKey;
      const broke = await new Anthropic({ baseURL: t.url, apiKey: poor, maxRetries: 0 }).messages
        .create({ model: 'claude-sonnet-4', max_tokens: 5000, messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(broke).toBeInstanceOf(Anthropic.APIError);
      expect((broke as SdkError).status).toBe(402);
      expect((broke as SdkError).error).toMatchObject({ error: { type: 'billing_error' } });

      expect(anthropic.requestsTo('/v1/messages')).toHaveLength(0);
      await wallet.expectUntouched();
      // the OpenAI-shaped errors elsewhere stay
      const openAiPath = await request(t.url).post('/v1/chat/completions').set('authorization', 'Bearer nope').send({});
      expect(Object.keys(openAiPath.body)).toEqual(['error']);
    });

    it('429 rate_limit_error with retry-after, 529 overloaded_error, 413 request_too_large', async () => {
      anthropic.enqueue(...Array.from({ length: 3 }, () => ({ fault: faults.http(429, { retryAfter: 0 }) })));
      const limited = await client.messages
        .create({ model: 'claude-sonnet-4', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
      expect((limited as SdkError).headers?.get('retry-after')).toMatch(/^\d+$/);
      expect((limited as SdkError).error).toMatchObject({ error: { type: 'rate_limit_error' } });

      anthropic.enqueue(...Array.from({ length: 3 }, () => ({ fault: faults.http(529) })));
      const overloaded = await client.messages
        .create({ model: 'claude-sonnet-4', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(overloaded).toBeInstanceOf(Anthropic.InternalServerError);
      expect((overloaded as SdkError).status).toBe(529);
      expect((overloaded as SdkError).error).toMatchObject({ error: { type: 'overloaded_error' } });

      const huge = 'x'.repeat(3 * 1024 * 1024);
      const tooLarge = await client.messages
        .create({ model: 'claude-sonnet-4', max_tokens: 5, messages: [{ role: 'user', content: huge }] })
        .catch((e: unknown) => e);
      expect(tooLarge).toBeInstanceOf(Anthropic.APIError);
      expect((tooLarge as SdkError).status).toBe(413);
      expect((tooLarge as SdkError).error).toMatchObject({ error: { type: 'request_too_large' } });
      await wallet.expectUntouched();
    });
  });
});
