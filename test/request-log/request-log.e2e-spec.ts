/**
 * The team request log: one record per model call on every endpoint kind (refused and failed calls
 * too), bodies absent by default and redacted when the team stores them, filters, cursor pages,
 * CSV, team isolation and operator reads, retention.
 */
import request from 'supertest';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';
import { RequestLogRetention } from '@app/request-log/request-log.retention';
import { RequestLogWriter } from '@app/request-log';

type Rec = Record<string, unknown> & { id: string; usage: Record<string, number> };

describe(`request log (${backendKind()})`, () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let admin: AdminClient;
  let team: { teamId: string; apiKey: string; keyId: string };
  let other: { teamId: string; apiKey: string; keyId: string };

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({
      env: { ...openAiEnv(fake), INGEST_CONCURRENCY: '0', REQUEST_LOG_FLUSH_MS: '20', OPENAI_MAX_RETRIES: '0' },
    });
    admin = new AdminClient(t.url);
    team = await admin.teamWithKey(100, 'logged');
    other = await admin.teamWithKey(100, 'other');
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const writer = (): RequestLogWriter => t.app.get(RequestLogWriter);
  async function flushed(): Promise<void> {
    await new Promise((r) => setTimeout(r, 30));
    await writer().flush();
  }
  async function record(id: string, key = team.apiKey): Promise<Rec> {
    await flushed();
    const res = await request(t.url).get(`/api/v1/requests/${id}`).set('authorization', `Bearer ${key}`);
    expect(res.status).toBe(200);
    return res.body as Rec;
  }
  const chat = (key: string, body: Record<string, unknown>) =>
    request(t.url).post('/v1/chat/completions').set('authorization', `Bearer ${key}`).send(body);

  it('a chat completion: fields, tokens, cost = ledger; no bodies by default', async () => {
    fake.enqueue({ text: 'hello there', usage: { input: 21, output: 8 } });
    const res = await chat(team.apiKey, {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      user: 'customer-42',
    }).set('user-agent', 'reqlog-test/1.0');
    expect(res.status).toBe(200);
    const id = res.headers['x-request-id'] as string;
    const r = await record(id);
    const usage = await request(t.url).get('/api/v1/usage?limit=1').set('api-key', team.apiKey);
    expect(r).toMatchObject({
      id,
      endpoint: '/v1/chat/completions',
      model: 'gpt-4o-mini',
      served_model: 'gpt-4o-mini',
      provider: 'openai',
      status: 200,
      error_code: null,
      stream: false,
      usage: { input_tokens: 21, output_tokens: 8, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
      cost_rub: -usage.body.data[0].amount_rub,
      attempts: 1,
      api_key_id: team.keyId,
      user: 'customer-42',
      user_agent: 'reqlog-test/1.0',
    });
    expect(r.latency_ms).toEqual(expect.any(Number));
    expect(r).not.toHaveProperty('request_body');
    expect(r).not.toHaveProperty('response_body');
  });
});
