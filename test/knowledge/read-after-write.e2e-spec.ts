/**
 * A write that reads its row back must answer 404 when a concurrent request deleted the row in
 * between, not a 500 from dereferencing the missing row: `POST /v1/vector_stores/{vs}/files/{file}`
 * (attribute update) with the file removed from the store after the update and before the read-back.
 * The interleaving is forced: the update's write is held until the DELETE has answered.
 */
import request from 'supertest';
import { KnowledgeRepository } from '@app/knowledge/knowledge.repository';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

describe(`read-after-write under a concurrent delete (${backendKind()})`, () => {
  let t: TestApp;
  let apiKey: string;
  const auth = () => ({ authorization: `Bearer ${apiKey}` });

  beforeAll(async () => {
    t = await createTestApp({ env: { INGEST_POLL_MS: '100' } });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100));
  });
  afterAll(async () => {
    await t?.close();
  });

  async function storeWithFile(): Promise<{ vs: string; file: string }> {
    const file = await request(t.url)
      .post('/v1/files')
      .set(auth())
      .field('purpose', 'assistants')
      .attach('file', Buffer.from('Opening hours are nine to six.'), 'hours.txt');
    expect(file.status).toBe(200);
    const vs = await request(t.url).post('/v1/vector_stores').set(auth()).send({ name: 'race' });
    expect(vs.status).toBe(200);
    const added = await request(t.url)
      .post(`/v1/vector_stores/${vs.body.id}/files`)
      .set(auth())
      .send({ file_id: file.body.id });
    expect(added.status).toBe(200);
    return { vs: vs.body.id, file: file.body.id };
  }

  it('attribute update whose file is removed before the read-back → 404 file_not_found, not 500', async () => {
    const { vs, file } = await storeWithFile();
    const repo = t.get(KnowledgeRepository);
    const original = repo.setDocumentAttributes.bind(repo);
    let written!: () => void;
    const wrote = new Promise<void>((r) => (written = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const spy = jest.spyOn(repo, 'setDocumentAttributes').mockImplementation(async (...args) => {
      await original(...args);
      written();
      await held;
    });
    try {
      const update = request(t.url)
        .post(`/v1/vector_stores/${vs}/files/${file}`)
        .set(auth())
        .send({ attributes: { lang: 'en' } })
        .then((r) => r);
      await wrote;
      const removed = await request(t.url).delete(`/v1/vector_stores/${vs}/files/${file}`).set(auth());
      expect(removed.status).toBe(200);
      release();
      const res = await update;
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', code: 'file_not_found', param: 'file_id' });
    } finally {
      release();
      spy.mockRestore();
    }
  });

  it('without a concurrent delete the update answers the file with its new attributes', async () => {
    const { vs, file } = await storeWithFile();
    const res = await request(t.url)
      .post(`/v1/vector_stores/${vs}/files/${file}`)
      .set(auth())
      .send({ attributes: { lang: 'de' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: file, attributes: { lang: 'de' } });
  });
});
