/**
 * Self-test of the fake upstream servers: raw fetch checks of the exact wire formats, faults,
 * delays / disconnects, and the official `openai` SDK driving FakeOpenAI.
 */
import { inflateSync } from 'node:zlib';
import OpenAI from 'openai';
import {
  FakeAnthropic,
  FakeGemini,
  FakeOpenAI,
  ImageServer,
  PNG_SIGNATURE,
  cosineSimilarity,
  decodeEmbeddingBase64,
  fakeEmbedding,
  fakeThinkingSignature,
  fakeTokenCount,
  faults,
  pngBytes,
} from './index';

interface Raw {
  status: number;
  headers: Headers;
  text: string;
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Raw> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

interface SseEvent {
  event?: string;
  data: string;
}

/** Minimal spec-compliant SSE parser (CRLF / LF) for assertions. */
function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r\n\r\n|\n\n/)) {
    if (block.trim() === '') continue;
    const ev: SseEvent = { data: '' };
    const data: string[] = [];
    for (const line of block.split(/\r\n|\n/)) {
      const idx = line.indexOf(':');
      const field = idx < 0 ? line : line.slice(0, idx);
      const value = idx < 0 ? '' : line.slice(idx + 1).replace(/^ /, '');
      if (field === 'event') ev.event = value;
      if (field === 'data') data.push(value);
    }
    ev.data = data.join('\n');
    events.push(ev);
  }
  return events;
}

const sse = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
const anthropicEvent = (type: string, payload: unknown): string =>
  `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;

// ---------------------------------------------------------------------------------------------

describe('FakeOpenAI', () => {
  let fake: FakeOpenAI;
  const auth = { authorization: 'Bearer sk-test' };
  const chatUrl = (): string => `${fake.baseUrl}/v1/chat/completions`;

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: 'sk-test' });
  });
  afterAll(() => fake.close());
  afterEach(() => fake.reset());

  it('answers a non-stream completion in the exact chat.completion shape and records the request', async () => {
    fake.enqueue({
      id: 'chatcmpl-1',
      created: 1700000000,
      text: 'Hello there',
      reasoning: 'Let me think',
      usage: { input: 12, output: 7, cacheRead: 4, reasoning: 3 },
    });
    const res = await post(
      chatUrl(),
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 },
      auth,
    );

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(res.text)).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'gpt-4o',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Hello there',
            reasoning_content: 'Let me think',
            refusal: null,
            annotations: [],
          },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 7,
        total_tokens: 19,
        prompt_tokens_details: { cached_tokens: 4, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 3,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.lastRequest).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'gpt-4o', temperature: 0.2 },
    });
    expect(fake.lastRequest?.headers.authorization).toBe('Bearer sk-test');
    expect(fake.lastRequest?.usage).toEqual({ input: 12, output: 7, cacheRead: 4, reasoning: 3 });
  });

  it('echoes the last user message with fakeTokenCount usage by default, and honours n', async () => {
    const body = {
      model: 'gpt-4o-mini',
      n: 2,
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: [{ type: 'text', text: 'say hi please' }] },
      ],
    };
    const json = JSON.parse((await post(chatUrl(), body, auth)).text) as {
      choices: { index: number; message: { content: string } }[];
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(json.choices.map((c) => [c.index, c.message.content])).toEqual([
      [0, 'say hi please'],
      [1, 'say hi please'],
    ]);
    expect(json.usage.prompt_tokens).toBe(fakeTokenCount('Be brief say hi please'));
    expect(json.usage.completion_tokens).toBe(2 * fakeTokenCount('say hi please'));
  });

  it('streams the exact chunk transcript (role, content, tool_calls, finish, usage, [DONE])', async () => {
    fake.enqueue({
      id: 'chatcmpl-s',
      created: 1700000000,
      text: 'Hello world',
      chunkSize: 6,
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
      usage: { input: 7, output: 4 },
    });
    const res = await post(
      chatUrl(),
      {
        model: 'gpt-4o',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'weather?' }],
      },
      auth,
    );

    const base = {
      id: 'chatcmpl-s',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'gpt-4o',
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
    };
    const d = (delta: unknown): unknown => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
      usage: null,
    });
    const expected = [
      sse(d({ role: 'assistant', content: '', refusal: null })),
      sse(d({ content: 'Hello ' })),
      sse(d({ content: 'world' })),
      sse(
        d({
          tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
        }),
      ),
      sse(d({ tool_calls: [{ index: 0, function: { arguments: '{"city' } }] })),
      sse(d({ tool_calls: [{ index: 0, function: { arguments: '":"Par' } }] })),
      sse(d({ tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] })),
      sse({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }], usage: null }),
      sse({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: 7,
          completion_tokens: 4,
          total_tokens: 11,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
      }),
      'data: [DONE]\n\n',
    ].join('');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.text).toBe(expected);
  });

  it('streams DeepSeek-style reasoning_content deltas, and no usage chunk / usage field without include_usage', async () => {
    fake.enqueue({ text: 'ok', reasoning: 'abcdefgh', chunkSize: 4 });
    const res = await post(
      chatUrl(),
      { model: 'deepseek-reasoner', stream: true, messages: [{ role: 'user', content: 'x' }] },
      auth,
    );
    const events = parseSse(res.text);
    expect(events[events.length - 1].data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map(
      (e) =>
        JSON.parse(e.data) as {
          choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
          usage?: unknown;
        },
    );
    expect(chunks.map((c) => c.choices[0].delta)).toEqual([
      { role: 'assistant', content: '', refusal: null },
      { content: null, reasoning_content: 'abcd' },
      { content: null, reasoning_content: 'efgh' },
      { content: 'ok' },
      {},
    ]);
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
    expect(fake.lastRequest?.usage).toBeUndefined();
  });

  it('serves embeddings as floats and base64 from fakeEmbedding, honouring dimensions', async () => {
    const floats = JSON.parse(
      (
        await post(
          `${fake.baseUrl}/v1/embeddings`,
          { model: 'text-embedding-3-small', input: ['red apple', 'green apple pie'] },
          auth,
        )
      ).text,
    ) as {
      object: string;
      data: { object: string; index: number; embedding: number[] }[];
      model: string;
      usage: { prompt_tokens: number; total_tokens: number };
    };
    expect(floats.object).toBe('list');
    expect(floats.model).toBe('text-embedding-3-small');
    expect(floats.data.map((x) => [x.object, x.index, x.embedding.length])).toEqual([
      ['embedding', 0, 1536],
      ['embedding', 1, 1536],
    ]);
    expect(Float32Array.from(floats.data[0].embedding)).toEqual(fakeEmbedding('red apple', 1536));
    expect(floats.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });

    const b64 = JSON.parse(
      (
        await post(
          `${fake.baseUrl}/v1/embeddings`,
          { model: 'text-embedding-3-large', input: 'red apple', dimensions: 256, encoding_format: 'base64' },
          auth,
        )
      ).text,
    ) as {
      data: { embedding: string }[];
    };
    const decoded = decodeEmbeddingBase64(b64.data[0].embedding);
    expect(decoded).toEqual(fakeEmbedding('red apple', 256));
    // bag of words: shared words → more similar
    const apple = fakeEmbedding('apple', 256);
    expect(cosineSimilarity(fakeEmbedding('red apple', 256), apple)).toBeGreaterThan(
      cosineSimilarity(fakeEmbedding('blue sky', 256), apple),
    );
    expect(cosineSimilarity(decoded, decoded)).toBeCloseTo(1, 6);
  });

  it('lists models', async () => {
    const res = await fetch(`${fake.baseUrl}/v1/models`, { headers: auth });
    const json = (await res.json()) as { object: string; data: { id: string; object: string }[] };
    expect(json.object).toBe('list');
    expect(json.data.map((m) => m.id)).toContain('gpt-4o');
  });

  it('rejects a missing / wrong key and an invalid body like the real API, without consuming scenarios', async () => {
    fake.enqueue({ text: 'kept' });
    const missing = await post(chatUrl(), { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.text)).toEqual({
      error: {
        message: expect.stringContaining("You didn't provide an API key") as string,
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    const wrong = await post(
      chatUrl(),
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] },
      { authorization: 'Bearer sk-wrong-key' },
    );
    expect(JSON.parse(wrong.text)).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
    const badOptions = await post(
      chatUrl(),
      { model: 'gpt-4o', stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'x' }] },
      auth,
    );
    expect(badOptions.status).toBe(400);
    expect(JSON.parse(badOptions.text)).toMatchObject({ error: { param: 'stream_options' } });
    expect(fake.pending).toBe(1);
  });

  it('fault: 429 with retry-after and the real error body', async () => {
    fake.enqueue({ fault: faults.http(429, { retryAfter: 7 }) });
    const res = await post(chatUrl(), { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, auth);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(JSON.parse(res.text)).toEqual({
      error: {
        message: expect.stringContaining('Rate limit reached for gpt-4o') as string,
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
  });

  it('fault: 500 / 503 server errors', async () => {
    fake.enqueue({ fault: faults.http(500) }, { fault: faults.http(503, { message: 'Slow down' }) });
    const a = await post(chatUrl(), { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, auth);
    const b = await post(chatUrl(), { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, auth);
    expect([a.status, JSON.parse(a.text)]).toEqual([
      500,
      {
        error: {
          message: 'The server had an error while processing your request. Sorry about that!',
          type: 'server_error',
          param: null,
          code: null,
        },
      },
    ]);
    expect([b.status, JSON.parse(b.text)]).toEqual([
      503,
      { error: { message: 'Slow down', type: 'server_error', param: null, code: null } },
    ]);
  });

  it('fault: connection reset before headers', async () => {
    fake.enqueue({ fault: faults.reset() });
    await expect(
      post(chatUrl(), { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, auth),
    ).rejects.toThrow('fetch failed');
    expect(fake.disconnects).toBe(0);
  });

  it('fault: reset mid-stream after N events', async () => {
    fake.enqueue({ text: 'aaaa bbbb cccc', chunkSize: 4, fault: faults.resetMidStream(2) });
    const res = await fetch(chatUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let received = '';
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          received += Buffer.from(value).toString('utf8');
        }
      })(),
    ).rejects.toThrow();
    expect(parseSse(received)).toHaveLength(2);
  });

  it('fault: invalid JSON body, malformed SSE, in-stream error', async () => {
    fake.enqueue(
      { fault: faults.invalidJson() },
      { text: 'hello', fault: faults.malformedSse(1) },
      { text: 'hello', fault: faults.streamError({ message: 'boom' }) },
    );
    const invalid = await post(chatUrl(), { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, auth);
    expect(invalid.status).toBe(200);
    expect(() => JSON.parse(invalid.text) as unknown).toThrow();

    const malformed = await post(
      chatUrl(),
      { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] },
      auth,
    );
    const mEvents = parseSse(malformed.text);
    expect(mEvents).toHaveLength(2);
    expect(() => JSON.parse(mEvents[1].data) as unknown).toThrow();

    const errored = await post(
      chatUrl(),
      { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] },
      auth,
    );
    const eEvents = parseSse(errored.text);
    expect(JSON.parse(eEvents[eEvents.length - 1].data)).toEqual({
      error: { message: 'boom', type: 'server_error', param: null, code: null },
    });
  });

  it('delay before headers: an aborting client is counted as a disconnect', async () => {
    fake.enqueue({ delayMs: 2000 });
    await expect(
      post(chatUrl(), { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, auth, AbortSignal.timeout(150)),
    ).rejects.toThrow();
    await fake.waitForDisconnect(1, 2000);
    expect(fake.disconnects).toBe(1);
  });

  it('chunk delays are applied between events', async () => {
    fake.enqueue({ text: 'abcdefgh', chunkSize: 2, chunkDelayMs: 40 });
    const started = Date.now();
    await post(chatUrl(), { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] }, auth);
    // role + 4 content + finish + [DONE] = 7 events → 6 gaps
    expect(Date.now() - started).toBeGreaterThanOrEqual(6 * 40 - 20);
  });

  it('hang: stream sends the content then stalls until the client disconnects', async () => {
    fake.enqueue({ text: 'partial answer', chunkSize: 100, hang: true });
    const controller = new AbortController();
    const res = await fetch(chatUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] }),
      signal: controller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let received = '';
    while (parseSse(received).length < 2)
      received += Buffer.from((await reader.read()).value ?? new Uint8Array()).toString('utf8');
    expect(JSON.parse(parseSse(received)[1].data)).toMatchObject({
      choices: [{ delta: { content: 'partial answer' } }],
    });
    expect(fake.disconnects).toBe(0);
    controller.abort();
    await fake.waitForDisconnect();
    expect(fake.disconnects).toBe(1);
  });

  it('route-scoped scenarios wait for their route; setDefault answers when the queue is empty', async () => {
    fake.enqueue({ route: 'embeddings', fault: faults.http(500) }).setDefault({ text: 'fallback' });
    const chat = JSON.parse(
      (await post(chatUrl(), { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, auth)).text,
    ) as { choices: { message: { content: string } }[] };
    expect(chat.choices[0].message.content).toBe('fallback');
    expect(fake.pending).toBe(1);
    expect(
      (await post(`${fake.baseUrl}/v1/embeddings`, { model: 'text-embedding-3-small', input: 'x' }, auth)).status,
    ).toBe(500);
    expect(fake.pending).toBe(0);
  });

  it('non-stream hang never sends headers; close() tears hanging connections down', async () => {
    const other = await FakeOpenAI.start();
    other.enqueue({ hang: true });
    const pending = post(
      `${other.baseUrl}/v1/chat/completions`,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] },
      auth,
    );
    await other.waitForRequests(1);
    await other.close();
    await expect(pending).rejects.toThrow();
  });

  describe('driven by the official openai SDK', () => {
    const client = (): OpenAI => new OpenAI({ baseURL: `${fake.baseUrl}/v1`, apiKey: 'sk-test', maxRetries: 0 });

    it('chat non-stream', async () => {
      fake.enqueue({ text: 'Bonjour', usage: { input: 3, output: 1, cacheRead: 2 } });
      const completion = await client().chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Hello' }],
      });
      expect(completion.choices[0].message.content).toBe('Bonjour');
      expect(completion.choices[0].finish_reason).toBe('stop');
      expect(completion.usage).toMatchObject({
        prompt_tokens: 3,
        completion_tokens: 1,
        total_tokens: 4,
        prompt_tokens_details: { cached_tokens: 2 },
      });
      expect(fake.lastRequest?.headers['user-agent']).toMatch(/OpenAI\/JS/);
    });

    it('chat stream with include_usage and tools', async () => {
      fake.enqueue({
        text: 'Checking the weather.',
        chunkSize: 5,
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Paris', unit: 'c' } },
          { name: 'get_time', arguments: { tz: 'Europe/Paris' } },
        ],
        usage: { input: 20, output: 9 },
      });
      const stream = await client().chat.completions.create({
        model: 'gpt-4o',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Weather and time in Paris?' }],
        tools: [
          { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } },
          { type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } },
        ],
      });
      let content = '';
      const calls: { id: string; name: string; args: string }[] = [];
      let finish: string | null = null;
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices[0];
        if (!choice) continue;
        content += choice.delta.content ?? '';
        for (const tc of choice.delta.tool_calls ?? []) {
          calls[tc.index] ??= { id: '', name: '', args: '' };
          calls[tc.index].id += tc.id ?? '';
          calls[tc.index].name += tc.function?.name ?? '';
          calls[tc.index].args += tc.function?.arguments ?? '';
        }
        finish = choice.finish_reason ?? finish;
      }
      expect(content).toBe('Checking the weather.');
      expect(calls.map((c) => [c.name, JSON.parse(c.args) as unknown])).toEqual([
        ['get_weather', { city: 'Paris', unit: 'c' }],
        ['get_time', { tz: 'Europe/Paris' }],
      ]);
      expect(calls.every((c) => /^call_/.test(c.id))).toBe(true);
      expect(finish).toBe('tool_calls');
      expect(usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 });
      expect((fake.lastRequest?.body.tools as unknown[]).length).toBe(2);
    });

    it('embeddings: SDK default base64 decodes to fakeEmbedding', async () => {
      const res = await client().embeddings.create({
        model: 'text-embedding-3-small',
        input: ['alpha beta', 'gamma'],
        dimensions: 64,
      });
      expect(fake.lastRequest?.body).toMatchObject({ encoding_format: 'base64', dimensions: 64 });
      expect(res.data[0].embedding).toEqual(Array.from(fakeEmbedding('alpha beta', 64)));
      expect(res.data[1].embedding).toEqual(Array.from(fakeEmbedding('gamma', 64)));
      expect(res.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    });

    it('SDK sees 429 as RateLimitError with retry-after, and an in-stream error as APIError', async () => {
      fake.enqueue(
        { fault: faults.http(429, { retryAfter: 3 }) },
        { text: 'xx', fault: faults.streamError({ message: 'mid-stream failure' }) },
      );
      const err = await client()
        .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('3');

      const stream = await client().chat.completions.create({
        model: 'gpt-4o',
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      });
      await expect(
        (async () => {
          for await (const _chunk of stream) {
            // drain
          }
        })(),
      ).rejects.toThrow('mid-stream failure');
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('FakeAnthropic', () => {
  let fake: FakeAnthropic;
  const headers = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' };
  const url = (): string => `${fake.baseUrl}/v1/messages`;
  const request = {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: 'Be terse',
    messages: [{ role: 'user', content: 'What is up?' }],
  };

  beforeAll(async () => {
    fake = await FakeAnthropic.start({ apiKey: 'sk-ant-test' });
  });
  afterAll(() => fake.close());
  afterEach(() => fake.reset());

  it('checks x-api-key and anthropic-version', async () => {
    const missing = await post(url(), request, { 'anthropic-version': '2023-06-01' });
    expect([missing.status, JSON.parse(missing.text)]).toEqual([
      401,
      {
        type: 'error',
        error: { type: 'authentication_error', message: 'x-api-key header is required' },
        request_id: expect.stringMatching(/^req_/) as string,
      },
    ]);
    const wrong = await post(url(), request, { ...headers, 'x-api-key': 'nope' });
    expect([wrong.status, (JSON.parse(wrong.text) as { error: unknown }).error]).toEqual([
      401,
      { type: 'authentication_error', message: 'invalid x-api-key' },
    ]);
    const noVersion = await post(url(), request, { 'x-api-key': 'sk-ant-test' });
    expect([noVersion.status, (JSON.parse(noVersion.text) as { error: unknown }).error]).toEqual([
      400,
      { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    ]);
    const system = await post(url(), { ...request, messages: [{ role: 'system', content: 'x' }] }, headers);
    expect((JSON.parse(system.text) as { error: { message: string } }).error.message).toContain(
      'Unexpected role "system"',
    );
  });

  it('answers a non-stream message with thinking, text and tool_use blocks', async () => {
    fake.enqueue({
      id: 'msg_1',
      reasoning: 'Consider it',
      text: 'Let me check.',
      toolCalls: [{ id: 'toolu_1', name: 'lookup', arguments: { q: 'up' } }],
      usage: { input: 100, output: 20, cacheRead: 60, cacheWrite: 30 },
    });
    const res = await post(url(), request, headers);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'thinking', thinking: 'Consider it', signature: fakeThinkingSignature('Consider it') },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'up' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 30,
        cache_read_input_tokens: 60,
        output_tokens: 20,
        service_tier: 'standard',
      },
    });
    expect(fake.lastRequest?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('default answer echoes the last user message; default usage counts system + messages', async () => {
    const json = JSON.parse((await post(url(), request, headers)).text) as {
      content: unknown[];
      stop_reason: string;
      usage: Record<string, number>;
    };
    expect(json.content).toEqual([{ type: 'text', text: 'What is up?' }]);
    expect(json.stop_reason).toBe('end_turn');
    expect(json.usage).toMatchObject({ input_tokens: fakeTokenCount('Be terse What is up?'), output_tokens: 3 });
  });

  it('streams the exact event sequence', async () => {
    fake.enqueue({
      id: 'msg_s',
      reasoning: 'Hmm ok',
      signature: 'sig==',
      text: 'Hi there',
      chunkSize: 4,
      toolCalls: [{ id: 'toolu_9', name: 'f', arguments: { a: 1 } }],
      usage: { input: 50, output: 12, cacheRead: 40 },
    });
    const res = await post(url(), { ...request, stream: true }, headers);
    const delta = (index: number, d: unknown): string =>
      anthropicEvent('content_block_delta', { type: 'content_block_delta', index, delta: d });
    const expected = [
      anthropicEvent('message_start', {
        type: 'message_start',
        message: {
          id: 'msg_s',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 40, output_tokens: 1 },
        },
      }),
      anthropicEvent('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '' },
      }),
      anthropicEvent('ping', { type: 'ping' }),
      delta(0, { type: 'thinking_delta', thinking: 'Hmm ' }),
      delta(0, { type: 'thinking_delta', thinking: 'ok' }),
      delta(0, { type: 'signature_delta', signature: 'sig==' }),
      anthropicEvent('content_block_stop', { type: 'content_block_stop', index: 0 }),
      anthropicEvent('content_block_start', {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'text', text: '' },
      }),
      delta(1, { type: 'text_delta', text: 'Hi t' }),
      delta(1, { type: 'text_delta', text: 'here' }),
      anthropicEvent('content_block_stop', { type: 'content_block_stop', index: 1 }),
      anthropicEvent('content_block_start', {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 'toolu_9', name: 'f', input: {} },
      }),
      delta(2, { type: 'input_json_delta', partial_json: '' }),
      delta(2, { type: 'input_json_delta', partial_json: '{"a"' }),
      delta(2, { type: 'input_json_delta', partial_json: ':1}' }),
      anthropicEvent('content_block_stop', { type: 'content_block_stop', index: 2 }),
      anthropicEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: 12 },
      }),
      anthropicEvent('message_stop', { type: 'message_stop' }),
    ].join('');
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.text).toBe(expected);
  });

  it('faults: 529 overloaded, 429 with retry-after, in-stream error event', async () => {
    fake.enqueue(
      { fault: faults.http(529) },
      { fault: faults.http(429, { retryAfter: 12 }) },
      { text: 'abc def', fault: faults.streamError({ afterChunks: 3 }) },
    );
    const overloaded = await post(url(), request, headers);
    expect([overloaded.status, JSON.parse(overloaded.text)]).toEqual([
      529,
      {
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
        request_id: overloaded.headers.get('request-id'),
      },
    ]);
    const limited = await post(url(), request, headers);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('12');
    expect((JSON.parse(limited.text) as { error: { type: string } }).error.type).toBe('rate_limit_error');

    const streamed = parseSse((await post(url(), { ...request, stream: true }, headers)).text);
    expect(streamed.map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'ping', 'error']);
    expect(JSON.parse(streamed[3].data)).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('FakeGemini', () => {
  let fake: FakeGemini;
  const headers = { 'x-goog-api-key': 'g-key' };
  const url = (method: string, query = ''): string =>
    `${fake.baseUrl}/v1beta/models/gemini-2.5-flash:${method}${query}`;
  const request = {
    systemInstruction: { parts: [{ text: 'You are kind' }] },
    contents: [{ role: 'user', parts: [{ text: 'Call the tool' }] }],
  };

  beforeAll(async () => {
    fake = await FakeGemini.start({ apiKey: 'g-key' });
  });
  afterAll(() => fake.close());
  afterEach(() => fake.reset());

  it('answers generateContent with thought, text and functionCall parts', async () => {
    fake.enqueue({
      id: 'resp-1',
      reasoning: 'plan',
      text: 'Calling.',
      toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }],
      usage: { input: 30, output: 15, cacheRead: 10, reasoning: 5 },
    });
    const res = await post(url('generateContent'), request, headers);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({
      candidates: [
        {
          content: {
            parts: [
              { text: 'plan', thought: true },
              { text: 'Calling.' },
              { functionCall: { name: 'lookup', args: { q: 'x' } } },
            ],
            role: 'model',
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: 30,
        candidatesTokenCount: 10,
        totalTokenCount: 45,
        cachedContentTokenCount: 10,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: 30 }],
        thoughtsTokenCount: 5,
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'resp-1',
    });
    expect(fake.lastRequest?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
  });

  it('streams with alt=sse: CRLF-separated data events, usage on chunks, finishReason on the last', async () => {
    fake.enqueue({ id: 'resp-s', text: 'Hello world', chunkSize: 6, finish: 'length', usage: { input: 4, output: 2 } });
    const res = await post(url('streamGenerateContent', '?alt=sse'), request, headers);
    const partial = {
      promptTokenCount: 4,
      totalTokenCount: 4,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 4 }],
    };
    const frame = (payload: unknown): string => `data: ${JSON.stringify(payload)}\r\n\r\n`;
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.text).toBe(
      frame({
        candidates: [{ content: { parts: [{ text: 'Hello ' }], role: 'model' }, index: 0 }],
        usageMetadata: partial,
        modelVersion: 'gemini-2.5-flash',
        responseId: 'resp-s',
      }) +
        frame({
          candidates: [
            { content: { parts: [{ text: 'world' }], role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 },
          ],
          usageMetadata: {
            promptTokenCount: 4,
            candidatesTokenCount: 2,
            totalTokenCount: 6,
            promptTokensDetails: [{ modality: 'TEXT', tokenCount: 4 }],
          },
          modelVersion: 'gemini-2.5-flash',
          responseId: 'resp-s',
        }),
    );
  });

  it('streams a JSON array without alt=sse; default echo of the last user text', async () => {
    const res = await post(url('streamGenerateContent'), request, headers);
    const chunks = JSON.parse(res.text) as { candidates: { content: { parts: { text: string }[] } }[] }[];
    expect(chunks.map((c) => c.candidates[0].content.parts[0].text).join('')).toBe('Call the tool');
  });

  it('errors: wrong / missing key, 429 RESOURCE_EXHAUSTED with RetryInfo, 503 UNAVAILABLE', async () => {
    const wrong = await post(url('generateContent'), request, { 'x-goog-api-key': 'bad' });
    expect(wrong.status).toBe(400);
    expect(JSON.parse(wrong.text)).toMatchObject({
      error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' },
    });
    const missing = await post(url('generateContent'), request);
    expect([missing.status, (JSON.parse(missing.text) as { error: { status: string } }).error.status]).toEqual([
      403,
      'PERMISSION_DENIED',
    ]);

    fake.enqueue({ fault: faults.http(429, { retryAfter: 30 }) }, { fault: faults.http(503) });
    const limited = await post(url('generateContent'), request, headers);
    expect([limited.status, JSON.parse(limited.text)]).toEqual([
      429,
      {
        error: {
          code: 429,
          message: expect.stringContaining('You exceeded your current quota') as string,
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' }],
        },
      },
    ]);
    const unavailable = await post(url('streamGenerateContent', '?alt=sse'), request, headers);
    expect([unavailable.status, JSON.parse(unavailable.text)]).toEqual([
      503,
      { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('ImageServer', () => {
  let images: ImageServer;
  beforeAll(async () => {
    images = await ImageServer.start();
  });
  afterAll(() => images.close());
  afterEach(() => images.reset());

  it('pngBytes builds a valid 1x1 PNG', () => {
    const png = pngBytes();
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(png.toString('ascii', 12, 16)).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1, 1]);
    const idatLength = png.readUInt32BE(33);
    expect(png.toString('ascii', 37, 41)).toBe('IDAT');
    expect([...inflateSync(png.subarray(41, 41 + idatLength))]).toEqual([0, 255, 0, 0, 255]);
  });

  it('serves bytes, redirects, oversize streams and counts hits', async () => {
    const pngUrl = images.serve('/a.png', pngBytes(), 'image/png');
    const redirectUrl = images.redirect('/r', pngUrl, 301);
    const bigUrl = images.oversize('/big.png', 300_000);

    const a = await fetch(pngUrl);
    expect(a.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await a.arrayBuffer())).toEqual(pngBytes());

    const r = await fetch(redirectUrl, { redirect: 'manual' });
    expect([r.status, r.headers.get('location')]).toEqual([301, pngUrl]);
    await r.arrayBuffer();

    const big = await fetch(bigUrl);
    expect(big.headers.get('content-length')).toBeNull();
    expect(big.headers.get('transfer-encoding')).toBe('chunked');
    expect((await big.arrayBuffer()).byteLength).toBe(300_000);

    expect((await fetch(images.url('/missing'))).status).toBe(404);
    expect(images.hitCounts()).toEqual({ '/a.png': 1, '/r': 1, '/big.png': 1, '/missing': 1 });
    expect(images.hits('/never')).toBe(0);
    expect(images.hits()).toBe(4);
  });
});
