import { ProviderConnectionError } from '../http/provider-http.client';
import { readJsonFixture, readSseFixture, readFixtureText, thrownFields } from '../http/testing/fixtures';
import { CanonicalChatChunk, CanonicalChatRequest, ProviderError } from '../types';
import { mapGigaChatEmbeddingResponse } from './gigachat.embeddings';
import { mapGigaChatError } from './gigachat.errors';
import { buildGigaChatBody, buildGigaChatRequest } from './gigachat.request';
import { mapGigaChatChatResponse } from './gigachat.response';
import { certificateError } from './gigachat.session';
import {
  createGigaChatStreamState,
  flushGigaChatStream,
  GigaChatStreamState,
  mapGigaChatStreamEvent,
} from './gigachat.stream';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

function replay(name: string): CanonicalChatChunk[] {
  const state: GigaChatStreamState = createGigaChatStreamState('gigachat-2', NOW);
  const chunks = readSseFixture(__dirname, name).flatMap((e) => mapGigaChatStreamEvent(e, state));
  return [...chunks, ...flushGigaChatStream(state)];
}

describe('gigachat request mapping', () => {
  const base: CanonicalChatRequest = { model: 'GigaChat-2-Max', messages: [] };

  it('tools → functions, tool_calls (string arguments) → function_call with object arguments, tool results → function messages', () => {
    const req: CanonicalChatRequest = {
      ...base,
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Kazan"}' } },
            { id: 'c2', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"t":5}' },
        { role: 'tool', tool_call_id: 'c2', content: 'noon' },
      ],
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: WEATHER } },
        { type: 'function', function: { name: 'get_time' } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      max_tokens: 100,
      temperature: 0.2,
      top_p: 0.9,
      stream: true,
    };
    const r = buildGigaChatRequest(req, 'https://gigachat.example/api/v1/', 'tok');
    expect(r.url).toBe('https://gigachat.example/api/v1/chat/completions');
    expect(r.headers).toEqual({ authorization: 'Bearer tok' });
    expect(r.body).toEqual({
      model: 'GigaChat-2-Max',
      stream: true,
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 100,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '', function_call: { name: 'get_weather', arguments: { city: 'Kazan' } } },
        { role: 'assistant', content: '', function_call: { name: 'get_time', arguments: {} } },
        { role: 'function', name: 'get_weather', content: '{"t":5}' },
        { role: 'function', name: 'get_time', content: '{"result":"noon"}' },
      ],
      functions: [
        { name: 'get_weather', description: 'Weather', parameters: WEATHER },
        { name: 'get_time', parameters: { type: 'object', properties: {} } },
      ],
      function_call: { name: 'get_weather' },
    });
  });

  it('refuses what GigaChat cannot do, naming the parameter (never a silent drop)', () => {
    const user = [{ role: 'user' as const, content: 'x' }];
    expect(thrownFields(() => buildGigaChatBody({ ...base, messages: user, stop: ['END'] }))).toMatchObject({
      kind: 'invalid_request',
      param: 'stop',
    });
    expect(thrownFields(() => buildGigaChatBody({ ...base, messages: user, seed: 1 })).param).toBe('seed');
    expect(
      thrownFields(() => buildGigaChatBody({ ...base, messages: user, response_format: { type: 'json_object' } }))
        .param,
    ).toBe('response_format');
    const two = [
      { type: 'function' as const, function: { name: 'a' } },
      { type: 'function' as const, function: { name: 'b' } },
    ];
    expect(
      thrownFields(() => buildGigaChatBody({ ...base, messages: user, tools: two, tool_choice: 'required' })).param,
    ).toBe('tool_choice');
    expect(
      buildGigaChatBody({ ...base, messages: user, tools: two.slice(0, 1), tool_choice: 'required' }).function_call,
    ).toEqual({
      name: 'a',
    });
    const image = [
      {
        role: 'user' as const,
        content: [{ type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AA==' } }],
      },
    ];
    expect(thrownFields(() => buildGigaChatBody({ ...base, messages: image })).param).toBe('messages[0].content');
    expect(
      thrownFields(() =>
        buildGigaChatBody({ ...base, messages: [{ role: 'tool', tool_call_id: 'nope', content: '1' }] }),
      ).param,
    ).toBe('messages[0].tool_call_id');
  });
});

describe('gigachat response mapping (recorded bodies)', () => {
  it('a function call: object arguments → a JSON string, precached tokens → cache reads inside prompt_tokens', () => {
    const r = mapGigaChatChatResponse(readJsonFixture(__dirname, 'chat-function-call.json'), 'gigachat-2-max', NOW);
    expect(r.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_77d3fb14-457a-46ba-937e-8d856156d003',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Москва","days":2}' },
            },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ]);
    expect(r.usage).toEqual({
      prompt_tokens: 216,
      completion_tokens: 31,
      total_tokens: 247,
      cache_read_tokens: 64,
      cache_write_tokens: 0,
    });
    expect(r).toMatchObject({ model: 'gigachat-2-max', created: 1732790000, object: 'chat.completion' });
  });

  it('a text answer; blacklist → content_filter; error → upstream failure', () => {
    const body = readJsonFixture(__dirname, 'chat-text.json') as { choices: { finish_reason: string }[] };
    const r = mapGigaChatChatResponse(body, 'gigachat-2', NOW);
    expect(r.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'Привет! Чем могу помочь?' },
      finish_reason: 'stop',
    });
    body.choices[0].finish_reason = 'blacklist';
    expect(mapGigaChatChatResponse(body, 'gigachat-2', NOW).choices[0].finish_reason).toBe('content_filter');
    body.choices[0].finish_reason = 'error';
    expect(() => mapGigaChatChatResponse(body, 'gigachat-2', NOW)).toThrow(ProviderError);
    expect(() => mapGigaChatChatResponse({ message: 'x' }, 'gigachat-2', NOW)).toThrow('without choices');
  });
});

describe('gigachat stream mapping (recorded SSE)', () => {
  it('text deltas, the finish, then usage on its own chunk', () => {
    const chunks = replay('stream-text.sse');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Привет!');
    expect(chunks.filter((c) => c.choices[0]?.finish_reason === 'stop')).toHaveLength(1);
    expect(chunks[chunks.length - 1]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 20, completion_tokens: 3, cache_read_tokens: 6 },
    });
  });

  it('a whole function call in one delta → one tool-call delta with string arguments', () => {
    const chunks = replay('stream-function-call.sse');
    expect(chunks[0].choices[0]).toEqual({
      index: 0,
      delta: {
        role: 'assistant',
        tool_calls: [
          {
            index: 0,
            id: 'call_0c7a1f4e-2b7d-4a39-9d55-5d0b3d1f6a11',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Омск"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('a cut-off stream and an in-stream error are upstream failures', () => {
    const state = createGigaChatStreamState('gigachat-2', NOW);
    mapGigaChatStreamEvent({ data: '{"choices":[{"delta":{"content":"a"},"index":0}]}' }, state);
    expect(() => flushGigaChatStream(state)).toThrow('ended before completion');
    expect(() => mapGigaChatStreamEvent({ data: '{"status":500,"message":"boom"}' }, state)).toThrow('GigaChat: boom');
  });
});

describe('gigachat errors, embeddings, TLS', () => {
  it('{status, message} bodies: 422 → invalid_request with the message, 429 ± Retry-After, 401, 5xx', () => {
    expect(mapGigaChatError(422, readFixtureText(__dirname, 'error-422.json'), {}, NOW)).toMatchObject({
      kind: 'invalid_request',
      upstreamStatus: 422,
      message: 'GigaChat: Invalid params: repetition_penalty must be in range (0, +inf)',
    });
    const limited = mapGigaChatError(429, '{"status":429,"message":"Too Many Requests"}', { 'retry-after': '3' }, NOW);
    expect([limited.kind, limited.retryAfterSeconds]).toEqual(['rate_limited', 3]);
    expect(
      mapGigaChatError(429, '{"status":429,"message":"Too Many Requests"}', {}, NOW).retryAfterSeconds,
    ).toBeUndefined();
    expect(mapGigaChatError(401, '{"status":401,"message":"Unauthorized"}', {}, NOW).kind).toBe('auth');
    expect(mapGigaChatError(503, '<html>bad gateway</html>', {}, NOW)).toMatchObject({
      kind: 'upstream',
      message: 'Upstream returned HTTP 503',
    });
  });

  it('embeddings: number vectors in index order, tokens summed over the items', () => {
    const r = mapGigaChatEmbeddingResponse(readJsonFixture(__dirname, 'embeddings.json'));
    expect(r.prompt_tokens).toBe(10);
    expect(Array.from(r.vectors[1])).toEqual([0.5, 0.25, -0.125]);
    expect(() => mapGigaChatEmbeddingResponse({ data: [{ embedding: 'x' }] })).toThrow('malformed');
  });

  it('a certificate failure names GIGACHAT_CA_FILE; other connection errors pass unchanged', () => {
    const tls = new ProviderConnectionError(
      'upstream',
      'could not be reached',
      undefined,
      undefined,
      undefined,
      'SELF_SIGNED_CERT_IN_CHAIN self-signed certificate in certificate chain',
    );
    expect(certificateError(tls)?.message).toContain('GIGACHAT_CA_FILE');
    expect(certificateError(tls)?.kind).toBe('upstream');
    expect(certificateError(new ProviderConnectionError('upstream', 'ECONNREFUSED'))).toBeUndefined();
  });
});
