/**
 * Chat controls (frequency_penalty, presence_penalty, logit_bias, logprobs / top_logprobs,
 * reasoning_effort, service_tier, prediction, verbosity) on /v1/chat/completions and their
 * Responses names on /v1/responses: forwarded to the providers that take them, translated where
 * an equivalent exists (reasoning_effort → Claude's thinking budget, Gemini's thinkingConfig;
 * penalties → Gemini's generationConfig), and refused with a 400 naming the field for models
 * that cannot honour them — consistently on both endpoints, before any upstream call. Neutral
 * values (0 penalties, empty logit_bias, logprobs false, service_tier "auto") always pass.
 */
import request from 'supertest';
import { FakeAnthropic, FakeGemini, FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';
import { Conformance } from './openai-schema';

type Json = Record<string, unknown>;

describe(`chat controls (${backendKind()})`, () => {
  const spec = new Conformance();
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let gemini: FakeGemini;
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    spec.compile('CreateChatCompletionResponse', 'Response');
    [openai, anthropic, gemini] = await Promise.all([
      FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai }),
      FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic }),
      FakeGemini.start({ apiKey: UPSTREAM_KEYS.gemini }),
    ]);
    t = await createTestApp({
      env: {
        ...providerEnv({ openai, anthropic, gemini }),
        OPENAI_MAX_RETRIES: '0',
        ANTHROPIC_MAX_RETRIES: '0',
        GEMINI_MAX_RETRIES: '0',
      },
    });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100));
  });
  afterEach(() => {
    openai.reset();
    anthropic.reset();
    gemini.reset();
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]);
  });

  const chat = (body: Json) =>
    request(t.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${apiKey}`)
      .send({ messages: [{ role: 'user', content: 'Hello there' }], ...body });
  const responses = (body: Json) =>
    request(t.url)
      .post('/v1/responses')
      .set('Authorization', `Bearer ${apiKey}`)
      .send({ input: 'Hello there', ...body });
  const upstreamCalls = () => openai.requests.length + anthropic.requests.length + gemini.requests.length;

  it('OpenAI models: the controls are forwarded as sent; the answer carries the upstream logprobs', async () => {
    const controls = {
      frequency_penalty: 0.5,
      presence_penalty: -0.25,
      logit_bias: { '50256': -100 },
      logprobs: true,
      top_logprobs: 2,
      service_tier: 'default',
      prediction: { type: 'content', content: 'Hello there, friend' },
    };
    const res = await chat({ model: 'gpt-4o-mini', ...controls });
    expect(res.status).toBe(200);
    expect(openai.lastRequest?.body).toMatchObject(controls);
    // the Responses names of the same controls reach the upstream the same way
    const r = await responses({ model: 'gpt-4o-mini', top_logprobs: 3, service_tier: 'flex' });
    expect(r.status).toBe(200);
    expect(openai.lastRequest?.body).toMatchObject({ logprobs: true, top_logprobs: 3, service_tier: 'flex' });
    expect(r.body.service_tier).toBe('flex');
  });

  it('logprobs: the upstream token log probabilities reach the answer (chat choice, Responses output_text)', async () => {
    const LOGPROBS = {
      content: [
        {
          token: 'Hi',
          logprob: -0.01,
          bytes: [72, 105],
          top_logprobs: [{ token: 'Hi', logprob: -0.01, bytes: [72, 105] }],
        },
      ],
      refusal: null,
    };
    openai.enqueue({ text: 'Hi', logprobs: LOGPROBS });
    const c = await chat({ model: 'gpt-4o-mini', logprobs: true, top_logprobs: 1 });
    expect(c.body.choices[0].logprobs).toEqual(LOGPROBS);
    expect(spec.check('chat with logprobs', 'CreateChatCompletionResponse', c.body)).toEqual([]);
    openai.enqueue({ text: 'Hi', logprobs: LOGPROBS });
    const r = await responses({ model: 'gpt-4o-mini', top_logprobs: 1 });
    expect(r.body.output[0].content[0].logprobs).toEqual(LOGPROBS.content);
    expect(spec.check('response with logprobs', 'Response', r.body)).toEqual([]);
  });

  it('reasoning_effort → Claude extended thinking (budget below max_tokens), on both endpoints', async () => {
    const c = await chat({ model: 'claude-sonnet-4', reasoning_effort: 'medium', max_tokens: 10_000 });
    expect(c.status).toBe(200);
    expect(anthropic.lastRequest?.body).toMatchObject({
      max_tokens: 10_000,
      thinking: { type: 'enabled', budget_tokens: 8192 },
    });
    const r = await responses({ model: 'claude-sonnet-4', reasoning: { effort: 'high' }, max_output_tokens: 5000 });
    expect(r.status).toBe(200);
    expect(anthropic.lastRequest?.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4999 } });
    expect(r.body.reasoning).toEqual({ effort: 'high', summary: null });
  });

  it('reasoning_effort → Gemini thinkingConfig; penalties → generationConfig', async () => {
    const c = await chat({
      model: 'gemini-2.5-flash',
      reasoning_effort: 'low',
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
    });
    expect(c.status).toBe(200);
    expect((gemini.lastRequest?.body as Json).generationConfig).toMatchObject({
      thinkingConfig: { thinkingBudget: 1024 },
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
    });
    const r = await responses({ model: 'gemini-2.5-flash', reasoning: { effort: 'minimal' } });
    expect(r.status).toBe(200);
    expect((gemini.lastRequest?.body as Json).generationConfig).toMatchObject({
      thinkingConfig: { thinkingBudget: 128 },
    });
  });

  it('models that cannot honour a control: 400 naming the field, the same on both endpoints, nothing sent', async () => {
    const cases: [string, Json, string][] = [
      ['chat', { model: 'local', presence_penalty: 0.5 }, 'presence_penalty'],
      ['chat', { model: 'local', reasoning_effort: 'low' }, 'reasoning_effort'],
      ['chat', { model: 'claude-sonnet-4', logit_bias: { '1': 5 } }, 'logit_bias'],
      ['chat', { model: 'claude-sonnet-4', logprobs: true }, 'logprobs'],
      ['chat', { model: 'gemini-2.5-flash', logprobs: true, top_logprobs: 1 }, 'logprobs'],
      ['chat', { model: 'gpt-4o-mini', reasoning_effort: 'high' }, 'reasoning_effort'],
      ['chat', { model: 'gpt-4o-mini', verbosity: 'low' }, 'verbosity'],
      ['chat', { model: 'gemini-2.5-flash', prediction: { type: 'content', content: 'x' } }, 'prediction'],
      ['chat', { model: 'claude-sonnet-4', service_tier: 'priority' }, 'service_tier'],
      ['chat', { model: 'claude-sonnet-4', reasoning_effort: 'low', temperature: 0.2 }, 'temperature'],
      ['chat', { model: 'claude-sonnet-4', reasoning_effort: 'low', max_tokens: 1000 }, 'reasoning_effort'],
      ['chat', { model: 'gpt-4o-mini', top_logprobs: 2 }, 'top_logprobs'],
      ['chat', { model: 'gpt-4o-mini', logit_bias: { hello: 1 } }, 'logit_bias'],
      ['chat', { model: 'gpt-4o-mini', reasoning_effort: 'extreme' }, 'reasoning_effort'],
      ['responses', { model: 'gpt-4o-mini', reasoning: { effort: 'low' } }, 'reasoning.effort'],
      ['responses', { model: 'local', reasoning: { effort: 'low' } }, 'reasoning.effort'],
      ['responses', { model: 'gemini-2.5-flash', text: { verbosity: 'low' } }, 'text.verbosity'],
      ['responses', { model: 'claude-sonnet-4', top_logprobs: 2 }, 'top_logprobs'],
      ['responses', { model: 'claude-sonnet-4', service_tier: 'priority' }, 'service_tier'],
      ['responses', { model: 'gemini-2.5-flash', reasoning: { effort: 'low', summary: 'auto' } }, 'reasoning.summary'],
    ];
    for (const [endpoint, body, param] of cases) {
      const res = await (endpoint === 'chat' ? chat(body) : responses(body));
      expect({ endpoint, body, status: res.status, param: res.body.error?.param }).toEqual({
        endpoint,
        body,
        status: 400,
        param,
      });
    }
    expect(upstreamCalls()).toBe(0);
  });

  it('neutral values ask for nothing and pass on every model', async () => {
    const neutral = {
      presence_penalty: 0,
      frequency_penalty: 0,
      logit_bias: {},
      logprobs: false,
      service_tier: 'auto',
    };
    const res = await chat({ model: 'local', ...neutral });
    expect(res.status).toBe(200);
    const r = await responses({ model: 'local', service_tier: 'auto', reasoning: { effort: null } });
    expect(r.status).toBe(200);
  });
});
