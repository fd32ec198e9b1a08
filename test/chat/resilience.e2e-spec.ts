/**
 * Resilience against fault-injecting fakes: retries with backoff (slept through a
 * recording Sleeper, so nothing waits), Retry-After honoured up to RETRY_AFTER_MAX_MS, no retry of
 * a 400 or after the first chunk reached the client, fallbacks (catalog and request) served and
 * charged at the SERVED model's prices, holds that cover the dearest candidate, and weighted
 * deployments where a failing one cools down (shared through Redis on the Postgres + Redis pass:
 * a second replica skips it too). Each case also scrapes GET /metrics: one
 * gateway_upstream_errors_total per failed attempt, one gateway_upstream_retries_total per retry,
 * one gateway_fallbacks_total per move to the next model.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import request from 'supertest';
import { Sleeper } from '@app/common';
import { FakeAnthropic, FakeOpenAI, faults, times } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { RecordingSleeper } from '../support/recording-sleeper';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { Scrape } from '../observability/prometheus-text';
import {
  PRICES,
  Wallet,
  expectedCost,
  gatewayPromptTokens,
  gatewayTokens,
  obj,
  postSse,
  providerEnv,
} from './chat-helpers';

const POOL_B_KEY = 'sk-fake-pool-b';
const RETRY_BASE_DELAY_MS = 200;
const RETRY_MAX_DELAY_MS = 1_000;
const RETRY_AFTER_MAX_MS = 5_000;

describe(`resilience: retries, fallbacks, deployments (${backendKind()})`, () => {
  let openai: FakeOpenAI;
  let deepseek: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let poolA: FakeOpenAI;
  let poolB: FakeOpenAI;
  let sleeper: RecordingSleeper;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let wallet: Wallet;
  let client: OpenAI;
  let env: Record<string, string>;

  const rest = (body: Record<string, unknown>) =>
    request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({ prompt: 'Hello there', user_id: 'u', ...body });
  const completions = (body: Record<string, unknown>) =>
    request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ messages: [{ role: 'user', content: 'Hello there' }], ...body });
  const responses = (body: Record<string, unknown>) =>
    request(t.url)
      .post('/v1/responses')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ input: 'Hello there', ...body });

  /** What moved in GET /metrics since `before` (a label subset sums every matching series). */
  const metricsSince = async (before: Scrape) => {
    const after = await Scrape.of(t.url);
    const d = (name: string, labels: Record<string, string> = {}) =>
      after.value(name, labels) - before.value(name, labels);
    return {
      errors: (labels: Record<string, string> = {}) => d('gateway_upstream_errors_total', labels),
      retries: (labels: Record<string, string> = {}) => d('gateway_upstream_retries_total', labels),
      fallbacks: (labels: Record<string, string> = {}) => d('gateway_fallbacks_total', labels),
    };
  };

  beforeAll(async () => {
    [openai, deepseek, anthropic, poolA, poolB] = await Promise.all([
      FakeOpenAI.start({ apiKey: 'sk-fake-openai' }),
      FakeOpenAI.start({ apiKey: 'sk-fake-deepseek' }),
      FakeAnthropic.start({ apiKey: 'sk-ant-fake' }),
      FakeOpenAI.start({ apiKey: 'sk-fake-openai' }), // deployment "a": the provider's own key
      FakeOpenAI.start({ apiKey: POOL_B_KEY }), // deployment "b": its own key (api_key_env)
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'resilience-'));
    const modelsFile = join(dir, 'models.yaml');
    writeFileSync(
      modelsFile,
      [
        'models:',
        '  - key: gpt-4o',
        '    fallbacks: [claude-sonnet-4]',
        '  - key: pool-mini',
        '    provider: openai',
        '    upstream_model: gpt-4o-mini',
        '    kind: chat',
        '    context_window: 128000',
        '    max_output_tokens: 1024',
        '    pricing: { input_rub_per_1m: 15, output_rub_per_1m: 60 }',
        '    deployments:',
        `      - { id: a, base_url: "${poolA.baseUrl}/v1", weight: 1000 }`,
        '      - { id: b, base_url_env: POOL_B_BASE_URL, api_key_env: POOL_B_API_KEY, weight: 1 }',
      ].join('\n'),
    );
    sleeper = new RecordingSleeper();
    env = {
      ...providerEnv({ openai, deepseek, anthropic }),
      MODELS_FILE: modelsFile,
      POOL_B_BASE_URL: `${poolB.baseUrl}/v1`,
      POOL_B_API_KEY: POOL_B_KEY,
      RETRY_BASE_DELAY_MS: String(RETRY_BASE_DELAY_MS),
      RETRY_MAX_DELAY_MS: String(RETRY_MAX_DELAY_MS),
      RETRY_AFTER_MAX_MS: String(RETRY_AFTER_MAX_MS),
      DEPLOYMENT_COOLDOWN_SECONDS: '30',
    };
    t = await createTestApp({ env, overrides: [{ provide: Sleeper, useValue: sleeper }] });
    admin = new AdminClient(t.url);
  });

  beforeEach(async () => {
    apiKey = (await admin.teamWithKey(200)).apiKey;
    wallet = await new Wallet(t.url, apiKey).snapshot();
    client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 });
    sleeper.clear();
  });

  afterEach(() => {
    for (const f of [openai, deepseek, anthropic, poolA, poolB]) f.reset();
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([openai, deepseek, anthropic, poolA, poolB].map((f) => f?.close()));
  });

  describe('retries', () => {
    it('2 × 500 then success → one answer, one charge of tokens × price, two backoff waits within the jitter bounds', async () => {
      openai.enqueue(...times(2, { fault: faults.http(500) }), {
        text: 'Third time lucky',
        usage: { input: 10, output: 4 },
      });
      const before = await Scrape.of(t.url);
      const res = await completions({ model: 'gpt-4o-mini' });
      expect(res.status).toBe(200);
      expect(res.body.choices[0].message.content).toBe('Third time lucky');
      expect(res.body.model).toBe('gpt-4o-mini');
      expect(res.headers['x-gateway-model']).toBe('gpt-4o-mini');
      expect(openai.requests).toHaveLength(3);
      expect(sleeper.delays).toHaveLength(2);
      sleeper.delays.forEach((d, k) => {
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2 ** k));
      });
      const cost = expectedCost(PRICES['gpt-4o-mini'], { prompt: 10, completion: 4 });
      expect(res.body.cost.total_cost_rub).toBe(cost.total_cost_rub);
      await wallet.expectCharged(cost.total_cost_rub, { model: 'gpt-4o-mini', promptTokens: 10, completionTokens: 4 });
      // two failed attempts, two retries, counted once each (not again for the request)
      const m = await metricsSince(before);
      expect(m.errors({ provider: 'openai', model: 'gpt-4o-mini', kind: 'upstream' })).toBe(2);
      expect(m.errors()).toBe(2);
      expect(m.retries({ provider: 'openai', model: 'gpt-4o-mini' })).toBe(2);
      expect(m.retries()).toBe(2);
      expect(m.fallbacks()).toBe(0);
    });

    it('a connection reset before the response, and a stream that breaks before its first chunk, are retried', async () => {
      openai.enqueue({ fault: faults.reset() }, { text: 'after a reset', usage: { input: 7, output: 3 } });
      const res = await rest({ model: 'gpt-4o-mini' });
      expect(res.status).toBe(200);
      expect(res.body.response.text).toBe('after a reset');
      expect(res.headers['x-gateway-model']).toBe('gpt-4o-mini');
      expect(openai.requests).toHaveLength(2);

      openai.enqueue(
        { text: 'never seen', fault: faults.resetMidStream(0) },
        { text: 'streamed fine', usage: { input: 7, output: 2 } },
      );
      const s = await postSse(
        `${t.url}/api/v1/chat`,
        { 'api-key': apiKey },
        { prompt: 'x', model: 'gpt-4o-mini', user_id: 'u', stream: true },
      );
      expect(s.status).toBe(200);
      const names = s.messages.map((m) => m.event);
      expect(names).not.toContain('error');
      expect(names[names.length - 1]).toBe('done');
      expect(
        s.messages
          .filter((m) => m.event === 'delta')
          .map((m) => String(obj(JSON.parse(m.data)).text))
          .join(''),
      ).toBe('streamed fine');
      expect(openai.requests).toHaveLength(4);
      await wallet.expectChargedEach([
        expectedCost(PRICES['gpt-4o-mini'], { prompt: 7, completion: 3 }).total_cost_rub,
        expectedCost(PRICES['gpt-4o-mini'], { prompt: 7, completion: 2 }).total_cost_rub,
      ]);
    });

    it('Retry-After is honoured, capped at RETRY_AFTER_MAX_MS', async () => {
      openai.enqueue(
        { fault: faults.http(429, { retryAfter: 3 }) },
        { fault: faults.http(503, { retryAfter: 120 }) },
        { text: 'ok' },
      );
      const res = await completions({ model: 'gpt-4o-mini' });
      expect(res.status).toBe(200);
      expect(sleeper.delays).toEqual([3_000, RETRY_AFTER_MAX_MS]);
      expect(openai.requests).toHaveLength(3);
    });

    it('after <PROVIDER>_MAX_RETRIES (default 2) the error reaches the client; nothing charged', async () => {
      openai.enqueue(...times(3, { fault: faults.http(503) }), { text: 'too late' });
      const before = await Scrape.of(t.url);
      const res = await completions({ model: 'gpt-4o-mini' });
      expect(res.status).toBe(502);
      const m = await metricsSince(before);
      expect(m.errors({ provider: 'openai', model: 'gpt-4o-mini' })).toBe(3);
      expect(m.retries({ provider: 'openai', model: 'gpt-4o-mini' })).toBe(2);
      expect(openai.requests).toHaveLength(3);
      expect(sleeper.delays).toHaveLength(2);
      expect(openai.pending).toBe(1);
      await wallet.expectUntouched();
    });

    it('a 400 from the upstream is not retried and not handed to a fallback', async () => {
      openai.enqueue({ fault: faults.http(400, { message: 'Invalid temperature.' }) });
      const before = await Scrape.of(t.url);
      const res = await completions({ model: 'gpt-4o-mini', fallbacks: ['deepseek-chat'] });
      expect(res.status).toBe(400);
      const m = await metricsSince(before);
      expect(m.errors({ provider: 'openai', model: 'gpt-4o-mini', kind: 'invalid_request' })).toBe(1);
      expect([m.errors(), m.retries(), m.fallbacks()]).toEqual([1, 0, 0]);
      expect(res.body.error.message).toContain('Invalid temperature.');
      expect(openai.requests).toHaveLength(1);
      expect(deepseek.requests).toHaveLength(0);
      expect(sleeper.delays).toEqual([]);
      await wallet.expectUntouched();
    });
  });

  describe('retries beyond chat: embeddings batches and image generations', () => {
    it('/v1/embeddings: 2 × 503 then the vectors, one charge; /v1/images/generations: a reset then the image, one charge', async () => {
      openai.enqueue(...times(2, { route: 'embeddings', fault: faults.http(503) }));
      const before = await Scrape.of(t.url);
      const emb = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['alpha beta', 'gamma'] });
      expect(emb.data).toHaveLength(2);
      expect(openai.requestsTo('/v1/embeddings')).toHaveLength(3);
      expect(sleeper.delays).toHaveLength(2);
      const m = await metricsSince(before);
      expect(m.errors({ provider: 'openai', model: 'text-embedding-3-small' })).toBe(2);
      expect(m.retries({ provider: 'openai', model: 'text-embedding-3-small' })).toBe(2);
      const mid = await Scrape.of(t.url);

      openai.enqueue({ route: 'images', fault: faults.reset() });
      const img = await request(t.url)
        .post('/v1/images/generations')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ model: 'gpt-image-1', prompt: 'a fox', response_format: 'b64_json' });
      expect(img.status).toBe(200);
      expect(img.body.data).toHaveLength(1);
      expect(openai.requestsTo('/v1/images/generations')).toHaveLength(2);
      expect(sleeper.delays).toHaveLength(3);
      const mi = await metricsSince(mid);
      expect(mi.errors({ provider: 'openai', model: 'gpt-image-1', kind: 'upstream' })).toBe(1);
      expect(mi.retries({ provider: 'openai', model: 'gpt-image-1' })).toBe(1);
      const ledger = (await request(t.url).get('/api/v1/usage').set('api-key', apiKey)).body.data as {
        kind: string;
        endpoint: string;
      }[];
      expect(ledger.filter((e) => e.kind === 'charge').map((e) => e.endpoint)).toEqual([
        '/v1/images/generations',
        '/v1/embeddings',
      ]);
    });
  });

  describe('fallbacks', () => {
    it('/v1/chat/completions: a retryable failure (after the retries) → served by the request fallback at ITS price', async () => {
      openai.enqueue(...times(3, { fault: faults.http(500) }));
      deepseek.enqueue({ text: 'DeepSeek here', usage: { input: 12, output: 5 } });
      const before = await Scrape.of(t.url);
      const res = await completions({ model: 'gpt-4o-mini', fallbacks: ['deepseek-chat'] });
      expect(res.status).toBe(200);
      expect(res.body.model).toBe('deepseek-chat');
      expect(res.headers['x-gateway-model']).toBe('deepseek-chat');
      expect(res.body.choices[0].message.content).toBe('DeepSeek here');
      expect(openai.requests).toHaveLength(3);
      expect(deepseek.lastRequest?.body).toMatchObject({ model: 'deepseek-chat' });
      const cost = expectedCost(PRICES['deepseek-chat'], { prompt: 12, completion: 5 });
      expect(res.body.cost.total_cost_rub).toBe(cost.total_cost_rub);
      await wallet.expectCharged(cost.total_cost_rub, {
        model: 'deepseek-chat',
        promptTokens: 12,
        completionTokens: 5,
      });
      const m = await metricsSince(before);
      expect(m.errors({ provider: 'openai', model: 'gpt-4o-mini' })).toBe(3);
      expect(m.errors({ model: 'deepseek-chat' })).toBe(0);
      expect(m.retries({ provider: 'openai', model: 'gpt-4o-mini' })).toBe(2);
      expect(m.fallbacks({ from: 'gpt-4o-mini', to: 'deepseek-chat' })).toBe(1);
      expect(m.fallbacks()).toBe(1);
    });

    it('/v1/responses: the request fallback serves, named in `model` and x-gateway-model (plain and streamed), charged at its price', async () => {
      openai.enqueue(...times(3, { fault: faults.http(500) }));
      deepseek.enqueue({ text: 'DeepSeek responds', usage: { input: 11, output: 3 } });
      const before = await Scrape.of(t.url);
      const res = await responses({ model: 'gpt-4o-mini', fallbacks: ['deepseek-chat'] });
      expect(res.status).toBe(200);
      expect(res.body.model).toBe('deepseek-chat');
      expect(res.headers['x-gateway-model']).toBe('deepseek-chat');
      expect(res.body.output[0].content[0].text).toBe('DeepSeek responds');
      const cost = expectedCost(PRICES['deepseek-chat'], { prompt: 11, completion: 3 });
      expect(res.body.cost.total_cost_rub).toBe(cost.total_cost_rub);
      await wallet.expectCharged(cost.total_cost_rub, {
        model: 'deepseek-chat',
        endpoint: '/v1/responses',
        promptTokens: 11,
        completionTokens: 3,
      });
      const m = await metricsSince(before);
      expect(m.fallbacks({ from: 'gpt-4o-mini', to: 'deepseek-chat' })).toBe(1);
      expect(m.retries({ model: 'gpt-4o-mini' })).toBe(2);
      await wallet.snapshot();

      openai.enqueue(...times(3, { fault: faults.http(503) }));
      deepseek.enqueue({ text: 'streamed response', usage: { input: 11, output: 2 } });
      const s = await postSse(
        `${t.url}/v1/responses`,
        { authorization: `Bearer ${apiKey}` },
        { model: 'gpt-4o-mini', input: 'Hello there', stream: true, fallbacks: ['deepseek-chat'] },
      );
      expect(s.status).toBe(200);
      expect(s.headers['x-gateway-model']).toBe('deepseek-chat');
      const events = s.messages.map((e) => ({ event: e.event, data: obj(JSON.parse(e.data)) }));
      expect(events[0].event).toBe('response.created');
      expect(obj(events[0].data.response).model).toBe('deepseek-chat');
      const done = events[events.length - 1];
      expect(done.event).toBe('response.completed');
      expect(obj(done.data.response).model).toBe('deepseek-chat');
      expect(
        events
          .filter((e) => e.event === 'response.output_text.delta')
          .map((e) => String(e.data.delta))
          .join(''),
      ).toBe('streamed response');
      await wallet.expectCharged(expectedCost(PRICES['deepseek-chat'], { prompt: 11, completion: 2 }).total_cost_rub, {
        model: 'deepseek-chat',
        endpoint: '/v1/responses',
      });
    });

    it('/api/v1/chat: the catalog fallback (MODELS_FILE gpt-4o → claude-sonnet-4) serves, named in model.model and the header', async () => {
      openai.enqueue(...times(3, { fault: faults.http(503) }));
      anthropic.enqueue({ text: 'Claude here', usage: { input: 20, output: 6 } });
      const res = await rest({ model: 'gpt-4o' });
      expect(res.status).toBe(200);
      expect(res.body.model.model).toBe('claude-sonnet-4');
      expect(res.headers['x-gateway-model']).toBe('claude-sonnet-4');
      expect(res.body.response.text).toBe('Claude here');
      const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 20, completion: 6 });
      expect(res.body.cost.total_cost_rub).toBe(cost.total_cost_rub);
      await wallet.expectCharged(cost.total_cost_rub, { model: 'claude-sonnet-4', endpoint: '/api/v1/chat' });
    });

    it('streaming through the SDK: a failure before the first chunk falls back; chunks and the header name the served model', async () => {
      openai.enqueue(...times(3, { fault: faults.http(502) }));
      deepseek.enqueue({ text: 'streamed by deepseek', usage: { input: 9, output: 3 } });
      const { data: stream, response } = await client.chat.completions
        .create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'x' }],
          stream: true,
          stream_options: { include_usage: true },
          fallbacks: ['deepseek-chat'],
        } as OpenAI.ChatCompletionCreateParamsStreaming)
        .withResponse();
      expect(response.headers.get('x-gateway-model')).toBe('deepseek-chat');
      let text = '';
      const models = new Set<string>();
      for await (const c of stream) {
        models.add(c.model);
        text += c.choices[0]?.delta.content ?? '';
      }
      expect(text).toBe('streamed by deepseek');
      expect([...models]).toEqual(['deepseek-chat']);
      await wallet.expectCharged(expectedCost(PRICES['deepseek-chat'], { prompt: 9, completion: 3 }).total_cost_rub, {
        model: 'deepseek-chat',
      });
    });

    it('an unavailable model (no credentials → 503) is skipped for the fallback; without one it stays 503', async () => {
      const res = await completions({ model: 'gemini-2.5-flash', fallbacks: ['gpt-4o-mini'] });
      expect(res.status).toBe(200);
      expect(res.body.model).toBe('gpt-4o-mini');
      expect(res.headers['x-gateway-model']).toBe('gpt-4o-mini');
      expect(openai.requests).toHaveLength(1);
      expect((await completions({ model: 'gemini-2.5-flash' })).status).toBe(503);
    });

    it('the hold covers the dearest candidate: a balance enough for the model alone is refused (402) with a dear fallback', async () => {
      const poor = (await admin.teamWithKey(1)).apiKey;
      const ask = (extra: Record<string, unknown>) =>
        request(t.url)
          .post('/v1/chat/completions')
          .set('authorization', `Bearer ${poor}`)
          .send({ model: 'gpt-4o-mini', max_tokens: 1000, messages: [{ role: 'user', content: 'hi' }], ...extra });
      expect((await ask({})).status).toBe(200);
      const refused = await ask({ fallbacks: ['claude-opus-4'] });
      expect(refused.status).toBe(402);
      expect(openai.requests).toHaveLength(1);
    });

    it('unknown or non-chat fallbacks in the request → 404 / 400 on `fallbacks`', async () => {
      const unknown = await completions({ model: 'gpt-4o-mini', fallbacks: ['no-such-model'] });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.param).toBe('fallbacks');
      const embedding = await rest({ model: 'gpt-4o-mini', fallbacks: ['text-embedding-3-small'] });
      expect(embedding.status).toBe(400);
      expect(embedding.body.error.param).toBe('fallbacks');
      expect(openai.requests).toHaveLength(0);
    });
  });

  describe('mid-stream failure with retries and fallbacks enabled', () => {
    it('REST and OpenAI streams cut after N chunks: never retried, no fallback, the delivered tokens billed, an in-band error', async () => {
      // REST: `event: error`
      openai.enqueue(
        { text: 'abcdefghijkl', chunkSize: 2, fault: faults.resetMidStream(4) },
        { text: 'must not be used' },
      );
      const before = await Scrape.of(t.url);
      const r = await postSse(
        `${t.url}/api/v1/chat`,
        { 'api-key': apiKey },
        { prompt: 'x', model: 'gpt-4o-mini', user_id: 'u', stream: true, fallbacks: ['deepseek-chat'] },
      );
      expect(r.status).toBe(200);
      const names = r.messages.map((m) => m.event);
      expect(names[names.length - 1]).toBe('error');
      expect(names).not.toContain('done');
      const deliveredRest = r.messages
        .filter((m) => m.event === 'delta')
        .map((m) => String(obj(JSON.parse(m.data)).text))
        .join('');
      expect(deliveredRest).toBe('abcdef');
      expect(openai.requests).toHaveLength(1);
      expect(deepseek.requests).toHaveLength(0);
      // the failed stream is one upstream error; nothing retried, no fallback
      const m = await metricsSince(before);
      expect([m.errors({ provider: 'openai', model: 'gpt-4o-mini' }), m.retries(), m.fallbacks()]).toEqual([1, 0, 0]);
      const promptTokens = gatewayPromptTokens([{ role: 'user', content: 'x' }]);
      const restCost = expectedCost(PRICES['gpt-4o-mini'], {
        prompt: promptTokens,
        completion: gatewayTokens.count(deliveredRest),
      });
      await wallet.expectCharged(restCost.total_cost_rub, {
        model: 'gpt-4o-mini',
        completionTokens: gatewayTokens.count(deliveredRest),
      });
      await wallet.snapshot();

      // OpenAI format: a `data: {"error":…}` line, no [DONE]
      openai.reset();
      openai.enqueue(
        { text: 'mnopqrstuvwx', chunkSize: 2, fault: faults.streamError({ afterChunks: 3 }) },
        { text: 'must not be used' },
      );
      const o = await postSse(
        `${t.url}/v1/chat/completions`,
        { authorization: `Bearer ${apiKey}` },
        {
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'x' }],
          stream: true,
          fallbacks: ['deepseek-chat'],
        },
      );
      expect(o.status).toBe(200);
      const last = o.messages[o.messages.length - 1];
      expect(last.data).not.toBe('[DONE]');
      expect(obj(JSON.parse(last.data)).error).toMatchObject({ type: 'upstream_error' });
      const deliveredOpenAi = o.messages
        .slice(0, -1)
        .map((m) => JSON.parse(m.data) as { choices: { delta: { content?: string } }[] })
        .map((c) => c.choices[0]?.delta.content ?? '')
        .join('');
      expect(deliveredOpenAi).toBe('mnop');
      expect(openai.requests).toHaveLength(1);
      expect(deepseek.requests).toHaveLength(0);
      expect(sleeper.delays).toEqual([]);
      const oCost = expectedCost(PRICES['gpt-4o-mini'], {
        prompt: promptTokens,
        completion: gatewayTokens.count(deliveredOpenAi),
      });
      await wallet.expectCharged(oCost.total_cost_rub, {
        model: 'gpt-4o-mini',
        completionTokens: gatewayTokens.count(deliveredOpenAi),
      });
    });
  });

  describe('deployments', () => {
    it('weighted deployments: a failing one cools down and later requests go to the other', async () => {
      poolA.setDefault({ fault: faults.http(503) });
      // deployment a weighs 1000× b: without the cooldown nearly every request would hit it
      const first = await completions({ model: 'pool-mini' });
      expect(first.status).toBe(200);
      expect(first.body.model).toBe('pool-mini');
      expect(poolA.requests).toHaveLength(1);
      expect(poolB.requests).toHaveLength(1);
      expect(poolB.lastRequest?.headers.authorization).toBe(`Bearer ${POOL_B_KEY}`);
      expect(poolB.lastRequest?.body).toMatchObject({ model: 'gpt-4o-mini' });
      for (let i = 0; i < 5; i++) expect((await completions({ model: 'pool-mini' })).status).toBe(200);
      expect(poolA.requests).toHaveLength(1);
      expect(poolB.requests).toHaveLength(6);
      expect(openai.requests).toHaveLength(0);

      if (backendKind() === 'postgres') {
        // the cooldown lives in Redis: another replica on the same Redis skips deployment a too
        const replica = await createTestApp({
          env,
          shareBackendWith: t,
          overrides: [{ provide: Sleeper, useValue: new RecordingSleeper() }],
        });
        try {
          for (let i = 0; i < 3; i++) {
            const res = await request(replica.url)
              .post('/v1/chat/completions')
              .set('authorization', `Bearer ${apiKey}`)
              .send({ model: 'pool-mini', messages: [{ role: 'user', content: 'hi' }] });
            expect(res.status).toBe(200);
          }
          expect(poolA.requests).toHaveLength(1);
          expect(poolB.requests).toHaveLength(9);
        } finally {
          await replica.close();
        }
      }
    });
  });
});
