/**
 * Upstream faults and client disconnects: every provider error maps to the documented status
 * (4xx → 400 with the provider's message, 429 → 429 + Retry-After, 5xx / reset / unparsable body
 * or stream → 502, timeout → 504), the reservation is released (balance unchanged, no ledger
 * entry) — and a client that goes away mid-stream aborts the upstream within a second and is
 * charged exactly the delivered tokens.
 */
import OpenAI from 'openai';
import request from 'supertest';
import { FakeAnthropic, FakeGemini, FakeOpenAI, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import {
  PRICES,
  UPSTREAM_KEYS,
  Wallet,
  charges,
  eventually,
  expectedCost,
  gatewayPromptTokens,
  gatewayTokens,
  getBalance,
  obj,
  parseSse,
  postSse,
  providerEnv,
} from './chat-helpers';

const DEEPSEEK_TIMEOUT_MS = 300;
const NO_RETRIES = {
  OPENAI_MAX_RETRIES: '0',
  DEEPSEEK_MAX_RETRIES: '0',
  ANTHROPIC_MAX_RETRIES: '0',
  GEMINI_MAX_RETRIES: '0',
};

function expectError(res: request.Response, status: number, type: string): void {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(res.body.error).toMatchObject({ type, message: expect.any(String) });
}

describe(`upstream faults and client disconnects (${backendKind()})`, () => {
  let openai: FakeOpenAI;
  let deepseek: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let gemini: FakeGemini;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let wallet: Wallet;
  let client: OpenAI;

  const rest = (model: string, extra: Record<string, unknown> = {}) =>
    request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({ prompt: 'Hello there', model, user_id: 'u', ...extra });

  beforeAll(async () => {
    [openai, deepseek, anthropic, gemini] = await Promise.all([
      FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai }),
      FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.deepseek }),
      FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic }),
      FakeGemini.start({ apiKey: UPSTREAM_KEYS.gemini }),
    ]);
    // DeepSeek gets a short deadline for the timeout cases; the others keep the default.
    // Retries are off here: this suite pins how ONE failed attempt maps to the client (retries,
    // fallbacks and deployments are covered by test/chat/resilience.e2e-spec.ts).
    t = await createTestApp({
      env: {
        ...providerEnv({ openai, deepseek, anthropic, gemini }),
        ...NO_RETRIES,
        DEEPSEEK_TIMEOUT_MS: String(DEEPSEEK_TIMEOUT_MS),
      },
    });
    admin = new AdminClient(t.url);
  });

  beforeEach(async () => {
    apiKey = (await admin.teamWithKey(200)).apiKey;
    wallet = await new Wallet(t.url, apiKey).snapshot();
    client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 });
  });

  afterEach(() => {
    for (const f of [openai, deepseek, anthropic, gemini]) f.reset();
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([openai, deepseek, anthropic, gemini].map((f) => f?.close()));
  });

  describe('provider 4xx → 400 with the provider message', () => {
    it('OpenAI, Anthropic and Gemini invalid-request errors', async () => {
      openai.enqueue({
        fault: faults.http(400, { message: "Invalid 'messages[0].content': string too long.", param: 'messages' }),
      });
      const o = await rest('gpt-4o-mini');
      expectError(o, 400, 'invalid_request_error');
      expect(o.body.error.message).toContain("Invalid 'messages[0].content': string too long.");

      anthropic.enqueue({ fault: faults.http(400, { message: 'messages: text content blocks must be non-empty' }) });
      const a = await rest('claude-sonnet-4');
      expectError(a, 400, 'invalid_request_error');
      expect(a.body.error.message).toContain('messages: text content blocks must be non-empty');

      gemini.enqueue({
        fault: faults.http(400, { message: 'Invalid value at generation_config.temperature (TYPE_FLOAT)' }),
      });
      const g = await rest('gemini-2.5-flash');
      expectError(g, 400, 'invalid_request_error');
      expect(g.body.error.message).toContain('Invalid value at generation_config.temperature (TYPE_FLOAT)');

      expect([openai.requests.length, anthropic.requests.length, gemini.requests.length]).toEqual([1, 1, 1]);
      await wallet.expectUntouched();
    });

    it('through the SDK: BadRequestError carrying the provider message', async () => {
      openai.enqueue({
        fault: faults.http(404, { message: 'The model `gpt-4o-mini` does not exist or you do not have access to it.' }),
      });
      const err = await client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err).toMatchObject({
        status: 400,
        message: expect.stringContaining('does not exist or you do not have access to it'),
      });
      await wallet.expectUntouched();
    });
  });

  describe('429 → 429 with Retry-After', () => {
    it('OpenAI / Anthropic retry-after header, Gemini RetryInfo', async () => {
      openai.enqueue({ fault: faults.http(429, { retryAfter: 7 }) });
      const o = await rest('gpt-4o-mini');
      expectError(o, 429, 'rate_limit_error');
      expect(o.headers['retry-after']).toBe('7');

      anthropic.enqueue({ fault: faults.http(429, { retryAfter: 3 }) });
      const a = await rest('claude-sonnet-4');
      expectError(a, 429, 'rate_limit_error');
      expect(a.headers['retry-after']).toBe('3');

      gemini.enqueue({ fault: faults.http(429, { retryAfter: 5 }) });
      const g = await rest('gemini-2.5-flash');
      expectError(g, 429, 'rate_limit_error');
      expect(g.headers['retry-after']).toBe('5');
      await wallet.expectUntouched();
    });

    it('through the SDK (stream request): RateLimitError with the header', async () => {
      anthropic.enqueue({ fault: faults.http(429, { retryAfter: 2 }) });
      const err = await client.chat.completions
        .create({ model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'x' }], stream: true })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      expect(err instanceof OpenAI.APIError ? err.headers.get('retry-after') : null).toBe('2');
      await wallet.expectUntouched();
    });
  });

  describe('5xx, resets and garbage → 502', () => {
    it.each([
      ['OpenAI 500', 'gpt-4o-mini', () => openai.enqueue({ fault: faults.http(500) })],
      ['OpenAI 503', 'gpt-4o-mini', () => openai.enqueue({ fault: faults.http(503) })],
      ['Gemini 503 UNAVAILABLE', 'gemini-2.5-flash', () => gemini.enqueue({ fault: faults.http(503) })],
      ['Anthropic 529 overloaded', 'claude-sonnet-4', () => anthropic.enqueue({ fault: faults.http(529) })],
      ['Anthropic 500', 'claude-sonnet-4', () => anthropic.enqueue({ fault: faults.http(500) })],
      ['connection reset before headers', 'gpt-4o-mini', () => openai.enqueue({ fault: faults.reset() })],
      [
        'reset half-way through the body',
        'claude-sonnet-4',
        () => anthropic.enqueue({ text: 'partial body', fault: faults.resetMidStream() }),
      ],
      ['invalid JSON body', 'gpt-4o-mini', () => openai.enqueue({ fault: faults.invalidJson() })],
      ['invalid JSON body (Gemini)', 'gemini-2.5-flash', () => gemini.enqueue({ fault: faults.invalidJson() })],
    ])('%s → 502, nothing charged', async (_name, model, arrange) => {
      arrange();
      const res = await rest(model);
      expectError(res, 502, 'upstream_error');
      await wallet.expectUntouched();
    });

    it('a stream that is malformed before any chunk → 502 status (not SSE), nothing charged', async () => {
      for (const [model, arrange] of [
        ['gpt-4o-mini', () => openai.enqueue({ text: 'abc', fault: faults.malformedSse(0) })],
        ['claude-sonnet-4', () => anthropic.enqueue({ text: 'abc', fault: faults.malformedSse(0) })],
        ['gemini-2.5-flash', () => gemini.enqueue({ text: 'abc', fault: faults.malformedSse(0) })],
      ] as const) {
        arrange();
        const res = await rest(model, { stream: true });
        expectError(res, 502, 'upstream_error');
      }
      await wallet.expectUntouched();
    });

    it('REST stream broken mid-way (malformed SSE / reset / in-stream error) → `error` event, the delivered tokens charged', async () => {
      // Claude reports its input tokens in message_start: the cut answer is charged with them
      const usage = { input: 40, output: 99 };
      const cases: [string, () => void, number | null][] = [
        [
          'gpt-4o-mini',
          () => openai.enqueue({ text: 'abcdefghijkl', chunkSize: 2, fault: faults.malformedSse(3) }),
          null,
        ],
        [
          'claude-sonnet-4',
          () => anthropic.enqueue({ text: 'abcdefghijkl', chunkSize: 2, usage, fault: faults.resetMidStream(5) }),
          40,
        ],
        [
          'claude-sonnet-4',
          () =>
            anthropic.enqueue({
              text: 'abcdefghijkl',
              chunkSize: 2,
              usage,
              fault: faults.streamError({ afterChunks: 5 }),
            }),
          40,
        ],
        [
          'gemini-2.5-flash',
          () => gemini.enqueue({ text: 'abcdefghijkl', chunkSize: 2, fault: faults.streamError({ afterChunks: 2 }) }),
          null,
        ],
      ];
      for (const [model, arrange, reported] of cases) {
        arrange();
        const res = await postSse(
          `${t.url}/api/v1/chat`,
          { 'api-key': apiKey },
          { prompt: 'x', model, user_id: 'u', stream: true },
        );
        expect(res.status).toBe(200);
        const names = res.messages.map((m) => m.event);
        expect(names).toContain('delta');
        expect(names).not.toContain('done');
        expect(names[names.length - 1]).toBe('error');
        const err = obj(obj(JSON.parse(res.messages[res.messages.length - 1].data)).error);
        expect(err).toMatchObject({ type: 'upstream_error', message: expect.any(String) });
        // the client keeps the text it received and the provider bills it: so does the gateway
        const delivered = res.messages
          .filter((m) => m.event === 'delta')
          .map((m) => String(obj(JSON.parse(m.data)).text))
          .join('');
        expect(delivered.length).toBeGreaterThan(0);
        const promptTokens = reported ?? gatewayPromptTokens([{ role: 'user', content: 'x' }]);
        const completionTokens = gatewayTokens.count(delivered);
        const cost = expectedCost(PRICES[model as keyof typeof PRICES], {
          prompt: promptTokens,
          completion: completionTokens,
        });
        await wallet.expectCharged(cost.total_cost_rub, { promptTokens, completionTokens, model });
        await wallet.snapshot();
      }
    });

    it('SDK stream broken mid-way: the SDK throws an APIError after the delivered deltas, which are charged', async () => {
      openai.enqueue({
        text: 'abcdefgh',
        chunkSize: 2,
        fault: faults.streamError({ afterChunks: 3, message: 'The server had an error processing your request.' }),
      });
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
      });
      let text = '';
      const err = await (async () => {
        for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      // the upstream's own text stays in the logs; the client learns which provider failed
      expect(String(err instanceof Error ? err.message : err)).toContain('openai (gpt-4o-mini) is unavailable');
      expect(String(err instanceof Error ? err.message : err)).not.toContain(
        'The server had an error processing your request.',
      );
      expect(text).toBe('abcd');
      const promptTokens = gatewayPromptTokens([{ role: 'user', content: 'x' }]);
      const completionTokens = gatewayTokens.count(text);
      const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: promptTokens, completion: completionTokens });
      await wallet.expectCharged(cost.total_cost_rub, { promptTokens, completionTokens, model: 'gpt-4o-mini' });
    });
  });

  describe('timeouts → 504', () => {
    it(`non-stream and stream: no answer within DEEPSEEK_TIMEOUT_MS=${DEEPSEEK_TIMEOUT_MS} → 504; upstream request abandoned; nothing charged`, async () => {
      deepseek.enqueue({ text: 'late', delayMs: 5_000 });
      const started = Date.now();
      const res = await rest('deepseek-chat');
      expectError(res, 504, 'timeout_error');
      expect(Date.now() - started).toBeLessThan(3_000);
      await deepseek.waitForDisconnect(1, 1_500);

      deepseek.enqueue({ text: 'late', delayMs: 5_000 });
      const streamed = await rest('deepseek-chat', { stream: true });
      expectError(streamed, 504, 'timeout_error');
      await deepseek.waitForDisconnect(2, 1_500);
      await wallet.expectUntouched();
    });

    it('a stream that goes silent mid-way → in-band timeout error, the delivered tokens charged', async () => {
      deepseek.enqueue({ text: 'abcdefgh', chunkSize: 2, hang: { afterChunks: 3 } });
      const res = await postSse(
        `${t.url}/api/v1/chat`,
        { 'api-key': apiKey },
        { prompt: 'x', model: 'deepseek-chat', user_id: 'u', stream: true },
      );
      expect(res.status).toBe(200);
      const last = res.messages[res.messages.length - 1];
      expect(last.event).toBe('error');
      expect(obj(JSON.parse(last.data)).error).toMatchObject({ type: 'timeout_error' });
      await deepseek.waitForDisconnect(1, 1_500);
      const delivered = res.messages
        .filter((m) => m.event === 'delta')
        .map((m) => String(obj(JSON.parse(m.data)).text))
        .join('');
      expect(delivered).toBe('abcd');
      const promptTokens = gatewayPromptTokens([{ role: 'user', content: 'x' }]);
      const completionTokens = gatewayTokens.count(delivered);
      const cost = expectedCost(PRICES['deepseek-chat'], { prompt: promptTokens, completion: completionTokens });
      await wallet.expectCharged(cost.total_cost_rub, { promptTokens, completionTokens, model: 'deepseek-chat' });
    });
  });

  describe('client disconnect', () => {
    it('SDK stream aborted after 5 deltas: upstream aborted within 1 s, charged exactly the delivered tokens', async () => {
      const prompt = 'Tell me a long story about a fox';
      const text = 'The quick brown fox jumps over the lazy dog, again and again, until the end of time.';
      // role chunk + 5 four-character deltas, then the upstream goes quiet (never finishes)
      openai.enqueue({ text, chunkSize: 4, hang: { afterChunks: 6 }, usage: { input: 999, output: 999 } });
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: prompt }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let delivered = '';
      for await (const c of stream) {
        delivered += c.choices[0]?.delta.content ?? '';
        if (delivered.length >= 20) break; // leaving the loop aborts the SDK's request
      }
      const abortedAt = Date.now();
      expect(delivered).toBe(text.slice(0, 20));
      await openai.waitForDisconnect(1, 1_500);
      expect(Date.now() - abortedAt).toBeLessThan(1_000 + 100);

      const entry = await eventually(
        async () => (await charges(t.url, apiKey))[0],
        3_000,
        'the settlement of the aborted stream',
      );
      const promptTokens = gatewayPromptTokens([{ role: 'user', content: prompt }]);
      const completionTokens = gatewayTokens.count(delivered);
      expect(entry.completion_tokens).toBe(completionTokens);
      expect(entry.prompt_tokens).toBe(promptTokens);
      const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: promptTokens, completion: completionTokens });
      await wallet.expectCharged(cost.total_cost_rub, { promptTokens, completionTokens, model: 'gpt-4o-mini' });
    });

    it('REST stream aborted mid-way (Claude): upstream aborted within 1 s, charged the reported input and the delivered tokens', async () => {
      const prompt = 'Describe the sea';
      const text = 'Waves roll in slowly under a grey northern sky, endlessly.';
      // message_start, content_block_start, ping, then 4 deltas of 5 characters; then silence
      anthropic.enqueue({ text, chunkSize: 5, hang: { afterChunks: 7 }, usage: { input: 500, output: 500 } });
      const ac = new AbortController();
      const res = await fetch(`${t.url}/api/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-key': apiKey },
        body: JSON.stringify({ prompt, model: 'claude-sonnet-4', user_id: 'u', stream: true }),
        signal: ac.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body?.getReader();
      if (!reader) throw new Error('no body');
      const decoder = new TextDecoder();
      let raw = '';
      let delivered = '';
      while (delivered.length < 20) {
        const { value, done } = await reader.read();
        if (done) break;
        raw += decoder.decode(value, { stream: true });
        delivered = parseSse(raw)
          .filter((m) => m.event === 'delta')
          .map((m) => String(obj(JSON.parse(m.data)).text))
          .join('');
      }
      ac.abort();
      await reader.cancel().catch(() => undefined);
      const abortedAt = Date.now();
      expect(delivered).toBe(text.slice(0, 20));
      await anthropic.waitForDisconnect(1, 1_500);
      expect(Date.now() - abortedAt).toBeLessThan(1_100);

      const entry = await eventually(
        async () => (await charges(t.url, apiKey))[0],
        3_000,
        'the settlement of the aborted stream',
      );
      // the input side is what Anthropic reported in message_start (and bills), not the gateway's count
      const promptTokens = 500;
      const completionTokens = gatewayTokens.count(delivered);
      expect(entry.completion_tokens).toBe(completionTokens);
      const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: promptTokens, completion: completionTokens });
      await wallet.expectCharged(cost.total_cost_rub, { promptTokens, completionTokens, model: 'claude-sonnet-4' });
    });

    it('non-stream request abandoned by the client: upstream aborted, reservation released, nothing charged', async () => {
      openai.enqueue({ text: 'too late', delayMs: 10_000 });
      const ac = new AbortController();
      const pending = client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'slow' }] }, { signal: ac.signal })
        .catch((e: unknown) => e);
      await openai.waitForRequests(1, 2_000);
      expect((await getBalance(t.url, apiKey)).reserved_rub).toBeGreaterThan(0); // the worst case is held meanwhile
      ac.abort();
      expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
      await openai.waitForDisconnect(1, 1_500);
      await eventually(
        async () => ((await getBalance(t.url, apiKey)).reserved_rub === 0 ? true : undefined),
        3_000,
        'the reservation release',
      );
      await wallet.expectUntouched();
    });
  });
});
