import { CanonicalChatRequest, ProviderConnection, ToolDefinition } from '../types';
import { thrownFields } from '../http/testing/fixtures';
import { buildAnthropicChatRequest, toAnthropicToolChoice } from './anthropic.request';

const conn: ProviderConnection = { apiKey: 'sk-ant-test', baseUrl: 'https://api.anthropic.com/', timeoutMs: 60000 };
const weather: ToolDefinition = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const body = (req: CanonicalChatRequest) => buildAnthropicChatRequest(req, conn).body;

describe('buildAnthropicChatRequest', () => {
  it('builds URL and headers', () => {
    const request = buildAnthropicChatRequest(
      { model: 'claude-sonnet-4-20250514', messages: [{ role: 'user', content: 'hi' }] },
      conn,
    );
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request.headers).toEqual({
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
    });
    expect(request.body).toEqual({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('hoists system/developer messages, merges same-role turns, maps images and the sampling fields', () => {
    expect(
      body({
        model: 'claude',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'developer', content: [{ type: 'text', text: 'Answer in Russian.' }] },
          { role: 'user', content: 'First question.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'And this picture:' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
            ],
          },
          { role: 'assistant', content: '' },
          { role: 'assistant', content: 'Answer.' },
          { role: 'user', content: 'Thanks' },
        ],
        max_tokens: 300,
        temperature: 1.4,
        top_p: 0.8,
        stop: 'END',
        seed: 1,
        user: 'u-1',
        stream: true,
      }),
    ).toEqual({
      model: 'claude',
      max_tokens: 300,
      system: 'You are terse.\n\nAnswer in Russian.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'First question.' },
            { type: 'text', text: 'And this picture:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Answer.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
      ],
      temperature: 1,
      top_p: 0.8,
      stop_sequences: ['END'],
      metadata: { user_id: 'u-1' },
      stream: true,
    });
  });

  it('maps tools, tool calls and tool results (consecutive results merged into one user turn, results first)', () => {
    expect(
      body({
        model: 'claude',
        messages: [
          { role: 'user', content: 'Weather in Moscow and Kazan?' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Moscow"}' } },
              { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '' } },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: '{"temp":3}' },
          { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: 'unknown city' }] },
          { role: 'user', content: 'Also, hurry.' },
        ],
        tools: [weather],
        tool_choice: 'required',
        parallel_tool_calls: false,
      }),
    ).toEqual({
      model: 'claude',
      max_tokens: 4096,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Moscow and Kazan?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Moscow' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temp":3}' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'unknown city' }] },
            { type: 'text', text: 'Also, hurry.' },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
  });

  it('maps every tool_choice form', () => {
    expect(toAnthropicToolChoice('auto', undefined)).toEqual({ type: 'auto' });
    expect(toAnthropicToolChoice('required', undefined)).toEqual({ type: 'any' });
    expect(toAnthropicToolChoice('none', false)).toEqual({ type: 'none' });
    expect(toAnthropicToolChoice({ type: 'function', function: { name: 'f' } }, undefined)).toEqual({
      type: 'tool',
      name: 'f',
    });
    expect(toAnthropicToolChoice(undefined, false)).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(toAnthropicToolChoice(undefined, true)).toBeUndefined();
    expect(body({ model: 'c', messages: [{ role: 'user', content: 'x' }], tool_choice: 'auto' })).toEqual({
      model: 'c',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
    });
    expect(
      body({
        model: 'c',
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function', function: { name: 'ping' } }],
      }).tools,
    ).toEqual([{ name: 'ping', input_schema: { type: 'object', properties: {} } }]);
  });

  it('implements json_object with a forced json_output tool', () => {
    expect(
      body({
        model: 'c',
        messages: [{ role: 'user', content: 'Give me a user' }],
        response_format: { type: 'json_object' },
      }),
    ).toEqual({
      model: 'c',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Give me a user' }] }],
      tools: [
        {
          name: 'json_output',
          description: 'Give your answer by calling this tool with the answer as a JSON object.',
          input_schema: { type: 'object' },
        },
      ],
      tool_choice: { type: 'tool', name: 'json_output' },
    });
  });

  it('implements json_schema with the schema as the forced tool input, next to caller tools', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    };
    const req: CanonicalChatRequest = {
      model: 'c',
      messages: [{ role: 'user', content: 'x' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'person', description: 'A person.', schema, strict: true },
      },
    };
    const jsonTool = {
      name: 'json_output',
      description: 'Give your answer by calling this tool with a JSON object matching the "person" schema. A person.',
      input_schema: schema,
    };
    expect(body(req)).toMatchObject({ tools: [jsonTool], tool_choice: { type: 'tool', name: 'json_output' } });
    expect(body({ ...req, tools: [weather] })).toMatchObject({
      tools: [{ name: 'get_weather' }, jsonTool],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
    expect(
      body({ ...req, tools: [weather], tool_choice: { type: 'function', function: { name: 'get_weather' } } }),
    ).toMatchObject({
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
    });
    expect(body({ ...req, tools: [weather], tool_choice: 'none' })).toMatchObject({
      tools: [{ name: 'get_weather' }, jsonTool],
      tool_choice: { type: 'tool', name: 'json_output' },
    });
  });

  it('rejects what Anthropic cannot express', () => {
    expect(thrownFields(() => body({ model: 'c', messages: [{ role: 'user', content: 'x' }], n: 2 }))).toEqual({
      kind: 'invalid_request',
      message: 'This model does not support n > 1',
      upstreamStatus: undefined,
      retryAfterSeconds: undefined,
      param: 'n',
    });
    expect(
      thrownFields(() =>
        body({
          model: 'c',
          messages: [
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '[1,2' } }],
            },
          ],
        }),
      ),
    ).toMatchObject({
      kind: 'invalid_request',
      message: 'Tool call arguments must be a JSON object',
      param: 'messages[0].tool_calls[0].function.arguments',
    });
    expect(
      thrownFields(() =>
        body({
          model: 'c',
          messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }],
        }),
      ),
    ).toMatchObject({
      kind: 'invalid_request',
      param: 'messages[0].content[0]',
    });
  });
});
