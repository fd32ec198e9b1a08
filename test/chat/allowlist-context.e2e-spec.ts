/**
 * A key's allowed_models covers every model a request uses, directly or through its context: the
 * embedding model of a knowledge base (vector-store search, knowledge-base search, RAG chat), the
 * rerank engine of a RAG chat, and the model of /v1/messages/count_tokens. A request using a model
 * outside the list is refused with 403 model_not_allowed before any upstream call or charge.
 */
import request from 'supertest';
import { FakeAnthropic } from '../fakes';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { AdminClient } from '../support/admin-client';
import { backendKind } from '../support/test-env';
import { charges, providerEnv, UPSTREAM_KEYS } from './chat-helpers';

const CHAT = 'claude-sonnet-4';

describe(`allowed_models over a request's context (${backendKind()})`, () => {
  let t: TestApp;
  let anthropic: FakeAnthropic;
  let admin: AdminClient;
  let teamId: string;
  let fullKey: string;
  let storeId: string;
  let embeddingModel: string;

  const keyFor = async (models: string[]): Promise<string> => {
    const r = await request(t.url)
      .post(`/api/v1/admin/teams/${teamId}/api-keys`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ name: models.join('+'), allowed_models: models });
    expect(r.status).toBe(201);
    return r.body.api_key as string;
  };

  beforeAll(async () => {
    anthropic = await FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic });
    // no OpenAI key: knowledge bases and rerank use the local embedders
    t = await createTestApp({ env: { ...providerEnv({ anthropic }), INGEST_POLL_MS: '50' } });
    admin = new AdminClient(t.url);
    ({ apiKey: fullKey, teamId } = await admin.teamWithKey(100, 'allowlist'));
    const kb = await request(t.url)
      .post('/api/v1/knowledge-bases')
      .set('api-key', fullKey)
      .send({ name: 'handbook', embedding_model: 'local-embedding-large' });
    expect(kb.status).toBe(201);
    storeId = kb.body.id;
    embeddingModel = kb.body.embedding_model;
    expect(embeddingModel).toBe('local-embedding-large');
    const doc = await request(t.url)
      .post(`/api/v1/knowledge-bases/${storeId}/documents`)
      .set('api-key', fullKey)
      .send({ name: 'handbook', text: 'Handbook.\n\nThe launch codename is BLUE HERON.\n\nOffices open at nine.' });
    expect(doc.status).toBe(202);
    for (let i = 0; i < 200; i++) {
      const got = await request(t.url).get(`/api/v1/knowledge-bases/${storeId}`).set('api-key', fullKey);
      if (got.body.status === 'completed' && got.body.document_count === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 120_000);
  afterEach(() => anthropic.reset());
  afterAll(async () => {
    await t?.close();
    await anthropic?.close();
  });

  const chargedCount = async () => (await charges(t.url, fullKey)).length;
  const refused = (res: request.Response, model: string) => {
    expect(res.status).toBe(403);
    // the OpenAI-shaped families carry the code; Anthropic's shape has the type only
    if (res.body.type === 'error') expect(res.body.error.type).toBe('permission_error');
    else expect(res.body.error.code).toBe('model_not_allowed');
    expect(res.body.error.message).toContain(`'${model}'`);
  };

  it("searches of a knowledge base built with a model outside the list are refused before the query embedding's charge", async () => {
    const chatOnly = await keyFor([CHAT]);
    const before = await chargedCount();
    refused(
      await request(t.url)
        .post(`/api/v1/knowledge-bases/${storeId}/search`)
        .set('api-key', chatOnly)
        .send({ query: 'launch codename' }),
      embeddingModel,
    );
    refused(
      await request(t.url)
        .post(`/v1/vector_stores/${storeId}/search`)
        .set('authorization', `Bearer ${chatOnly}`)
        .send({ query: 'launch codename' }),
      embeddingModel,
    );
    expect(await chargedCount()).toBe(before);
    // listed: answered
    const withStore = await keyFor([embeddingModel]);
    const ok = await request(t.url)
      .post(`/api/v1/knowledge-bases/${storeId}/search`)
      .set('api-key', withStore)
      .send({ query: 'launch codename' });
    expect(ok.status).toBe(200);
  });

  it('a RAG chat needs the chat model, the knowledge base embedder and the rerank engine in the list; refused before any upstream call or charge', async () => {
    const chat = (key: string) =>
      request(t.url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({
          model: CHAT,
          max_tokens: 50,
          knowledge_base_id: storeId,
          messages: [{ role: 'user', content: 'What is the launch codename?' }],
        });
    const before = await chargedCount();
    refused(await chat(await keyFor([CHAT])), embeddingModel);
    // the store's embedder is listed but not the rerank engine (the small local embedder)
    refused(await chat(await keyFor([CHAT, embeddingModel])), 'local-embedding-small');
    expect(anthropic.requests).toHaveLength(0);
    expect(await chargedCount()).toBe(before);

    const ok = await chat(await keyFor([CHAT, embeddingModel, 'small']));
    expect(ok.status).toBe(200);
    expect(anthropic.requestsTo('/v1/messages')).toHaveLength(1);
  });

  it('/v1/messages/count_tokens is refused for a model outside the list, before the upstream counts', async () => {
    const other = await keyFor([embeddingModel]);
    const res = await request(t.url)
      .post('/v1/messages/count_tokens')
      .set('x-api-key', other)
      .set('anthropic-version', '2023-06-01')
      .send({ model: CHAT, messages: [{ role: 'user', content: 'Hello' }] });
    refused(res, CHAT);
    expect(res.body.type).toBe('error');
    expect(anthropic.requests).toHaveLength(0);
    const allowed = await request(t.url)
      .post('/v1/messages/count_tokens')
      .set('x-api-key', await keyFor([CHAT]))
      .set('anthropic-version', '2023-06-01')
      .send({ model: CHAT, messages: [{ role: 'user', content: 'Hello' }] });
    expect(allowed.status).toBe(200);
    expect(allowed.body.input_tokens).toBeGreaterThan(0);
  });
});
