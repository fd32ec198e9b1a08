import { CanonicalChatRequest, ProviderConnection } from '../types';
import { thrownFields } from '../http/testing/fixtures';
import { buildYandexChatRequest } from './yandex.request';

const conn = (extra: Record<string, string | undefined>, apiKey = 'AQVN-key'): ProviderConnection =>
  ({ apiKey, baseUrl: 'https://llm.api.cloud.yandex.net/', timeoutMs: 1000, extra }) as ProviderConnection;
const KEYED = conn({ FOLDER_ID: 'b1gfolder' });

const req = (over: Partial<CanonicalChatRequest>): CanonicalChatRequest => ({
  model: 'yandexgpt',
  messages: [{ role: 'user', content: 'Привет' }],
  ...over,
});

describe('buildYandexChatRequest', () => {
  it('sends the folder, an Api-Key header, the model URI and maxTokens as a string', () => {
    const out = buildYandexChatRequest(
      req({
        messages: [
          { role: 'system', content: 'Будь краток' },
          { role: 'user', content: [{ type: 'text', text: 'Привет' }] },
        ],
        max_tokens: 200,
        temperature: 0.2,
        stream: true,
      }),
      KEYED,
    );
    expect(out.url).toBe('https://llm.api.cloud.yandex.net/foundationModels/v1/completion');
    expect(out.headers).toEqual({
      'content-type': 'application/json',
      authorization: 'Api-Key AQVN-key',
      'x-folder-id': 'b1gfolder',
    });
    expect(out.body).toEqual({
      modelUri: 'gpt://b1gfolder/yandexgpt/latest',
      completionOptions: { stream: true, temperature: 0.2, maxTokens: '200' },
      messages: [
        { role: 'system', text: 'Будь краток' },
        { role: 'user', text: 'Привет' },
      ],
    });
  });

  it('uses a Bearer IAM token when there is no API key, and keeps an explicit branch or URI', () => {
    const iam = conn({ FOLDER_ID: 'b1gfolder', IAM_TOKEN: 't1.iam' }, '');
    expect(buildYandexChatRequest(req({ model: 'yandexgpt-lite/rc' }), iam)).toMatchObject({
      headers: { authorization: 'Bearer t1.iam', 'x-folder-id': 'b1gfolder' },
      body: { modelUri: 'gpt://b1gfolder/yandexgpt-lite/rc' },
    });
    expect(buildYandexChatRequest(req({ model: 'gpt://other/yandexgpt/latest' }), iam).body.modelUri).toBe(
      'gpt://other/yandexgpt/latest',
    );
  });

  it('without a folder or any credential: an auth error (the gateway is misconfigured)', () => {
    expect(thrownFields(() => buildYandexChatRequest(req({}), conn({})))).toMatchObject({ kind: 'auth' });
    expect(thrownFields(() => buildYandexChatRequest(req({}), conn({ FOLDER_ID: 'f' }, '')))).toMatchObject({
      kind: 'auth',
    });
  });

  it('translates tools, tool calls (arguments as objects) and tool results (one user turn per run of results)', () => {
    const out = buildYandexChatRequest(
      req({
        messages: [
          { role: 'user', content: 'Погода и время в Москве?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_0_get_weather',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Москва"}' },
              },
              { id: 'toolu_x', type: 'function', function: { name: 'get_time', arguments: '' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_0_get_weather', content: '{"t":-3}' },
          { role: 'tool', tool_call_id: 'toolu_x', content: [{ type: 'text', text: '12:00' }] },
        ],
        tools: [
          {
            type: 'function',
            function: { name: 'get_weather', description: 'Погода', parameters: { type: 'object' } },
          },
          { type: 'function', function: { name: 'get_time' } },
        ],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        parallel_tool_calls: false,
      }),
      KEYED,
    ).body;
    expect(out.messages).toEqual([
      { role: 'user', text: 'Погода и время в Москве?' },
      {
        role: 'assistant',
        toolCallList: {
          toolCalls: [
            { functionCall: { name: 'get_weather', arguments: { city: 'Москва' } } },
            { functionCall: { name: 'get_time', arguments: {} } },
          ],
        },
      },
      {
        role: 'user',
        toolResultList: {
          toolResults: [
            { functionResult: { name: 'get_weather', content: '{"t":-3}' } },
            { functionResult: { name: 'get_time', content: '12:00' } },
          ],
        },
      },
    ]);
    expect(out.tools).toEqual([
      { function: { name: 'get_weather', description: 'Погода', parameters: { type: 'object' } } },
      { function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
    ]);
    expect(out.toolChoice).toEqual({ functionName: 'get_weather' });
    expect(out.parallelToolCalls).toBe(false);
  });

  it('maps JSON mode and JSON schema, and reasoning_effort to reasoningOptions', () => {
    expect(buildYandexChatRequest(req({ response_format: { type: 'json_object' } }), KEYED).body.jsonObject).toBe(true);
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    const body = buildYandexChatRequest(
      req({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema } }, reasoning_effort: 'high' }),
      KEYED,
    ).body;
    expect(body.jsonSchema).toEqual({ schema });
    expect(body.jsonObject).toBeUndefined();
    expect(body.completionOptions.reasoningOptions).toEqual({ mode: 'ENABLED_HIDDEN' });
    expect(
      buildYandexChatRequest(req({ reasoning_effort: 'minimal' }), KEYED).body.completionOptions.reasoningOptions,
    ).toEqual({ mode: 'DISABLED' });
  });

  it.each([
    [{ stop: ['\n'] }, 'stop'],
    [{ top_p: 0.5 }, 'top_p'],
    [{ n: 2 }, 'n'],
    [
      {
        messages: [
          {
            role: 'user' as const,
            content: [{ type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AA==' } }],
          },
        ],
      },
      'messages[0].content[0]',
    ],
    [
      {
        messages: [
          {
            role: 'assistant' as const,
            content: null,
            tool_calls: [{ id: 'a', type: 'function' as const, function: { name: 'f', arguments: '[1]' } }],
          },
        ],
      },
      'messages[0].tool_calls[0].function.arguments',
    ],
    [{ messages: [{ role: 'tool' as const, tool_call_id: 'unknown', content: 'x' }] }, 'messages[0].tool_call_id'],
  ])('refuses what the API cannot honour before any call: %j', (over, param) => {
    expect(thrownFields(() => buildYandexChatRequest(req(over), KEYED))).toMatchObject({
      kind: 'invalid_request',
      param,
    });
  });
});
