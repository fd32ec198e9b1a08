/**
 * No request member is silently dropped on the OpenAI-compatible endpoints: a top-level member
 * the request schema does not declare is a 400 `unknown_parameter` naming it, before any upstream
 * call (the same body without it is answered). The chat members OpenAI's SDKs may send are
 * declared and each is forwarded, translated or refused with a 400 naming it.
 */
import request from 'supertest';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';

type Json = Record<string, unknown>;

describe(`unknown request members on /v1 (${backendKind()})`, () => {
  let openai: FakeOpenAI;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    t = await createTestApp({
      env: { ...providerEnv({ openai }), OPENAI_MAX_RETRIES: '0' },
    });
    admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(100));
  });
  afterEach(() => openai.reset());
  afterAll(async () => {
    await t?.close();
    await openai?.close();
  });

  const post = (path: string, body: Json) =>
    request(t.url).post(path).set('Authorization', `Bearer ${apiKey}`).send(body);

  const endpoints: [string, Json][] = [
    ['/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there' }] }],
    ['/v1/responses', { model: 'gpt-4o-mini', input: 'Hello there' }],
    ['/v1/embeddings', { model: 'text-embedding-3-small', input: 'Hello there' }],
    ['/v1/images/generations', { model: 'gpt-image-1', prompt: 'a lighthouse', size: '1024x1024', quality: 'low' }],
  ];

  it.each(endpoints)(
    '%s: an undeclared member → 400 naming it, nothing sent upstream or charged',
    async (path, body) => {
      const before = await admin.balance(apiKey);
      const res = await post(path, { ...body, temprature: 0.2 });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'unknown_parameter',
        param: 'temprature',
      });
      expect(res.body.error.message).toContain('temprature');
      expect(openai.requests).toHaveLength(0);
      expect(await admin.balance(apiKey)).toBe(before);

      // the same body without it is answered by the upstream
      const ok = await post(path, body);
      expect(ok.status).toBe(200);
      expect(openai.requests).toHaveLength(1);
    },
  );

  it('a declared member is still validated, and an undeclared one is named even when others are valid', async () => {
    const res = await post('/v1/embeddings', {
      model: 'text-embedding-3-small',
      input: 'x',
      encoding_format: 'float',
      extra_body: { a: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'unknown_parameter', param: 'extra_body' });
    expect(openai.requests).toHaveLength(0);
  });

  it('chat: safety_identifier is sent upstream as user; the caching hints and modalities ["text"] are accepted', async () => {
    const res = await post('/v1/chat/completions', {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello there' }],
      safety_identifier: 'end-user-7',
      prompt_cache_key: 'cache-1',
      prompt_cache_retention: '24h',
      modalities: ['text'],
      audio: null,
      web_search_options: null,
    });
    expect(res.status).toBe(200);
    expect(openai.lastRequest?.body).toMatchObject({ user: 'end-user-7' });
  });

  it('responses: prompt_cache_retention is accepted as a caching hint, a value outside its enum is a 400 naming it', async () => {
    const ok = await post('/v1/responses', {
      model: 'gpt-4o-mini',
      input: 'Hello there',
      prompt_cache_key: 'cache-1',
      prompt_cache_retention: 'in-memory',
    });
    expect(ok.status).toBe(200);
    openai.reset();
    const bad = await post('/v1/responses', {
      model: 'gpt-4o-mini',
      input: 'Hello there',
      prompt_cache_retention: 'forever',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', param: 'prompt_cache_retention' });
    expect(openai.requests).toHaveLength(0);
  });

  it.each([
    ['modalities', ['text', 'audio']],
    ['audio', { voice: 'alloy', format: 'wav' }],
    ['web_search_options', {}],
  ])('chat: %s asking for an output the gateway cannot produce → 400 naming it, before any call', async (param, v) => {
    const res = await post('/v1/chat/completions', {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hello there' }],
      [param]: v,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'unsupported_parameter',
      param,
    });
    expect(openai.requests).toHaveLength(0);
  });
});
