/**
 * POST /v1/responses (OpenAI Responses API) through its real clients: the official `openai` SDK
 * (`client.responses.create`, streaming and not) and the Vercel AI SDK with its DEFAULT OpenAI
 * provider (`createOpenAI({ baseURL, apiKey })('local')` calls /v1/responses), on the built-in
 * `local` model and on the fake OpenAI upstream — where the request that reaches the upstream is a
 * chat-completions request and the charge is exactly tokens × catalog price.
 */
import OpenAI from 'openai';
import type { FunctionTool, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import request from 'supertest';
import { FakeOpenAI, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { CostRub, PRICES, UPSTREAM_KEYS, Wallet, charges, expectedCost, parseSse, providerEnv } from './chat-helpers';

const WEATHER: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

function costOf(value: object): CostRub | undefined {
  return (value as { cost?: CostRub }).cost;
}

const CONTEXT = 'Paris is the capital of France. Berlin is the capital of Germany.';

describe(`POST /v1/responses (${backendKind()})`, () => {
  let openai: FakeOpenAI;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let client: OpenAI;
  let wallet: Wallet;

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    // one attempt per call: the fault cases pin how a single failure maps to the client (retries: resilience.e2e-spec.ts)
    t = await createTestApp({ env: { ...providerEnv({ openai }), OPENAI_MAX_RETRIES: '0' } });
    admin = new AdminClient(t.url);
  });

  beforeEach(async () => {
    apiKey = (await admin.teamWithKey(100)).apiKey;
    client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 });
    wallet = await new Wallet(t.url, apiKey).snapshot();
  });

  afterEach(() => openai.reset());

  afterAll(async () => {
    await t?.close();
    await openai?.close();
  });

  describe('local model (no upstream)', () => {
    it('non-stream: same answer, usage and charge as /v1/chat/completions for the same conversation', async () => {
      const { data, response } = await client.responses
        .create({
          model: 'local',
          instructions: CONTEXT,
          input: 'What is the capital of France?',
          max_output_tokens: 64,
        })
        .withResponse();
      expect(data.object).toBe('response');
      expect(data.id).toMatch(/^resp_[0-9a-f]{32}$/);
      expect(data.status).toBe('completed');
      expect(data.model).toBe('local');
      expect(data.instructions).toBe(CONTEXT);
      expect(data.max_output_tokens).toBe(64);
      // stored by default, as in OpenAI's API (test/conformance/stored-responses.e2e-spec.ts)
      expect((data as { store?: boolean }).store).toBe(true);
      expect(data.output).toHaveLength(1);
      const item = data.output[0];
      if (item.type !== 'message') throw new Error(`expected a message, got ${item.type}`);
      expect(item).toMatchObject({ role: 'assistant', status: 'completed' });
      expect(item.content).toHaveLength(1);
      expect(data.output_text).toContain('Paris');

      const usage = data.usage!;
      expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
      expect(usage.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 0 });
      expect(usage.output_tokens_details).toEqual({ reasoning_tokens: 0 });
      const cost = expectedCost(PRICES.local, { prompt: usage.input_tokens, completion: usage.output_tokens });
      expect(costOf(data)).toEqual(cost);
      expect(response.headers.get('x-gateway-cost-rub')).toBe(String(cost.total_cost_rub));
      await wallet.expectCharged(cost.total_cost_rub, {
        model: 'local',
        endpoint: '/v1/responses',
        promptTokens: usage.input_tokens,
        completionTokens: usage.output_tokens,
      });

      // the same conversation through chat completions: one pipeline, identical text, usage and cost
      const cc = await client.chat.completions.create({
        model: 'local',
        max_tokens: 64,
        messages: [
          { role: 'system', content: CONTEXT },
          { role: 'user', content: 'What is the capital of France?' },
        ],
      });
      expect(cc.choices[0].message.content).toBe(data.output_text);
      expect(cc.usage).toMatchObject({ prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens });
      expect(costOf(cc)).toEqual(cost);
    });

    it('stream: the Responses event sequence with sequence numbers; response.completed carries usage and cost; billed exactly', async () => {
      const stream = await client.responses.create({
        model: 'local',
        instructions: CONTEXT,
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is the capital of Germany?' }] }],
        stream: true,
      });
      const events: ResponseStreamEvent[] = [];
      for await (const e of stream) events.push(e);

      const types = events.map((e) => e.type);
      const deltas = events.filter((e) => e.type === 'response.output_text.delta');
      expect(deltas.length).toBeGreaterThan(0);
      expect(types).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        ...deltas.map(() => 'response.output_text.delta'),
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      const text = deltas.map((e) => (e.type === 'response.output_text.delta' ? e.delta : '')).join('');
      expect(text).toContain('Berlin');
      const done = events.find((e) => e.type === 'response.output_text.done');
      expect(done?.type === 'response.output_text.done' && done.text).toBe(text);

      const completed = events[events.length - 1];
      if (completed.type !== 'response.completed') throw new Error('no response.completed');
      expect(completed.response.status).toBe('completed');
      expect(completed.response.id).toBe(events[0].type === 'response.created' ? events[0].response.id : 'missing');
      expect(completed.response.output_text ?? text).toBe(text);
      const usage = completed.response.usage!;
      const cost = expectedCost(PRICES.local, { prompt: usage.input_tokens, completion: usage.output_tokens });
      expect(costOf(completed.response)).toEqual(cost);
      await wallet.expectCharged(cost.total_cost_rub, { model: 'local', endpoint: '/v1/responses' });
    });

    it('models.retrieve("local") describes the model the examples use', async () => {
      const model = await client.models.retrieve('local');
      expect(model).toMatchObject({ id: 'local', object: 'model' });
    });

    it('Vercel AI SDK, default provider (Responses API): generateText and streamText', async () => {
      const provider = createOpenAI({ baseURL: `${t.url}/v1`, apiKey });
      const generated = await generateText({
        model: provider('local'),
        system: CONTEXT,
        prompt: 'What is the capital of France?',
        maxOutputTokens: 64,
        maxRetries: 0,
      });
      expect(generated.text).toContain('Paris');
      expect(generated.finishReason).toBe('stop');
      expect(generated.usage.inputTokens).toBeGreaterThan(0);
      expect(generated.usage.outputTokens).toBeGreaterThan(0);
      expect(generated.response.modelId).toBe('local');

      const streamed = streamText({
        model: provider('local'),
        system: CONTEXT,
        prompt: 'What is the capital of Germany?',
        maxRetries: 0,
      });
      let chunks = 0;
      let text = '';
      for await (const piece of streamed.textStream) {
        chunks++;
        text += piece;
      }
      expect(chunks).toBeGreaterThan(0);
      expect(text).toContain('Berlin');
      expect(await streamed.finishReason).toBe('stop');
      const usage = await streamed.usage;
      expect(usage.totalTokens).toBe((usage.inputTokens ?? 0) + (usage.outputTokens ?? 0));

      // both calls were metered on /v1/responses with the catalog price
      await wallet.expectChargedEach([
        expectedCost(PRICES.local, { prompt: generated.usage.inputTokens!, completion: generated.usage.outputTokens! })
          .total_cost_rub,
        expectedCost(PRICES.local, { prompt: usage.inputTokens!, completion: usage.outputTokens! }).total_cost_rub,
      ]);
      expect((await charges(t.url, apiKey)).slice(0, 2).map((c) => c.endpoint)).toEqual([
        '/v1/responses',
        '/v1/responses',
      ]);
    });
  });

  describe('fake OpenAI upstream', () => {
    it('non-stream: a correct chat-completions request upstream; usage mapped; exact charge = tokens × price', async () => {
      openai.enqueue({ text: 'Hello there, friend!', usage: { input: 42, output: 7, cacheRead: 10 } });
      const { data, response } = await client.responses
        .create({
          model: 'gpt-4o-mini',
          instructions: 'Be brief.',
          input: [
            { role: 'developer', content: 'Answer in English.' },
            { role: 'user', content: 'Say hello' },
            {
              type: 'message',
              id: 'msg_earlier',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text: 'Hi!', annotations: [] }],
            },
            { role: 'user', content: [{ type: 'input_text', text: 'Again' }] },
          ],
          max_output_tokens: 100,
          temperature: 0.3,
          top_p: 0.9,
          user: 'u-1',
        })
        .withResponse();
      expect(data.output_text).toBe('Hello there, friend!');
      expect(data.usage).toEqual({
        input_tokens: 42,
        input_tokens_details: { cached_tokens: 10, cache_write_tokens: 0 },
        output_tokens: 7,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 49,
      });
      const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 42, completion: 7, cacheRead: 10 });
      expect(cost.total_cost_rub).toBe(0.000975);
      expect(costOf(data)).toEqual(cost);
      expect(response.headers.get('x-gateway-cost-rub')).toBe('0.000975');

      const sent = openai.lastRequest;
      expect(sent?.path).toBe('/v1/chat/completions');
      expect(sent?.body).toEqual({
        model: 'gpt-4o-mini',
        max_tokens: 100,
        temperature: 0.3,
        top_p: 0.9,
        user: 'u-1',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: 'Answer in English.' },
          { role: 'user', content: 'Say hello' },
          { role: 'assistant', content: 'Hi!' },
          { role: 'user', content: 'Again' },
        ],
      });
      await wallet.expectCharged(0.000975, {
        model: 'gpt-4o-mini',
        endpoint: '/v1/responses',
        promptTokens: 42,
        completionTokens: 7,
      });
    });

    it('function tools: function_call output items, then function_call_output on the next turn', async () => {
      openai.enqueue({
        toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }],
        usage: { input: 80, output: 15 },
      });
      const first = await client.responses.create({
        model: 'gpt-4o-mini',
        input: 'Weather in Paris?',
        tools: [WEATHER],
        tool_choice: 'auto',
      });
      expect(first.output).toEqual([
        {
          id: expect.stringMatching(/^fc_/),
          type: 'function_call',
          status: 'completed',
          call_id: 'call_w1',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
        },
      ]);
      expect(openai.lastRequest?.body).toMatchObject({
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: WEATHER.description,
              parameters: WEATHER.parameters,
              strict: true,
            },
          },
        ],
        tool_choice: 'auto',
      });

      openai.enqueue({ text: 'It is 21 °C in Paris.', usage: { input: 95, output: 9 } });
      const call = first.output[0];
      if (call.type !== 'function_call') throw new Error('expected a function call');
      const second = await client.responses.create({
        model: 'gpt-4o-mini',
        tools: [WEATHER],
        tool_choice: { type: 'function', name: 'get_weather' },
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          call,
          { type: 'function_call_output', call_id: call.call_id, output: '{"temp":21}' },
        ],
      });
      expect(second.output_text).toBe('It is 21 °C in Paris.');
      expect(openai.lastRequest?.body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
      expect(openai.lastRequest?.body.messages).toEqual([
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', content: '{"temp":21}', tool_call_id: 'call_w1' },
      ]);
      await wallet.expectChargedEach([
        expectedCost(PRICES['gpt-4o-mini'], { prompt: 80, completion: 15 }).total_cost_rub,
        expectedCost(PRICES['gpt-4o-mini'], { prompt: 95, completion: 9 }).total_cost_rub,
      ]);
    });

    it('stream with two function calls: argument delta events per call, items done in order, usage and cost on response.completed', async () => {
      openai.enqueue({
        toolCalls: [
          { id: 'call_p', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_b', name: 'get_weather', arguments: { city: 'Berlin' } },
        ],
        chunkSize: 3,
        usage: { input: 60, output: 20 },
      });
      const stream = await client.responses.create({
        model: 'gpt-4o-mini',
        input: 'Paris and Berlin?',
        tools: [WEATHER],
        stream: true,
      });
      const events: ResponseStreamEvent[] = [];
      for await (const e of stream) events.push(e);
      expect(openai.lastRequest?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });

      const added = events.filter((e) => e.type === 'response.output_item.added');
      expect(
        added.map((e) => (e.type === 'response.output_item.added' ? [e.output_index, e.item.type] : null)),
      ).toEqual([
        [0, 'function_call'],
        [1, 'function_call'],
      ]);
      for (const index of [0, 1]) {
        const deltas = events.filter(
          (e) => e.type === 'response.function_call_arguments.delta' && e.output_index === index,
        );
        expect(deltas.length).toBeGreaterThan(1);
        const args = deltas.map((e) => (e.type === 'response.function_call_arguments.delta' ? e.delta : '')).join('');
        const done = events.find((e) => e.type === 'response.function_call_arguments.done' && e.output_index === index);
        expect(done?.type === 'response.function_call_arguments.done' && done.arguments).toBe(args);
      }
      const completed = events[events.length - 1];
      if (completed.type !== 'response.completed') throw new Error('no response.completed');
      expect(
        completed.response.output.map((o) => (o.type === 'function_call' ? [o.call_id, o.arguments] : o.type)),
      ).toEqual([
        ['call_p', '{"city":"Paris"}'],
        ['call_b', '{"city":"Berlin"}'],
      ]);
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 60, completion: 20 });
      expect(costOf(completed.response)).toEqual(cost);
      await wallet.expectCharged(cost.total_cost_rub, {
        endpoint: '/v1/responses',
        promptTokens: 60,
        completionTokens: 20,
      });
    });

    it('max_output_tokens reached: status incomplete with reason max_output_tokens (response.incomplete when streaming)', async () => {
      openai.enqueue({ text: 'A long answer that was cut', finish: 'length', usage: { input: 10, output: 5 } });
      const r = await client.responses.create({ model: 'gpt-4o-mini', input: 'Tell me a story', max_output_tokens: 5 });
      expect(r.status).toBe('incomplete');
      expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });

      openai.enqueue({ text: 'A long answer that was cut', finish: 'length', usage: { input: 10, output: 5 } });
      const res = await request(t.url)
        .post('/v1/responses')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ model: 'gpt-4o-mini', input: 'Tell me a story', max_output_tokens: 5, stream: true });
      const last = parseSse(res.text).pop();
      expect(last?.event).toBe('response.incomplete');
      expect(JSON.parse(last!.data).response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    });

    it('upstream failure mid-stream: error and response.failed events in-band; before the stream: an OpenAI-shaped HTTP error', async () => {
      openai.enqueue({ text: 'partial answer here', chunkSize: 4, fault: faults.streamError({ afterChunks: 2 }) });
      const res = await request(t.url)
        .post('/v1/responses')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ model: 'gpt-4o-mini', input: 'hi', stream: true });
      const events = parseSse(res.text);
      expect(events.slice(-2).map((e) => e.event)).toEqual(['error', 'response.failed']);
      expect(JSON.parse(events[events.length - 1].data).response).toMatchObject({
        status: 'failed',
        error: { code: expect.any(String), message: expect.any(String) },
      });

      openai.enqueue({ fault: faults.http(500) });
      const before = await request(t.url)
        .post('/v1/responses')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ model: 'gpt-4o-mini', input: 'hi', stream: true });
      expect(before.status).toBe(502);
      expect(before.body.error).toMatchObject({ type: expect.any(String), message: expect.any(String) });
    });

    it('Vercel AI SDK with tools through the upstream: the tool call comes back as a typed call', async () => {
      openai.enqueue({
        toolCalls: [{ id: 'call_v', name: 'get_weather', arguments: { city: 'Paris' } }],
        usage: { input: 50, output: 10 },
      });
      const provider = createOpenAI({ baseURL: `${t.url}/v1`, apiKey });
      const r = await generateText({
        model: provider('gpt-4o-mini'),
        prompt: 'Weather in Paris?',
        tools: {
          get_weather: tool({
            description: 'Current weather for a city',
            inputSchema: jsonSchema<{ city: string }>({
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
            }),
          }),
        },
        maxRetries: 0,
      });
      expect(r.toolCalls).toMatchObject([{ toolCallId: 'call_v', toolName: 'get_weather', input: { city: 'Paris' } }]);
      expect(r.finishReason).toBe('tool-calls');
      expect(openai.lastRequest?.path).toBe('/v1/chat/completions');
      await wallet.expectCharged(expectedCost(PRICES['gpt-4o-mini'], { prompt: 50, completion: 10 }).total_cost_rub, {
        endpoint: '/v1/responses',
      });
    });
  });

  describe('errors before any upstream call (OpenAI shape)', () => {
    const cases: [string, Record<string, unknown>, string | null][] = [
      ['input missing', { model: 'gpt-4o-mini' }, 'input'],
      [
        // (user messages take input_image: test/conformance/responses-contract.e2e-spec.ts)
        'image input in an assistant message',
        {
          model: 'gpt-4o-mini',
          input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] }],
        },
        'input[0].content[0].type',
      ],
      ['bad role', { model: 'gpt-4o-mini', input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
      ['non-function tool', { model: 'gpt-4o-mini', input: 'hi', tools: [{ type: 'web_search' }] }, 'tools[0].type'],
      [
        'previous_response_id',
        { model: 'gpt-4o-mini', input: 'hi', previous_response_id: 'resp_1' },
        'previous_response_id',
      ],
      ['tools on local', { model: 'local', input: 'hi', tools: [WEATHER] }, 'tools'],
      ['unknown model', { model: 'nope', input: 'hi' }, 'model'],
      [
        'max_output_tokens over the model cap',
        { model: 'local', input: 'hi', max_output_tokens: 100000 },
        'max_output_tokens',
      ],
    ];
    it.each(cases)('%s → 4xx naming the field, nothing sent upstream, nothing charged', async (_name, body, param) => {
      const res = await request(t.url).post('/v1/responses').set('authorization', `Bearer ${apiKey}`).send(body);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
      expect(res.body.error.param).toBe(param);
      expect(openai.requests).toHaveLength(0);
      await wallet.expectUntouched();
    });
  });
});
