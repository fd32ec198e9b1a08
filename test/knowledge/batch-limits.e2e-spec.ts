/**
 * A file batch is all or nothing: limits and every file are checked before anything is attached, so
 * a refused batch leaves the store as it was and charges nothing (a batch of 101 files used to attach
 * and ingest — and bill — the first 100, then answer 409 too_many_documents).
 */
import request from 'supertest';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

describe(`file batches: a refused batch changes nothing and costs nothing (${backendKind()})`, () => {
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  const auth = () => ({ authorization: `Bearer ${apiKey}` });

  beforeAll(async () => {
    t = await createTestApp({ env: { INGEST_POLL_MS: '50' } });
    admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(100));
  });
  afterAll(async () => {
    await t?.close();
  });

  async function upload(n: number, content = (i: number) => `Document ${i}: the office opens at ${i % 12} am.`) {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await request(t.url)
        .post('/v1/files')
        .set(auth())
        .field('purpose', 'assistants')
        .attach('file', Buffer.from(content(i)), `doc-${i}.txt`);
      expect(res.status).toBe(200);
      ids.push(res.body.id);
    }
    return ids;
  }
  async function store(): Promise<string> {
    const vs = await request(t.url).post('/v1/vector_stores').set(auth()).send({ name: 'batch' });
    expect(vs.status).toBe(200);
    return vs.body.id;
  }
  async function files(vs: string): Promise<string[]> {
    const res = await request(t.url).get(`/v1/vector_stores/${vs}/files?limit=100`).set(auth());
    expect(res.status).toBe(200);
    return res.body.data.map((f: { id: string }) => f.id);
  }
  const settle = () => new Promise((r) => setTimeout(r, 1500));
  /** Until the store has nothing left to ingest (its charges are then all made). */
  async function idle(vs: string): Promise<void> {
    for (let i = 0; i < 600; i++) {
      const got = await request(t.url).get(`/v1/vector_stores/${vs}`).set(auth());
      if (got.body.file_counts.in_progress === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${vs} still ingesting`);
  }

  it('101 files into an empty store → 409 too_many_documents, nothing attached, nothing charged', async () => {
    const ids = await upload(101);
    const vs = await store();
    const before = await admin.balance(apiKey);
    const res = await request(t.url).post(`/v1/vector_stores/${vs}/file_batches`).set(auth()).send({ file_ids: ids });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'too_many_documents', param: 'file_ids' });
    expect(res.body.error.message).toMatch(/has 0 and the batch adds 101/);
    await settle();
    expect(await files(vs)).toEqual([]);
    const got = await request(t.url).get(`/v1/vector_stores/${vs}`).set(auth());
    expect(got.body.file_counts.total).toBe(0);
    expect(await admin.balance(apiKey)).toBe(before);
  }, 60_000);

  it('a batch that fits with what the store holds is attached whole; one that does not is refused whole', async () => {
    const vs = await store();
    const first = await upload(60);
    const start = await admin.balance(apiKey);
    const ok = await request(t.url).post(`/v1/vector_stores/${vs}/file_batches`).set(auth()).send({ file_ids: first });
    expect(ok.status).toBe(200);
    expect(ok.body.file_counts.total).toBe(60);
    await idle(vs);
    // an accepted batch is ingested and charged (so the unchanged balances above mean something)
    const charged = await admin.balance(apiKey);
    expect(charged).toBeLessThan(start);
    // 60 held; 30 of the next batch are already attached (they do not count again), 41 are new: 101
    const more = await upload(41);
    const res = await request(t.url)
      .post(`/v1/vector_stores/${vs}/file_batches`)
      .set(auth())
      .send({ files: [...first.slice(0, 30), ...more].map((file_id) => ({ file_id })) });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'too_many_documents', param: 'files' });
    expect(res.body.error.message).toMatch(/has 60 and the batch adds 41/);
    expect((await files(vs)).sort()).toEqual([...first].sort());
    await settle();
    expect(await admin.balance(apiKey)).toBe(charged);
    // 40 new fit exactly
    const fits = await request(t.url)
      .post(`/v1/vector_stores/${vs}/file_batches`)
      .set(auth())
      .send({ file_ids: more.slice(0, 40) });
    expect(fits.status).toBe(200);
    expect(fits.body.file_counts.total).toBe(40);
    await idle(vs);
  }, 90_000);

  it('a batch with one file that cannot be ingested → 400 before any file is attached, nothing charged', async () => {
    const vs = await store();
    const good = await upload(5);
    const [bad] = await upload(1, () => '\u007fELF\u0000\u0001\u0002\u0003\u0000\u0000');
    const before = await admin.balance(apiKey);
    const res = await request(t.url)
      .post(`/v1/vector_stores/${vs}/file_batches`)
      .set(auth())
      .send({ file_ids: [...good, bad] });
    expect(res.status).toBe(400);
    await settle();
    expect(await files(vs)).toEqual([]);
    expect(await admin.balance(apiKey)).toBe(before);
  }, 60_000);
});
