/**
 * Vector store `expires_after` ({anchor: "last_active_at", days}) is honoured: the store echoes it
 * with `expires_at`, use (search, adding files) moves last_active_at and so the expiry, and once
 * `days` pass without activity the store reads `status: "expired"` and refuses further use with
 * 400 vector_store_expired (it can still be read and deleted). A store without it leaves the
 * member out (OpenAI's schema has no null for it) and never expires.
 */
import request from 'supertest';
import { AdminClient } from '../support/admin-client';
import { ManualClock } from '../support/manual-clock';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

const DAY = 86_400_000;

describe(`vector store expires_after (${backendKind()})`, () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { INGEST_POLL_MS: '100' }, clock });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100));
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (path: string, body: object) =>
    request(t.url).post(path).set('Authorization', `Bearer ${apiKey}`).send(body);
  const get = (path: string) => request(t.url).get(path).set('Authorization', `Bearer ${apiKey}`);

  it('echoes expires_after and expires_at; activity moves the expiry; after `days` idle the store is expired', async () => {
    const created = await post('/v1/vector_stores', {
      name: 'short-lived',
      expires_after: { anchor: 'last_active_at', days: 2 },
    });
    expect(created.status).toBe(200);
    const start = Math.floor(clock.now() / 1000);
    expect(created.body).toMatchObject({
      status: 'completed',
      expires_after: { anchor: 'last_active_at', days: 2 },
      expires_at: start + 2 * 86_400,
      last_active_at: start,
    });
    const id = created.body.id as string;

    // a search one day later is activity: the expiry moves to two days after it
    clock.advance(DAY);
    expect((await post(`/v1/vector_stores/${id}/search`, { query: 'anything' })).status).toBe(200);
    expect((await get(`/v1/vector_stores/${id}`)).body).toMatchObject({
      status: 'completed',
      expires_at: start + 3 * 86_400,
    });

    // two idle days later it has expired: readable and deletable, not usable
    clock.advance(2 * DAY);
    const expired = await get(`/v1/vector_stores/${id}`);
    expect(expired.body).toMatchObject({ status: 'expired', expires_at: start + 3 * 86_400 });
    const search = await post(`/v1/vector_stores/${id}/search`, { query: 'anything' });
    expect(search.status).toBe(400);
    expect(search.body.error).toMatchObject({ code: 'vector_store_expired', param: 'vector_store_id' });
    const add = await post(`/v1/vector_stores/${id}/files`, { file_id: 'file-none' });
    expect(add.status).toBe(400);
    expect(add.body.error.code).toBe('vector_store_expired');
    const chat = await post('/v1/chat/completions', {
      model: 'local',
      knowledge_base_id: id,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(chat.status).toBe(400);
    expect(chat.body.error.code).toBe('vector_store_expired');
    const del = await request(t.url).delete(`/v1/vector_stores/${id}`).set('Authorization', `Bearer ${apiKey}`);
    expect(del.status).toBe(200);
  });

  it('without expires_after the member is absent and the store never expires; null removes it', async () => {
    const created = await post('/v1/vector_stores', { name: 'forever' });
    expect(created.body).not.toHaveProperty('expires_after');
    expect(created.body.expires_at).toBeNull();
    const id = created.body.id as string;
    const set = await post(`/v1/vector_stores/${id}`, { expires_after: { anchor: 'last_active_at', days: 1 } });
    expect(set.body.expires_after).toEqual({ anchor: 'last_active_at', days: 1 });
    const cleared = await post(`/v1/vector_stores/${id}`, { expires_after: null });
    expect(cleared.body).not.toHaveProperty('expires_after');
    clock.advance(400 * DAY);
    expect((await get(`/v1/vector_stores/${id}`)).body.status).toBe('completed');
  });

  it('a malformed expires_after is a 400 naming the field, before anything is stored', async () => {
    const before = (await get('/v1/vector_stores')).body.data.length as number;
    for (const [expires_after, param] of [
      [{ anchor: 'created_at', days: 1 }, 'expires_after.anchor'],
      [{ anchor: 'last_active_at', days: 0 }, 'expires_after.days'],
      [{ anchor: 'last_active_at', days: 366 }, 'expires_after.days'],
      ['7d', 'expires_after.anchor'],
    ] as const) {
      const res = await post('/v1/vector_stores', { name: 'bad', expires_after });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
    expect((await get('/v1/vector_stores')).body.data.length).toBe(before);
  });
});
