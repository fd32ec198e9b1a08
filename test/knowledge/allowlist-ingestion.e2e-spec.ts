/**
 * A key's allowed_models covers the embedding model of the knowledge bases it creates and fills:
 * creating a knowledge base (REST or vector store) whose embedding model — named or the default —
 * is outside the key's list, and adding documents to one (text, upload, link, vector-store file,
 * file batch, a retry or a link refresh, which all embed with the store's model) answer 403
 * model_not_allowed in the OpenAI error shape, before anything is stored, queued or charged.
 */
import request from 'supertest';
import { createTestApp, TestApp, ADMIN_TOKEN } from '../support/test-app';
import { AdminClient } from '../support/admin-client';
import { backendKind } from '../support/test-env';
import { charges } from '../chat/chat-helpers';

const LARGE = 'local-embedding-large';
const SMALL = 'local-embedding-small';

describe(`allowed_models over knowledge-base creation and ingestion (${backendKind()})`, () => {
  let t: TestApp;
  let teamId: string;
  let fullKey: string;
  let smallOnly: string;
  let largeOnly: string;
  let storeId: string;
  let fileId: string;
  let linkId: string;

  const keyFor = async (models: string[]): Promise<string> => {
    const r = await request(t.url)
      .post(`/api/v1/admin/teams/${teamId}/api-keys`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ name: models.join('+'), allowed_models: models });
    expect(r.status).toBe(201);
    return r.body.api_key as string;
  };

  const refused = (res: request.Response, model: string, param: string) => {
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'model_not_allowed', param });
    expect(res.body.error.message).toContain(`'${model}'`);
  };

  const waitFor = async (path: string, done: (body: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 400; i++) {
      const got = await request(t.url).get(path).set('api-key', fullKey);
      if (done(got.body)) return got.body;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting on ${path}`);
  };

  /** What a refused request must leave untouched: stores, the store's documents, files and charges. */
  const snapshot = async () => {
    const stores = await request(t.url).get('/api/v1/knowledge-bases?limit=100').set('api-key', fullKey);
    const docs = await request(t.url).get(`/api/v1/knowledge-bases/${storeId}/documents`).set('api-key', fullKey);
    const files = await request(t.url).get('/v1/files').set('authorization', `Bearer ${fullKey}`);
    return {
      stores: (stores.body.data as { id: string }[]).map((s) => s.id).sort(),
      docs: (docs.body.data as { id: string; status: string }[]).map((d) => `${d.id}:${d.status}`).sort(),
      files: (files.body.data as { id: string }[]).map((f) => f.id).sort(),
      charges: (await charges(t.url, fullKey)).length,
    };
  };

  beforeAll(async () => {
    // no OpenAI key: knowledge bases use the local embedders (the default is local-embedding-small)
    t = await createTestApp({ env: { INGEST_POLL_MS: '50' } });
    const admin = new AdminClient(t.url);
    ({ apiKey: fullKey, teamId } = await admin.teamWithKey(100, 'kb-allowlist'));
    smallOnly = await keyFor([SMALL]);
    largeOnly = await keyFor([LARGE]);
    const kb = await request(t.url)
      .post('/api/v1/knowledge-bases')
      .set('api-key', fullKey)
      .send({ name: 'large', embedding_model: LARGE });
    expect(kb.status).toBe(201);
    storeId = kb.body.id;
    const file = await request(t.url)
      .post('/v1/files')
      .set('authorization', `Bearer ${fullKey}`)
      .field('purpose', 'assistants')
      .attach('file', Buffer.from('Handbook.\n\nOffices open at nine.\n'), 'handbook.txt');
    expect(file.status).toBe(200);
    fileId = file.body.id;
    // a link the SSRF guard refuses: a failed document that can be retried or refreshed
    const link = await request(t.url)
      .post(`/api/v1/knowledge-bases/${storeId}/links`)
      .set('api-key', fullKey)
      .send({ url: 'http://127.0.0.1:9/private' });
    expect(link.status).toBe(202);
    linkId = link.body.id;
    await waitFor(`/api/v1/knowledge-bases/${storeId}/documents/${linkId}`, (b) => b.status === 'failed');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('creating a knowledge base or vector store with an embedding model outside the list → 403, nothing created', async () => {
    const before = await snapshot();
    refused(
      await request(t.url)
        .post('/api/v1/knowledge-bases')
        .set('api-key', smallOnly)
        .send({ name: 'x', embedding_model: LARGE }),
      LARGE,
      'embedding_model',
    );
    // no model named: the default (local-embedding-small) is the one it would use
    refused(
      await request(t.url).post('/api/v1/knowledge-bases').set('api-key', largeOnly).send({ name: 'x' }),
      SMALL,
      'embedding_model',
    );
    refused(
      await request(t.url)
        .post('/v1/vector_stores')
        .set('authorization', `Bearer ${smallOnly}`)
        .send({ name: 'x', embedding_model: LARGE, file_ids: [fileId] }),
      LARGE,
      'embedding_model',
    );
    expect(await snapshot()).toEqual(before);

    // listed: created
    const ok = await request(t.url)
      .post('/v1/vector_stores')
      .set('authorization', `Bearer ${largeOnly}`)
      .send({ name: 'ok', embedding_model: LARGE });
    expect(ok.status).toBe(200);
  });

  it('adding documents to a knowledge base whose embedder is outside the list → 403 on every path, nothing stored, queued or charged', async () => {
    const before = await snapshot();
    const kb = `/api/v1/knowledge-bases/${storeId}`;
    refused(
      await request(t.url).post(`${kb}/documents`).set('api-key', smallOnly).send({ name: 'n', text: 'Some text.' }),
      LARGE,
      'vector_store_id',
    );
    refused(
      await request(t.url)
        .post(`${kb}/documents`)
        .set('api-key', smallOnly)
        .attach('file', Buffer.from('Uploaded text.\n'), 'up.txt'),
      LARGE,
      'vector_store_id',
    );
    refused(
      await request(t.url).post(`${kb}/links`).set('api-key', smallOnly).send({ url: 'https://example.com/a' }),
      LARGE,
      'vector_store_id',
    );
    refused(
      await request(t.url).post(`${kb}/documents/${linkId}/retry`).set('api-key', smallOnly),
      LARGE,
      'vector_store_id',
    );
    refused(
      await request(t.url).post(`${kb}/links/${linkId}/refresh`).set('api-key', smallOnly),
      LARGE,
      'vector_store_id',
    );
    const vs = `/v1/vector_stores/${storeId}`;
    refused(
      await request(t.url).post(`${vs}/files`).set('authorization', `Bearer ${smallOnly}`).send({ file_id: fileId }),
      LARGE,
      'vector_store_id',
    );
    refused(
      await request(t.url)
        .post(`${vs}/file_batches`)
        .set('authorization', `Bearer ${smallOnly}`)
        .send({ file_ids: [fileId] }),
      LARGE,
      'vector_store_id',
    );
    expect(await snapshot()).toEqual(before);

    // listed: the same requests go through
    const text = await request(t.url)
      .post(`${kb}/documents`)
      .set('api-key', largeOnly)
      .send({ name: 'n', text: 'Some text.' });
    expect(text.status).toBe(202);
    const attached = await request(t.url)
      .post(`${vs}/files`)
      .set('authorization', `Bearer ${largeOnly}`)
      .send({ file_id: fileId });
    expect(attached.status).toBe(200);
    const retried = await request(t.url).post(`${kb}/documents/${linkId}/retry`).set('api-key', largeOnly);
    expect(retried.status).toBe(202);
  });
});
