/**
 * The key is checked from the headers before any body byte is read, and bodies are
 * limited per route (chat with images needs more than admin or knowledge-base CRUD).
 */
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/** Sends headers and 64 KiB of a body that claims 24 MB, then waits: resolves with the status the server answers. */
function postWithoutFinishing(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; sentBytes: number }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    let sent = 0;
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(24 * 1024 * 1024), ...headers },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentBytes: sent }));
      },
    );
    req.on('error', (err) => (sent > 0 ? undefined : reject(err)));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    req.write('{"prompt":"');
    req.write(chunk, () => (sent += chunk.length));
    // never finish: a server that waits for the whole body before checking the key never answers
    setTimeout(() => req.destroy(), 5_000);
  });
}

describe(`authentication before the body (${backendKind()})`, () => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await createTestApp();
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(10));
  });
  afterAll(() => t?.close());

  it.each([
    ['no key', {}],
    ['a wrong key', { authorization: 'Bearer sk-not-a-real-key-0000000000' }],
  ])('%s: 401 in the error shape while the body is still unsent', async (_name, headers) => {
    const started = Date.now();
    const res = await postWithoutFinishing(t.url, '/api/v1/chat', headers);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        message: expect.any(String),
        type: 'authentication_error',
        code: expect.stringMatching(/api_key/),
        param: null,
      },
    });
  });

  it('the admin API is gated the same way by its token', async () => {
    const res = await postWithoutFinishing(t.url, '/api/v1/admin/teams', {
      authorization: 'Bearer wrong-admin-token-000000',
    });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).error.code).toBe('invalid_admin_token');
  });

  it('a valid key is read and served as before', async () => {
    const res = await request(t.url).post('/api/v1/chat').set('api-key', apiKey).send({
      model: 'local',
      user_id: 'u',
      prompt: 'What is the capital of France?',
      system_prompt: 'Paris is the capital of France.',
    });
    expect(res.status).toBe(200);
  });

  it('per-route body limits: 64 KB for knowledge-base CRUD (413 naming it), BODY_LIMIT_MB for chat', async () => {
    const big = 'x'.repeat(100 * 1024);
    const small = await request(t.url)
      .post('/api/v1/knowledge-bases')
      .set('api-key', apiKey)
      .send({ name: 'kb', description: big });
    expect(small.status).toBe(413);
    expect(small.body.error).toMatchObject({ type: 'request_too_large', message: expect.stringContaining('64 KB') });
    // 5 MB of chat passes the body limit (and is then refused by the model's context window, not by size)
    const chat = await request(t.url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${apiKey}`)
      .send({ model: 'local', messages: [{ role: 'user', content: 'word '.repeat(1_000_000) }] });
    expect(chat.status).toBe(400);
    expect(chat.body.error.code).toBe('context_length_exceeded');
  });
});
