/**
 * POST /api/v1/chat over raw HTTP: the exact response shape, the message order
 * sent upstream, validation (roles, images, limits), JSON mode, unknown ids, unavailable models,
 * the 402 reservation check and the streaming extension — with balance and ledger checks.
 */
import request from 'supertest';
import { FakeAnthropic, FakeOpenAI, pngBytes } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import {
  PRICES,
  PricedModel,
  UPSTREAM_KEYS,
  Wallet,
  arr,
  expectedCost,
  gatewayPromptTokens,
  obj,
  postSse,
  providerEnv,
} from './chat-helpers';
import { SAFE_FETCHER_OPTIONS, SafeFetcherOptions } from '@app/common';

function expectError(res: request.Response, status: number, type: string, param: string | null): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: { message: expect.any(String), type, code: expect.anything(), param } });
}

describe(`POST /api/v1/chat over raw HTTP (${backendKind()})`, () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let wallet: Wallet;

  const chat = (body: Record<string, unknown>, key = apiKey) =>
    request(t.url).post('/api/v1/chat').set('api-key', key).send(body);

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    anthropic = await FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic });
    // deliberately no GEMINI_* / DEEPSEEK_* credentials: those models are unavailable here
    // image URLs are vetted before they are forwarded (DNS-resolved, every address public): this
    // machine is offline, so the test hosts resolve through an injected resolver to a public address
    const resolver: SafeFetcherOptions['resolver'] = async () => [{ address: '93.184.216.34', family: 4 }];
    t = await createTestApp({
      env: providerEnv({ openai, anthropic }),
      overrides: [{ provide: SAFE_FETCHER_OPTIONS, useValue: { resolver } satisfies SafeFetcherOptions }],
    });
    admin = new AdminClient(t.url);
  });

  beforeEach(async () => {
    // ≥ 96 RUB: Claude Sonnet's worst case with its 64 000-token output cap is 96 RUB
    apiKey = (await admin.teamWithKey(200)).apiKey;
    wallet = await new Wallet(t.url, apiKey).snapshot();
  });

  afterEach(() => {
    openai.reset();
    anthropic.reset();
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([openai?.close(), anthropic?.close()]);
  });

  it('returns exactly the spec response (every member), and the balance moves by total_cost_rub', async () => {
    openai.enqueue({ text: 'RAG combines retrieval with generation.', usage: { input: 37, output: 6 } });
    const res = await chat({ prompt: 'What is RAG?', model: 'gpt-4o-mini', user_id: 'user-42' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 37, completion: 6 });
    expect(cost).toEqual({
      input_cost_rub: 0.000555,
      output_cost_rub: 0.00036,
      image_cost_rub: null,
      cache_cost_rub: 0,
      total_cost_rub: 0.000915,
      currency: 'RUB',
    });
    expect(res.body).toEqual({
      response: { text: 'RAG combines retrieval with generation.', reasoning: null },
      usage: { prompt_tokens: 37, completion_tokens: 6, total_tokens: 43, cache_read_tokens: 0, cache_write_tokens: 0 },
      cost,
      model: { model: 'gpt-4o-mini', context_window: 128000, supports_images: true },
      has_reasoning: false,
    });
    expect(res.headers['x-gateway-cost-rub']).toBe('0.000915');
    await wallet.expectCharged(0.000915, {
      model: 'gpt-4o-mini',
      endpoint: '/api/v1/chat',
      promptTokens: 37,
      completionTokens: 6,
    });
  });

  it('sends system_prompt first, then messages in order, then prompt as the last user turn; user_id as user', async () => {
    openai.enqueue({ text: 'ok', usage: { input: 10, output: 1 } });
    const res = await chat({
      prompt: 'And now?',
      model: 'gpt-4o-mini',
      user_id: 'user-1',
      system_prompt: 'You are a tutor.',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello! How can I help?' },
        { role: 'user', content: 'Explain BPE' },
      ],
    });
    expect(res.status).toBe(200);
    expect(openai.lastRequest?.body.messages).toEqual([
      { role: 'system', content: 'You are a tutor.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello! How can I help?' },
      { role: 'user', content: 'Explain BPE' },
      { role: 'user', content: 'And now?' },
    ]);
    expect(openai.lastRequest?.body.user).toBe('user-1');
    // Anthropic: system prompt top-level, the turns in the same order
    anthropic.enqueue({ text: 'ok', usage: { input: 10, output: 1 } });
    const viaClaude = await chat({
      prompt: 'P',
      model: 'claude-sonnet-4',
      user_id: 'u',
      system_prompt: 'S',
      messages: [
        { role: 'user', content: 'u1' },
        { role: 'assistant', content: 'a1' },
      ],
    });
    expect(viaClaude.status).toBe(200);
    expect(anthropic.lastRequest?.body.system).toBe('S');
    expect(anthropic.lastRequest?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'u1' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'a1' }] },
      { role: 'user', content: [{ type: 'text', text: 'P' }] },
    ]);
  });

  it('a message role other than user/assistant is a 400 naming messages[i].role; nothing sent or charged', async () => {
    for (const role of ['system', 'tool', 'developer', 'bot']) {
      const res = await chat({
        prompt: 'x',
        model: 'gpt-4o-mini',
        user_id: 'u',
        messages: [
          { role: 'user', content: 'a' },
          { role, content: 'b' },
        ],
      });
      expectError(res, 400, 'invalid_request_error', 'messages[1].role');
    }
    expect(openai.requests).toHaveLength(0);
    await wallet.expectUntouched();
  });

  it('missing required fields are 400s naming the field', async () => {
    expectError(await chat({ model: 'gpt-4o-mini', user_id: 'u' }), 400, 'invalid_request_error', 'prompt');
    expectError(await chat({ prompt: 'x', user_id: 'u' }), 400, 'invalid_request_error', 'model');
    expectError(await chat({ prompt: 'x', model: 'gpt-4o-mini' }), 400, 'invalid_request_error', 'user_id');
    expect(openai.requests).toHaveLength(0);
  });

  it('file_urls for a model without image support → 400; nothing sent or charged', async () => {
    const res = await chat({
      prompt: 'look',
      model: 'local',
      user_id: 'u',
      file_urls: [`data:image/png;base64,${pngBytes().toString('base64')}`],
    });
    expectError(res, 400, 'invalid_request_error', 'file_urls');
    expect(res.body.error.message).toContain('local');
    await wallet.expectUntouched();
  });

  it('more than 20 images → 413; more than 10 PDFs → 413; nothing sent or charged', async () => {
    const img = (i: number) => `https://example.com/img-${i}.png`;
    const twentyOne = await chat({
      prompt: 'x',
      model: 'gpt-4o-mini',
      user_id: 'u',
      file_urls: Array.from({ length: 21 }, (_, i) => img(i)),
    });
    expectError(twentyOne, 413, 'request_too_large', 'file_urls');
    const many = await chat({
      prompt: 'x',
      model: 'gpt-4o-mini',
      user_id: 'u',
      file_urls: Array.from({ length: 40 }, (_, i) => img(i)),
    });
    expectError(many, 413, 'request_too_large', 'file_urls');
    const pdfs = await chat({
      prompt: 'x',
      model: 'gpt-4o-mini',
      user_id: 'u',
      file_urls: Array.from({ length: 11 }, (_, i) => `https://example.com/doc-${i}.pdf`),
    });
    expectError(pdfs, 413, 'request_too_large', 'file_urls');
    expect(openai.requests).toHaveLength(0);
    await wallet.expectUntouched();
  });

  it('exactly 20 images are accepted (20 image fees), URLs passed to OpenAI untouched after the prompt text', async () => {
    const urls = Array.from({ length: 20 }, (_, i) => `https://example.com/img-${i}.png`);
    openai.enqueue({ text: 'many', usage: { input: 2000, output: 1 } });
    const res = await chat({ prompt: 'count them', model: 'gpt-4o-mini', user_id: 'u', file_urls: urls });
    expect(res.status).toBe(200);
    const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 2000, completion: 1, images: 20 });
    expect(res.body.cost).toEqual(cost);
    expect(res.body.cost.image_cost_rub).toBe(2);
    const last = obj(arr(openai.lastRequest?.body.messages).at(-1));
    expect(last).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'count them' },
        ...urls.map((url) => ({ type: 'image_url', image_url: { url } })),
      ],
    });
    await wallet.expectCharged(cost.total_cost_rub);
  });

  it('response_format_json: JSON mode upstream (OpenAI response_format, Claude forced tool); fenced JSON is unwrapped', async () => {
    openai.enqueue({ text: '```json\n{"items": [1, 2, 3]}\n```', usage: { input: 20, output: 12 } });
    const res = await chat({
      prompt: 'List 3 numbers',
      model: 'gpt-4o-mini',
      user_id: 'u',
      response_format_json: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.response.text).toBe('{"items": [1, 2, 3]}');
    expect(JSON.parse(res.body.response.text)).toEqual({ items: [1, 2, 3] });
    expect(openai.lastRequest?.body.response_format).toEqual({ type: 'json_object' });
    // OpenAI's JSON mode requires the word "JSON" in the messages: the gateway adds a system line
    expect(JSON.stringify(openai.lastRequest?.body.messages)).toContain('JSON');

    anthropic.enqueue({
      toolCalls: [{ name: 'json_output', arguments: { ok: true } }],
      usage: { input: 20, output: 5 },
    });
    const claude = await chat({
      prompt: 'Is it ok?',
      model: 'claude-sonnet-4',
      user_id: 'u',
      response_format_json: true,
    });
    expect(claude.status).toBe(200);
    expect(JSON.parse(claude.body.response.text)).toEqual({ ok: true });
    expect(anthropic.lastRequest?.body.tool_choice).toEqual({ type: 'tool', name: 'json_output' });
    await wallet.expectChargedEach([
      expectedCost(PRICES['gpt-4o-mini'], { prompt: 20, completion: 12 }).total_cost_rub,
      expectedCost(PRICES['claude-sonnet-4'], { prompt: 20, completion: 5 }).total_cost_rub,
    ]);
  });

  it('response_format_json with an answer that is not JSON → 502 and nothing charged (reservation released)', async () => {
    openai.enqueue({ text: 'Sure! Here are numbers: 1, 2, 3', usage: { input: 20, output: 9 } });
    const res = await chat({
      prompt: 'List 3 numbers',
      model: 'gpt-4o-mini',
      user_id: 'u',
      response_format_json: true,
    });
    expectError(res, 502, 'upstream_error', null);
    expect(openai.requests).toHaveLength(1);
    await wallet.expectUntouched();
  });

  it('unknown project_id / knowledge_base_id → 404 naming the field; nothing sent or charged', async () => {
    expectError(
      await chat({ prompt: 'x', model: 'gpt-4o-mini', user_id: 'u', project_id: 'prj_nope' }),
      404,
      'not_found_error',
      'project_id',
    );
    expectError(
      await chat({ prompt: 'x', model: 'gpt-4o-mini', user_id: 'u', knowledge_base_id: 'kb_nope' }),
      404,
      'not_found_error',
      'knowledge_base_id',
    );
    expect(openai.requests).toHaveLength(0);
    await wallet.expectUntouched();
  });

  it('unknown model → 404 naming model; an embedding model → 400', async () => {
    const res = await chat({ prompt: 'x', model: 'gpt-9-ultra', user_id: 'u' });
    expectError(res, 404, 'not_found_error', 'model');
    expect(res.body.error.message).toContain('gpt-9-ultra');
    expectError(
      await chat({ prompt: 'x', model: 'text-embedding-3-small', user_id: 'u' }),
      400,
      'invalid_request_error',
      'model',
    );
    await wallet.expectUntouched();
  });

  it('a model whose provider has no credentials → 503 naming the env var; listed as unavailable', async () => {
    const res = await chat({ prompt: 'x', model: 'gemini-2.5-flash', user_id: 'u' });
    expectError(res, 503, 'service_unavailable', null);
    expect(res.body.error.message).toContain('GEMINI_API_KEY');
    const ds = await chat({ prompt: 'x', model: 'deepseek-chat', user_id: 'u' });
    expect(ds.status).toBe(503);
    expect(ds.body.error.message).toContain('DEEPSEEK_API_KEY');
    await wallet.expectUntouched();

    const models = await request(t.url).get('/api/v1/models').set('api-key', apiKey);
    expect(models.status).toBe(200);
    const byKey = new Map<string, Record<string, unknown>>(
      (models.body.data as Record<string, unknown>[]).map((m) => [String(m.key), m]),
    );
    expect(byKey.get('gemini-2.5-flash')).toMatchObject({
      provider: 'gemini',
      kind: 'chat',
      jurisdiction: 'foreign',
      available: false,
      unavailable_reason: 'Provider "gemini" is not configured: set GEMINI_API_KEY on the gateway.',
      full_context: true,
      supports_images: true,
    });
    expect(byKey.get('gpt-4o-mini')).toMatchObject({
      jurisdiction: 'foreign',
      available: true,
      unavailable_reason: null,
      context_window: 128000,
      supports_tools: true,
    });
    expect(byKey.get('local')).toMatchObject({ jurisdiction: 'ru', available: true, unavailable_reason: null });
    expect(byKey.get('yandexgpt')).toMatchObject({
      provider: 'yandex',
      jurisdiction: 'ru',
      available: false,
      unavailable_reason:
        'Provider "yandex" is not configured: set YANDEX_API_KEY and YANDEX_FOLDER_ID or YANDEX_IAM_TOKEN and YANDEX_FOLDER_ID on the gateway.',
    });
    const yandex = await chat({ prompt: 'x', model: 'yandexgpt', user_id: 'u' });
    expect(yandex.status).toBe(503);
    expect(yandex.body.error.message).toContain('YANDEX_FOLDER_ID');
    // a provider configured by its own variables: GigaChat without GIGACHAT_AUTH_KEY
    expect(byKey.get('gigachat-2')).toMatchObject({
      provider: 'gigachat',
      jurisdiction: 'ru',
      available: false,
      unavailable_reason: 'Provider "gigachat" is not configured: set GIGACHAT_AUTH_KEY on the gateway.',
    });
    // the OpenAI-shaped list carries the same three fields
    const openAiShape = await request(t.url).get('/v1/models').set('api-key', apiKey);
    const listed = new Map<string, Record<string, unknown>>(
      (openAiShape.body.data as Record<string, unknown>[]).map((m) => [String(m.id), m]),
    );
    expect(listed.get('gemini-2.5-flash')).toMatchObject({
      owned_by: 'gemini',
      jurisdiction: 'foreign',
      available: false,
      unavailable_reason: expect.stringContaining('GEMINI_API_KEY'),
    });
    expect(listed.get('local')).toMatchObject({ jurisdiction: 'ru', available: true, unavailable_reason: null });
    expect(listed.get('yandex-embeddings')).toMatchObject({
      owned_by: 'yandex',
      jurisdiction: 'ru',
      available: false,
      unavailable_reason: expect.stringContaining('YANDEX_IAM_TOKEN') as unknown,
    });
    // the prices the suites compute with are the catalog's
    for (const [key, p] of Object.entries(PRICES) as [PricedModel, (typeof PRICES)[PricedModel]][]) {
      expect(byKey.get(key)?.pricing).toEqual({
        input_rub_per_1m: p.input,
        output_rub_per_1m: p.output,
        cache_read_rub_per_1m: p.cacheRead,
        cache_write_rub_per_1m: p.cacheWrite,
        cache_write_1h_rub_per_1m: ('cacheWrite1h' in p ? p.cacheWrite1h : null) ?? null,
        image_rub: p.image,
        request_rub: null,
      });
    }
  });

  it('402 when the balance cannot cover even the least output; balance unchanged and nothing sent', async () => {
    const tiny = (await admin.teamWithKey(0.001, 'tiny')).apiKey;
    const tinyWallet = await new Wallet(t.url, tiny).snapshot();
    // without max_tokens the output is capped to the balance, but 16 tokens (16 × 60 µRUB) and the
    // prompt do not fit in 0.001 RUB
    const refused = await chat({ prompt: 'Write a novel', model: 'gpt-4o-mini', user_id: 'u' }, tiny);
    expectError(refused, 402, 'insufficient_quota', null);
    expect(refused.body.error.message).toMatch(/requires at least [\d.]+ RUB/);
    expect(openai.requests).toHaveLength(0);
    await tinyWallet.expectUntouched();

    const poor = (await admin.teamWithKey(0.01, 'poor')).apiKey;
    const poorWallet = await new Wallet(t.url, poor).snapshot();
    // the full output (16 384 × 60 µRUB ≈ 0.98 RUB) does not fit in 0.01 RUB: capped, not refused
    openai.enqueue({ text: 'Once', finish: 'length', usage: { input: 12, output: 2 } });
    const capped = await chat({ prompt: 'Write a novel', model: 'gpt-4o-mini', user_id: 'u' }, poor);
    expect(capped.status).toBe(200);
    const cap = Number(capped.headers['x-gateway-max-tokens-capped']);
    expect(cap).toBeGreaterThan(100);
    expect(cap).toBeLessThan(10_000 / 60);
    expect(openai.lastRequest?.body.max_tokens).toBe(cap);
    await poorWallet.expectCharged(expectedCost(PRICES['gpt-4o-mini'], { prompt: 12, completion: 2 }).total_cost_rub);

    // a small max_tokens is sent as given (no cap header)
    await poorWallet.snapshot();
    openai.enqueue({ text: 'Short.', usage: { input: 12, output: 2 } });
    const ok = await chat({ prompt: 'Write a novel', model: 'gpt-4o-mini', user_id: 'u', max_tokens: 50 }, poor);
    expect(ok.status).toBe(200);
    expect(ok.headers['x-gateway-max-tokens-capped']).toBeUndefined();
    expect(openai.lastRequest?.body.max_tokens).toBe(50);
    await poorWallet.expectCharged(expectedCost(PRICES['gpt-4o-mini'], { prompt: 12, completion: 2 }).total_cost_rub);
  });

  it('the local model answers offline and is billed with the gateway tokenizer counts', async () => {
    const messages = [
      { role: 'user' as const, content: 'Paris is the capital of France. Berlin is the capital of Germany.' },
      { role: 'assistant' as const, content: 'Noted.' },
    ];
    const res = await chat({ prompt: 'What is the capital of Germany?', model: 'local', user_id: 'u', messages });
    expect(res.status).toBe(200);
    expect(res.body.response.text).toContain('Berlin');
    expect(res.body.usage.prompt_tokens).toBe(
      gatewayPromptTokens([...messages, { role: 'user', content: 'What is the capital of Germany?' }]),
    );
    const cost = expectedCost(PRICES.local, {
      prompt: res.body.usage.prompt_tokens,
      completion: res.body.usage.completion_tokens,
    });
    expect(res.body.cost).toEqual(cost);
    expect(res.body.usage.cache_read_tokens).toBeNull();
    await wallet.expectCharged(cost.total_cost_rub, { model: 'local' });
  });

  it('stream: true → SSE events reasoning*, delta*, done (full response object); billed exactly', async () => {
    anthropic.enqueue({
      reasoning: 'Think about colours.',
      text: 'The sky is blue.',
      chunkSize: 5,
      usage: { input: 40, output: 25, cacheRead: 8 },
    });
    const res = await postSse(
      `${t.url}/api/v1/chat`,
      { 'api-key': apiKey },
      { prompt: 'Sky colour?', model: 'claude-sonnet-4', user_id: 'u', stream: true },
    );
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^text\/event-stream/);
    const names = res.messages.map((m) => m.event);
    expect(new Set(names)).toEqual(new Set(['reasoning', 'delta', 'done']));
    expect(names.lastIndexOf('reasoning')).toBeLessThan(names.indexOf('delta'));
    expect(names[names.length - 1]).toBe('done');
    expect(names.filter((n) => n === 'done')).toHaveLength(1);
    const payloads = res.messages.map((m) => obj(JSON.parse(m.data)));
    const reasoning = payloads
      .filter((_, i) => names[i] === 'reasoning')
      .map((p) => String(p.reasoning))
      .join('');
    const text = payloads
      .filter((_, i) => names[i] === 'delta')
      .map((p) => String(p.text))
      .join('');
    expect(reasoning).toBe('Think about colours.');
    expect(text).toBe('The sky is blue.');
    expect(res.messages.filter((m) => m.event === 'delta').length).toBeGreaterThan(1);
    const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 40, completion: 25, cacheRead: 8 });
    expect(payloads[payloads.length - 1]).toEqual({
      response: { text: 'The sky is blue.', reasoning: 'Think about colours.' },
      usage: {
        prompt_tokens: 40,
        completion_tokens: 25,
        total_tokens: 65,
        cache_read_tokens: 8,
        cache_write_tokens: 0,
      },
      cost,
      model: { model: 'claude-sonnet-4', context_window: 200000, supports_images: true },
      has_reasoning: true,
    });
    expect(anthropic.lastRequest?.body.stream).toBe(true);
    await wallet.expectCharged(cost.total_cost_rub, { endpoint: '/api/v1/chat' });
  });

  it('stream: an error before the first byte is a plain JSON error (not SSE), nothing charged', async () => {
    const res = await request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({ prompt: 'x', model: 'gemini-2.5-flash', user_id: 'u', stream: true });
    expectError(res, 503, 'service_unavailable', null);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    await wallet.expectUntouched();
  });

  it('authentication: missing key → 401, nothing sent', async () => {
    const res = await request(t.url).post('/api/v1/chat').send({ prompt: 'x', model: 'gpt-4o-mini', user_id: 'u' });
    expectError(res, 401, 'authentication_error', null);
    expect(openai.requests).toHaveLength(0);
  });
});
