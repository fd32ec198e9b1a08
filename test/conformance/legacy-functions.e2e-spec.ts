/**
 * The deprecated `functions` / `function_call` of chat completions: translated to tools and
 * tool_choice upstream (one call at most), answered with `message.function_call` and finish_reason
 * "function_call" (and `delta.function_call` when streamed), `function` result messages read as
 * tool results, and conflicting or unknown names refused with a 400 before any upstream call.
 * Bodies and chunks are validated against OpenAI's schemas.
 */
import type OpenAI from 'openai';
import request from 'supertest';
import type { FakeOpenAI } from '../fakes';
import type { TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { parseSse } from '../chat/chat-helpers';
import { Conformance } from './openai-schema';
import { OpenAiGateway } from './openai-gateway';

const GET_WEATHER = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe(`legacy functions / function_call (${backendKind()})`, () => {
  const spec = new Conformance();
  let gw: OpenAiGateway;
  let openai: FakeOpenAI;
  let t: TestApp;
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    spec.compile('CreateChatCompletionResponse', 'CreateChatCompletionStreamResponse'); // before any SDK connection opens (compiling takes seconds)
    gw = await OpenAiGateway.start();
    ({ openai, t, apiKey, client } = gw);
  });
  afterEach(() => openai.reset());
  afterAll(async () => {
    await gw?.close();
  });

  it('non-stream: tools upstream, message.function_call back', async () => {
    openai.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], finish: 'tool_calls' });
    const res = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      functions: [GET_WEATHER],
      function_call: 'auto',
    });
    expect(openai.lastRequest?.body).toMatchObject({
      tools: [{ type: 'function', function: GET_WEATHER }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    expect(openai.lastRequest?.body).not.toHaveProperty('functions');
    const choice = res.choices[0];
    expect(choice.finish_reason).toBe('function_call');
    expect(choice.message.function_call).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(choice.message).not.toHaveProperty('tool_calls');
    expect(spec.check('legacy function_call', 'CreateChatCompletionResponse', res)).toEqual([]);
  });

  it('function_call {name} forces that function', async () => {
    openai.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], finish: 'tool_calls' });
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      functions: [GET_WEATHER],
      function_call: { name: 'get_weather' },
    });
    expect(openai.lastRequest?.body).toMatchObject({
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
  });

  it('stream: delta.function_call pieces add up to the call; finish_reason function_call', async () => {
    openai.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }], chunkSize: 3 });
    const res = await request(t.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${apiKey}`)
      .send({
        model: 'gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'Weather in Rome?' }],
        functions: [GET_WEATHER],
      })
      .buffer(true)
      .parse((r, cb) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => cb(null, text));
      });
    const chunks = parseSse(res.body as string)
      .filter((m) => m.data !== '[DONE]')
      .map(
        (m) => JSON.parse(m.data) as { choices: { delta: Record<string, unknown>; finish_reason: string | null }[] },
      );
    let name = '';
    let args = '';
    for (const c of chunks) {
      expect(spec.check('legacy chunk', 'CreateChatCompletionStreamResponse', c)).toEqual([]);
      const d = c.choices[0]?.delta ?? {};
      expect(d).not.toHaveProperty('tool_calls');
      const fc = d.function_call as { name?: string; arguments?: string } | undefined;
      name += fc?.name ?? '';
      args += fc?.arguments ?? '';
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'Rome' });
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['function_call']);
  });

  it('a function result turn reaches the upstream as a tool result of that call', async () => {
    openai.enqueue({ text: 'It is sunny in Paris.' });
    const res = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { role: 'function', name: 'get_weather', content: '{"sky":"sunny"}' },
      ],
      functions: [GET_WEATHER],
    });
    expect(res.choices[0].message.content).toBe('It is sunny in Paris.');
    const sent = openai.lastRequest?.body.messages as Record<string, unknown>[];
    const call = (sent[1].tool_calls as { id: string; function: unknown }[])[0];
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(sent[2]).toMatchObject({ role: 'tool', tool_call_id: call.id, content: '{"sky":"sunny"}' });
  });

  it('conflicts and unknown names: 400 naming the field, nothing sent upstream', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ functions: [GET_WEATHER], tools: [{ type: 'function', function: GET_WEATHER }] }, 'functions'],
      [{ functions: [GET_WEATHER], function_call: { name: 'get_time' } }, 'function_call'],
      [{ functions: [GET_WEATHER], function_call: 'sometimes' }, 'function_call'],
      [{ functions: [{ name: 'bad name!' }] }, 'functions[0].name'],
      [
        {
          functions: [GET_WEATHER],
          messages: [
            { role: 'user', content: 'x' },
            { role: 'function', name: 'get_weather', content: '{}' },
          ],
        },
        'messages[1].role',
      ],
    ];
    for (const [extra, param] of cases) {
      const res = await request(t.url)
        .post('/v1/chat/completions')
        .set('Authorization', `Bearer ${apiKey}`)
        .send({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
    expect(openai.requests).toHaveLength(0);
  });
});
