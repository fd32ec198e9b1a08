/**
 * Hostile input answers 400 (or 431) in the error shape, before any upstream call —
 * on SQLite and on Postgres (where NUL characters used to reach the database and answer 500).
 */
import { connect } from 'node:net';
import request from 'supertest';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';

describe(`hostile input (${backendKind()})`, () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let apiKey: string;
  let teamId: string;
  const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({ env: openAiEnv(fake) });
    ({ apiKey, teamId } = await new AdminClient(t.url).teamWithKey(10));
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('JSON nested 1,500 levels → 400 invalid_json (validation never recurses into it)', async () => {
    const deep = '{"a":'.repeat(1500) + '1' + '}'.repeat(1500);
    for (const [path, headers] of [
      ['/v1/chat/completions', { authorization: `Bearer ${apiKey}` }],
      ['/api/v1/admin/teams', admin()],
    ] as const) {
      const res = await request(t.url)
        .post(path)
        .set(headers)
        .set('content-type', 'application/json')
        .send(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"x"}],"x":${deep}}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: {
          message: expect.stringMatching(/nests deeper/),
          type: 'invalid_request_error',
          code: 'invalid_json',
          param: null,
        },
      });
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('NUL characters in names and references → 400 naming the field, nothing written', async () => {
    const team = await request(t.url)
      .post('/api/v1/admin/teams')
      .set(admin())
      .send({ name: 'evil\u0000team', balance_rub: 1 });
    expect(team.status).toBe(400);
    expect(team.body).toMatchObject({ error: { code: 'invalid_characters', param: 'name' } });
    const key = await request(t.url)
      .post(`/api/v1/admin/teams/${teamId}/api-keys`)
      .set(admin())
      .send({ name: 'k\u0000' });
    expect(key.status).toBe(400);
    const top = await request(t.url)
      .post(`/api/v1/admin/teams/${teamId}/top-ups`)
      .set(admin())
      .send({ amount_rub: 1, reference: 'inv\u0000-1' });
    expect(top.status).toBe(400);
    expect(top.body.error.param).toBe('reference');
    const path = await request(t.url).get('/v1/files/file-%00').set('authorization', `Bearer ${apiKey}`);
    expect(path.status).toBe(400);
    expect(path.body).toMatchObject({ error: { code: 'invalid_characters', param: null } });
  });

  it('an out-of-range cursor → 400, not a database error', async () => {
    const res = await request(t.url).get('/api/v1/usage?before=99999999999999999999999').set('api-key', apiKey);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('before');
  });

  it('"dimensions": null on /v1/embeddings → 400 before any upstream call', async () => {
    const res = await request(t.url)
      .post('/v1/embeddings')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'text-embedding-3-small', input: 'x', dimensions: null });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('dimensions');
    expect(fake.requests).toHaveLength(0);
  });

  it('headers over 16 KB → 431 with the JSON error body', async () => {
    const u = new URL(t.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const s = connect(Number(u.port), u.hostname, () =>
        s.write(`GET /health HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      let out = '';
      s.on('data', (d) => (out += d.toString()));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    expect(raw.startsWith('HTTP/1.1 431')).toBe(true);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({
      error: {
        message: expect.stringMatching(/too large/),
        type: 'invalid_request_error',
        code: 'headers_too_large',
        param: null,
      },
    });
  });
});
