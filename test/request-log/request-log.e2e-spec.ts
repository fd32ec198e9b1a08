/**
 * The team request log: one record per model call on every endpoint kind (refused and failed calls
 * too), bodies absent by default and redacted when the team stores them, filters, cursor pages,
 * CSV, team isolation and operator reads, retention in bounded batches.
 */
import request from 'supertest';
import { FakeOpenAI, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';
import { RequestLogRepository, RequestLogWriter } from '@app/request-log';
import { RequestLogRetention } from '@app/request-log/request-log.retention';
import type { RequestLogEntity } from '@app/request-log/entities/request-log.entity';
import { TraceExporter } from '@app/request-log';
import { IngestionWorker } from '@app/knowledge/ingestion.worker';
import { as, createUser, joinTeam, signIn } from '../accounts/accounts-helpers';

type Rec = Record<string, unknown> & { id: string; usage: Record<string, number> };
interface Team {
  teamId: string;
  apiKey: string;
  keyId: string;
}

const SECRET_KEY = 'sk-proj-THISISASECRETKEY0123456789abcdef';

describe(`request log (${backendKind()})`, () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let deepseek: FakeOpenAI;
  let admin: AdminClient;
  let team: Team;
  let other: Team;

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    deepseek = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.deepseek });
    t = await createTestApp({
      env: {
        ...openAiEnv(fake),
        ...providerEnv({ deepseek }),
        INGEST_CONCURRENCY: '0',
        REQUEST_LOG_FLUSH_MS: '20',
        REQUEST_LOG_BODY_MAX_KB: '2',
        REQUEST_LOG_DELETE_BATCH: '2',
        OPENAI_MAX_RETRIES: '0',
      },
    });
    admin = new AdminClient(t.url);
    team = await admin.teamWithKey(100, 'logged');
    other = await admin.teamWithKey(100, 'other');
  });
  afterEach(() => {
    fake.reset();
    deepseek.reset();
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    await deepseek?.close();
  });

  const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };
  async function flushed(): Promise<void> {
    await new Promise((r) => setTimeout(r, 30));
    await t.app.get(RequestLogWriter).flush();
  }
  async function record(id: string, key = team.apiKey): Promise<Rec> {
    await flushed();
    const res = await request(t.url).get(`/api/v1/requests/${id}`).set('authorization', `Bearer ${key}`);
    expect(res.status).toBe(200);
    return res.body as Rec;
  }
  async function list(query: string, key = team.apiKey): Promise<{ data: Rec[]; next_cursor: string | null }> {
    await flushed();
    const res = await request(t.url).get(`/api/v1/requests?${query}`).set('authorization', `Bearer ${key}`);
    expect(res.status).toBe(200);
    return res.body as { data: Rec[]; next_cursor: string | null };
  }
  const post = (path: string, key: string, body: Record<string, unknown>) =>
    request(t.url).post(path).set('authorization', `Bearer ${key}`).send(body);
  const chat = (key: string, body: Record<string, unknown>) => post('/v1/chat/completions', key, body);
  const hi = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

  it('a chat completion: fields, tokens, cost = the ledger; no bodies by default', async () => {
    fake.enqueue({ text: 'hello there', usage: { input: 21, output: 8, cacheRead: 4, reasoning: 3 } });
    const res = await chat(team.apiKey, { ...hi, user: 'customer-42' }).set('user-agent', 'reqlog-test/1.0');
    expect(res.status).toBe(200);
    const id = res.headers['x-request-id'] as string;
    const r = await record(id);
    const usage = await request(t.url).get('/api/v1/usage?limit=1').set('api-key', team.apiKey);
    expect(r).toMatchObject({
      id,
      team_id: team.teamId,
      endpoint: '/v1/chat/completions',
      model: 'gpt-4o-mini',
      served_model: 'gpt-4o-mini',
      provider: 'openai',
      status: 200,
      error_code: null,
      stream: false,
      usage: { input_tokens: 21, output_tokens: 8, cache_read_tokens: 4, cache_write_tokens: 0, reasoning_tokens: 3 },
      cost_rub: -usage.body.data[0].amount_rub,
      attempts: 1,
      fallback_path: null,
      api_key_id: team.keyId,
      key_prefix: team.apiKey.slice(0, 11),
      user: 'customer-42',
      user_agent: 'reqlog-test/1.0',
      ttft_ms: null,
    });
    expect(r.cost_rub).toBeGreaterThan(0);
    expect(r.latency_ms).toEqual(expect.any(Number));
    expect(r.client_ip).toEqual(expect.any(String));
    expect(r).not.toHaveProperty('request_body');
    expect(r).not.toHaveProperty('response_body');
  });

  it('a streamed chat: stream true and the time to the first byte', async () => {
    fake.enqueue({ text: 'streamed words here', usage: { input: 5, output: 3 } });
    const res = await chat(team.apiKey, { ...hi, stream: true });
    expect(res.status).toBe(200);
    const r = await record(res.headers['x-request-id'] as string);
    expect(r).toMatchObject({ stream: true, status: 200, usage: expect.objectContaining({ output_tokens: 3 }) });
    expect(r.ttft_ms).toEqual(expect.any(Number));
    expect(r.ttft_ms as number).toBeLessThanOrEqual(r.latency_ms as number);
  });

  it('every endpoint kind gets its record', async () => {
    fake.enqueue(
      { text: 'a', usage: { input: 3, output: 1 } },
      { text: 'b', usage: { input: 3, output: 1 } },
      { text: 'c', usage: { input: 3, output: 1 } },
    );
    const store = await post('/v1/vector_stores', team.apiKey, {
      name: 'kb',
      embedding_model: 'local-embedding-small',
    });
    expect(store.status).toBe(200);
    const calls: [string, string, Record<string, unknown>][] = [
      ['/api/v1/chat', '/api/v1/chat', { model: 'gpt-4o-mini', prompt: 'x', user_id: 'rest-user' }],
      ['/v1/responses', '/v1/responses', { model: 'gpt-4o-mini', input: 'x' }],
      [
        '/v1/messages',
        '/v1/messages',
        { model: 'gpt-4o-mini', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] },
      ],
      ['/v1/embeddings', '/v1/embeddings', { model: 'local-embedding-small', input: 'x' }],
      ['/api/v1/embeddings', '/api/v1/embeddings', { model: 'local-embedding-small', input: 'x' }],
      [
        '/api/v1/rerank',
        '/api/v1/rerank',
        {
          query: 'q',
          content: [
            { id: '1', data: 'a' },
            { id: '2', data: 'b' },
          ],
          caching: false,
        },
      ],
      ['/v1/rerank', '/v1/rerank', { model: 'local-embedding-small', query: 'q', documents: ['a', 'b'] }],
      ['/v2/rerank', '/v2/rerank', { model: 'local-embedding-small', query: 'q', documents: ['a', 'b'] }],
      ['/v1/images/generations', '/v1/images/generations', { model: 'local-image', prompt: 'x', size: '256x256' }],
      [
        '/api/v1/images/generations',
        '/api/v1/images/generations',
        { model: 'local-image', prompt: 'x', size: '256x256' },
      ],
      [`/v1/vector_stores/${store.body.id}/search`, '/v1/vector_stores/:vector_store_id/search', { query: 'anything' }],
      [`/api/v1/knowledge-bases/${store.body.id}/search`, '/api/v1/knowledge-bases/:id/search', { query: 'anything' }],
    ];
    for (const [path, endpoint, body] of calls) {
      const res = await post(path, team.apiKey, body);
      expect([path, res.status, res.status === 200 ? null : res.body]).toEqual([path, 200, null]);
      const r = await record(res.headers['x-request-id'] as string);
      expect(r).toMatchObject({ endpoint, status: 200, team_id: team.teamId });
      if (path.includes('search')) expect(r.knowledge_base_id).toBe(store.body.id);
      if (path === '/api/v1/chat') expect(r.user).toBe('rest-user');
      if (!path.includes('search') && !path.includes('rerank')) expect(r.served_model).toBe(body.model);
      else expect(r.served_model).toEqual(expect.any(String));
      if (!path.includes('images')) expect(r.usage.input_tokens).toBeGreaterThan(0);
      expect(r.cost_rub).toBeGreaterThan(0);
    }
    // non-model routes are not recorded
    const usage = await request(t.url).get('/api/v1/usage').set('api-key', team.apiKey);
    await flushed();
    const none = await request(t.url).get(`/api/v1/requests/${usage.headers['x-request-id']}`).set(operator);
    expect(none.status).toBe(404);
  });

  it('an ingestion embedding job (no HTTP request) gets its record', async () => {
    const file = await request(t.url)
      .post('/v1/files')
      .set('api-key', other.apiKey)
      .field('purpose', 'assistants')
      .attach('file', Buffer.from('Opening hours are nine to six.'), 'hours.txt');
    expect(file.status).toBe(200);
    const store = await post('/v1/vector_stores', other.apiKey, {
      name: 'kb',
      embedding_model: 'local-embedding-small',
    });
    const added = await post(`/v1/vector_stores/${store.body.id}/files`, other.apiKey, { file_id: file.body.id });
    expect(added.status).toBe(200);
    expect(await t.app.get(IngestionWorker).runOne()).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    const found = await list(`endpoint=${encodeURIComponent('knowledge-base ingestion')}`, other.apiKey);
    expect(found.data).toHaveLength(1);
    expect(found.data[0]).toMatchObject({
      knowledge_base_id: store.body.id,
      model: 'local-embedding-small',
      provider: 'local',
      status: 200,
      api_key_id: null,
    });
    expect(found.data[0].id).toMatch(/^ingest-/);
    expect(found.data[0].usage.input_tokens).toBeGreaterThan(0);
  });

  it('a failed upstream call: 5xx with its error code and attempts', async () => {
    fake.enqueue({ fault: faults.http(500) });
    const res = await chat(team.apiKey, hi);
    expect(res.status).toBeGreaterThanOrEqual(500);
    const r = await record(res.headers['x-request-id'] as string);
    expect(r).toMatchObject({ status: res.status, error_code: res.body.error.code, attempts: 1, cost_rub: 0 });
    expect(r.error_code).toEqual(expect.any(String));
  });

  it('a fallback: served model, provider, attempts and the fallback path', async () => {
    fake.enqueue({ fault: faults.http(500) });
    deepseek.enqueue({ text: 'DeepSeek here', usage: { input: 12, output: 5 } });
    const res = await chat(team.apiKey, { ...hi, fallbacks: ['deepseek-chat'] });
    expect(res.status).toBe(200);
    expect(await record(res.headers['x-request-id'] as string)).toMatchObject({
      model: 'gpt-4o-mini',
      served_model: 'deepseek-chat',
      provider: 'deepseek',
      attempts: 2,
      fallback_path: ['gpt-4o-mini', 'deepseek-chat'],
      status: 200,
      usage: expect.objectContaining({ input_tokens: 12, output_tokens: 5 }),
    });
  });

  it('refused calls: 402 (no balance), 429 (rate limit), 400 (validation), 401 (operators only)', async () => {
    const poor = await admin.teamWithKey(0, 'poor');
    const refused = await chat(poor.apiKey, hi);
    expect(refused.status).toBe(402);
    expect(await record(refused.headers['x-request-id'] as string, poor.apiKey)).toMatchObject({
      status: 402,
      error_code: refused.body.error.code,
      model: 'gpt-4o-mini',
      cost_rub: 0,
    });

    const limited = await admin.teamWithKey(10, 'limited');
    const set = await request(t.url)
      .patch(`/api/v1/admin/api-keys/${limited.keyId}`)
      .set(operator)
      .send({ rpm_limit: 1 });
    expect(set.status).toBe(200);
    fake.enqueue({ text: 'ok', usage: { input: 1, output: 1 } });
    expect((await chat(limited.apiKey, hi)).status).toBe(200);
    const tooMany = await chat(limited.apiKey, hi);
    expect(tooMany.status).toBe(429);
    expect(await record(tooMany.headers['x-request-id'] as string, limited.apiKey)).toMatchObject({
      status: 429,
      error_code: tooMany.body.error.code,
    });

    const invalid = await chat(team.apiKey, { model: 'gpt-4o-mini', messages: 'nope' });
    expect(invalid.status).toBe(400);
    expect(await record(invalid.headers['x-request-id'] as string)).toMatchObject({ status: 400 });

    const anonymous = await chat('sk-not-a-real-key-000000000000', hi);
    expect(anonymous.status).toBe(401);
    await flushed();
    const seen = await request(t.url).get(`/api/v1/requests/${anonymous.headers['x-request-id']}`).set(operator);
    expect(seen.body).toMatchObject({ status: 401, team_id: null, api_key_id: null });
  });

  it('full bodies: stored redacted and capped; metadata again stores none; none stores no record', async () => {
    const full = await admin.teamWithKey(100, 'full');
    const patch = (body: Record<string, unknown>) =>
      request(t.url).patch(`/api/v1/admin/teams/${full.teamId}`).set(operator).send(body);
    const set = await patch({ request_log_bodies: 'full' });
    expect(set.status).toBe(200);
    expect(set.body.request_log_bodies).toBe('full');
    expect((await patch({ request_log_bodies: 'everything' })).status).toBe(400);

    fake.enqueue({ text: `the answer mentions ${SECRET_KEY}`, usage: { input: 9, output: 4 } });
    const res = await chat(full.apiKey, {
      model: 'gpt-4o-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: `my key is ${SECRET_KEY} and Bearer abcdefghijklmnop123` },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${'iVBORw0KGgo'.repeat(100)}` } },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    const r = await record(res.headers['x-request-id'] as string, full.apiKey);
    expect(typeof r.request_body).toBe('string');
    expect(typeof r.response_body).toBe('string');
    const stored = `${r.request_body as string}${r.response_body as string}`;
    expect(stored).toContain('my key is [REDACTED]');
    expect(stored).toContain('the answer mentions [REDACTED]');
    expect(stored).toContain('Bearer [REDACTED]');
    expect(stored).toContain('[image/png: ');
    expect(stored).not.toContain(SECRET_KEY);
    expect(stored).not.toContain('iVBORw0KGgo');
    expect(r.body_truncated).toBe(false);

    fake.enqueue({ text: 'long '.repeat(1000), usage: { input: 9, output: 1000 } });
    const long = await chat(full.apiKey, hi);
    const cut = await record(long.headers['x-request-id'] as string, full.apiKey);
    expect(cut.body_truncated).toBe(true);
    expect(Buffer.byteLength(cut.response_body as string)).toBeLessThanOrEqual(2048);

    // a change through this replica applies to the next call
    expect((await patch({ request_log_bodies: 'metadata' })).status).toBe(200);
    fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } });
    const plain = await record((await chat(full.apiKey, hi)).headers['x-request-id'] as string, full.apiKey);
    expect(plain).not.toHaveProperty('request_body');
    expect(plain).not.toHaveProperty('body_truncated');
    expect((await patch({ request_log_bodies: 'none' })).status).toBe(200);
    fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } });
    const unlogged = await chat(full.apiKey, hi);
    expect(unlogged.status).toBe(200);
    await flushed();
    const missing = await request(t.url)
      .get(`/api/v1/requests/${unlogged.headers['x-request-id']}`)
      .set('api-key', full.apiKey);
    expect(missing.status).toBe(404);
  });

  it('filters, cursor pages newest first, CSV', async () => {
    const f = await admin.teamWithKey(100, 'filters');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      fake.enqueue({ text: 'x', usage: { input: 10 * (i + 1), output: 1 } });
      const res = await chat(f.apiKey, { ...hi, user: i % 2 === 0 ? 'even' : 'odd' });
      ids.push(res.headers['x-request-id'] as string);
    }
    const bad = await chat(f.apiKey, { model: 'gpt-4o-mini' });
    expect(bad.status).toBe(400);
    const emb = await post('/v1/embeddings', f.apiKey, { model: 'local-embedding-small', input: 'x' });
    expect(emb.status).toBe(200);

    const all = await list('', f.apiKey);
    expect(all.data.map((r) => r.id)).toEqual([
      emb.headers['x-request-id'],
      bad.headers['x-request-id'],
      ...ids.reverse(),
    ]);

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: Rec[]; next_cursor: string | null } = await list(
        `limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        f.apiKey,
      );
      expect(page.data.length).toBeLessThanOrEqual(3);
      pages.push(...page.data.map((r) => r.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(pages).toEqual(all.data.map((r) => r.id));

    expect((await list('status=4xx', f.apiKey)).data.map((r) => r.id)).toEqual([bad.headers['x-request-id']]);
    expect((await list('status=error', f.apiKey)).data).toHaveLength(1);
    expect((await list('status=5xx', f.apiKey)).data).toHaveLength(0);
    expect((await list('status=ok', f.apiKey)).data).toHaveLength(6);
    expect((await list('user=even', f.apiKey)).data).toHaveLength(3);
    expect((await list('endpoint=/v1/embeddings', f.apiKey)).data).toHaveLength(1);
    expect((await list('model=local-embedding-small', f.apiKey)).data).toHaveLength(1);
    expect((await list(`api_key_id=${f.keyId}`, f.apiKey)).data).toHaveLength(7);
    const costs = all.data.map((r) => r.cost_rub as number).sort((a, b) => b - a);
    expect((await list(`min_cost_rub=${costs[1]}`, f.apiKey)).data.map((r) => r.cost_rub)).toEqual(
      all.data.map((r) => r.cost_rub).filter((c) => (c as number) >= costs[1]),
    );
    const first = all.data[all.data.length - 1].created_at as string;
    expect((await list(`to=${encodeURIComponent(first)}`, f.apiKey)).data).toHaveLength(0);
    expect((await list(`from=${encodeURIComponent(first)}`, f.apiKey)).data).toHaveLength(7);
    const wrong = await request(t.url).get('/api/v1/requests?status=bad').set('api-key', f.apiKey);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.param).toBe('status');

    const csv = await request(t.url).get('/api/v1/requests/export?format=csv&limit=4').set('api-key', f.apiKey);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0].split(',').slice(0, 4)).toEqual(['id', 'created_at', 'team_id', 'endpoint']);
    expect(lines).toHaveLength(5);
    expect(lines[1].startsWith(`${emb.headers['x-request-id']},`)).toBe(true);
    expect(csv.headers['x-next-cursor']).toEqual(expect.any(String));
    const rest = await request(t.url)
      .get(`/api/v1/requests/export?format=csv&cursor=${csv.headers['x-next-cursor']}`)
      .set('api-key', f.apiKey);
    expect(rest.text.trim().split('\r\n')).toHaveLength(4);
    expect((await request(t.url).get('/api/v1/requests/export').set('api-key', f.apiKey)).status).toBe(400);
  });

  it("isolation: another team's record is 404 and absent from its list; the operator reads every team", async () => {
    fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } });
    const res = await chat(team.apiKey, hi);
    const id = res.headers['x-request-id'] as string;
    await flushed();
    const foreign = await request(t.url).get(`/api/v1/requests/${id}`).set('api-key', other.apiKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('request_not_found');
    expect((await list('', other.apiKey)).data.map((r) => r.id)).not.toContain(id);
    // a key sent with team_id of another team still reads its own team
    expect((await list(`team_id=${team.teamId}`, other.apiKey)).data.map((r) => r.id)).not.toContain(id);

    const all = await request(t.url).get('/api/v1/requests?limit=200').set(operator);
    expect(all.status).toBe(200);
    const teams = new Set((all.body.data as Rec[]).map((r) => r.team_id));
    expect(teams.has(team.teamId)).toBe(true);
    expect(teams.size).toBeGreaterThan(1);
    const scoped = await request(t.url).get(`/api/v1/requests?team_id=${other.teamId}`).set(operator);
    expect((scoped.body.data as Rec[]).every((r) => r.team_id === other.teamId)).toBe(true);
    expect((await request(t.url).get(`/api/v1/requests/${id}`).set(operator)).body.id).toBe(id);
    expect((await request(t.url).get('/api/v1/requests')).status).toBe(401);
  });

  it('sessions: viewers read their team (x-team-id), not others; team admins set the level; operators read all', async () => {
    fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } }, { text: 'y', usage: { input: 1, output: 1 } });
    const id = (await chat(team.apiKey, hi)).headers['x-request-id'] as string;
    expect((await chat(other.apiKey, hi)).status).toBe(200);
    await flushed();
    const viewer = await joinTeam(t.url, team.teamId, 'viewer-reqlog@example.com', 'viewer', 'long password 123');
    const mine = await as(t.url, viewer).get(`/api/v1/requests/${id}`).set('x-team-id', team.teamId);
    expect(mine.status).toBe(200);
    expect(mine.body.id).toBe(id);
    const listed = await as(t.url, viewer).get('/api/v1/requests').set('x-team-id', team.teamId);
    expect((listed.body.data as Rec[]).map((r) => r.id)).toContain(id);
    const foreign = await as(t.url, viewer).get('/api/v1/requests').set('x-team-id', other.teamId);
    expect(foreign.status).toBe(404);
    expect((await as(t.url, viewer).get('/api/v1/requests')).status).toBe(400);
    // a viewer may not change the team's settings; its admin may
    const denied = await as(t.url, viewer).patch(`/api/v1/teams/${team.teamId}`).send({ request_log_bodies: 'full' });
    expect(denied.status).toBe(403);
    const teamAdmin = await joinTeam(t.url, other.teamId, 'admin-reqlog@example.com', 'admin', 'long password 123');
    const changed = await as(t.url, teamAdmin)
      .patch(`/api/v1/teams/${other.teamId}`)
      .send({ request_log_retention_days: 90, request_log_body_retention_days: 3 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      request_log_bodies: 'metadata',
      request_log_retention_days: 90,
      request_log_body_retention_days: 3,
    });
    await createUser(t.url, 'op-reqlog@example.com', 'long password 123', true);
    const op = await signIn(t.url, 'op-reqlog@example.com', 'long password 123');
    const every = await as(t.url, op).get('/api/v1/requests?limit=200');
    expect(every.status).toBe(200);
    expect(new Set((every.body.data as Rec[]).map((r) => r.team_id)).size).toBeGreaterThan(1);
    expect(t.app.get(TraceExporter).enabled).toBe(false); // no OTEL_EXPORTER_OTLP_ENDPOINT: no export
  });

  it('bodies: members and viewers read those of their own session calls only; owners, admins, keys and operators all', async () => {
    const full = await admin.teamWithKey(100, 'bodies-by-role');
    await request(t.url)
      .patch(`/api/v1/admin/teams/${full.teamId}`)
      .set(operator)
      .send({ request_log_bodies: 'full' })
      .expect(200);
    const member = await joinTeam(t.url, full.teamId, 'member-bodies@example.com', 'member', 'long password 123');
    const viewer = await joinTeam(t.url, full.teamId, 'viewer-bodies@example.com', 'viewer', 'long password 123');
    const teamAdmin = await joinTeam(t.url, full.teamId, 'admin-bodies@example.com', 'admin', 'long password 123');
    fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } }, { text: 'y', usage: { input: 1, output: 1 } });
    const byKey = (await chat(full.apiKey, hi)).headers['x-request-id'] as string;
    const byMember = await as(t.url, member).post('/v1/chat/completions').set('x-team-id', full.teamId).send(hi);
    expect(byMember.status).toBe(200);
    const memberCall = byMember.headers['x-request-id'] as string;
    await flushed();
    const read = async (who: Parameters<typeof as>[1] | 'key' | 'operator', id: string) => {
      const res =
        who === 'key'
          ? await request(t.url).get(`/api/v1/requests/${id}`).set('authorization', `Bearer ${full.apiKey}`)
          : who === 'operator'
            ? await request(t.url).get(`/api/v1/requests/${id}`).set(operator)
            : await as(t.url, who).get(`/api/v1/requests/${id}`).set('x-team-id', full.teamId);
      expect(res.status).toBe(200);
      return typeof res.body.request_body === 'string';
    };
    expect([
      await read(viewer, byKey),
      await read(viewer, memberCall),
      await read(member, byKey),
      await read(member, memberCall),
      await read(teamAdmin, byKey),
      await read(teamAdmin, memberCall),
      await read('key', memberCall),
      await read('operator', memberCall),
    ]).toEqual([false, false, false, true, true, true, true, true]);
  });

  it('the detail names the key, its creator, the signed-in user and the project; spend by key names keys and creators', async () => {
    const named = await admin.teamWithKey(100, 'named');
    const owner = await joinTeam(t.url, named.teamId, 'owner-names@example.com', 'owner', 'long password 123');
    const created = await as(t.url, owner)
      .post(`/api/v1/teams/${named.teamId}/api-keys`)
      .send({ name: 'backend-prod' });
    expect(created.status).toBe(201);
    fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } }, { text: 'y', usage: { input: 1, output: 1 } });
    const byKey = (await chat(created.body.api_key, hi)).headers['x-request-id'] as string;
    const bySession = await as(t.url, owner).post('/v1/chat/completions').set('x-team-id', named.teamId).send(hi);
    expect(bySession.status).toBe(200);
    await flushed();
    const detail = async (id: string) =>
      (await as(t.url, owner).get(`/api/v1/requests/${id}`).set('x-team-id', named.teamId)).body as Rec;
    expect(await detail(byKey)).toMatchObject({
      api_key_id: created.body.id,
      key_name: 'backend-prod',
      key_created_by_email: 'owner-names@example.com',
      session_user_email: null,
      project_name: null,
    });
    expect(await detail(bySession.headers['x-request-id'] as string)).toMatchObject({
      session_user_id: owner.userId,
      session_user_email: 'owner-names@example.com',
    });
    // the operator's key (admin API) has no creator
    fake.enqueue({ text: 'z', usage: { input: 1, output: 1 } });
    const byAdminKey = (await chat(named.apiKey, hi)).headers['x-request-id'] as string;
    await flushed();
    expect(await detail(byAdminKey)).toMatchObject({ key_created_by_email: null, key_prefix: expect.any(String) });

    const summary = await as(t.url, owner).get(`/api/v1/teams/${named.teamId}/usage/summary?group_by=key`);
    expect(summary.status).toBe(200);
    const row = (summary.body.data as Record<string, unknown>[]).find((r) => r.group === created.body.id);
    expect(row).toMatchObject({
      key_name: 'backend-prod',
      key_prefix: created.body.prefix,
      key_created_by_email: 'owner-names@example.com',
    });
    // another grouping carries no key fields
    const byModel = await as(t.url, owner).get(`/api/v1/teams/${named.teamId}/usage/summary?group_by=model`);
    expect(byModel.body.data[0]).not.toHaveProperty('key_name');
  });

  it('the User-Agent is stored with the credentials in it redacted', async () => {
    fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } });
    const res = await chat(team.apiKey, hi).set(
      'user-agent',
      `my-tool/1.0 (key=${SECRET_KEY}) xoxb-2400000000000-2400000000001-AbCdEfGhIjKl`,
    );
    const r = await record(res.headers['x-request-id'] as string);
    expect(r.user_agent).toContain('my-tool/1.0');
    expect(r.user_agent).not.toContain(SECRET_KEY);
    expect(r.user_agent).not.toContain('AbCdEfGhIjKl');
  });

  it('retention: expired records deleted and expired bodies cleared, in bounded batches', async () => {
    const repo = t.app.get(RequestLogRepository);
    const now = Date.now();
    const row = (id: string, expiresAt: number, bodiesExpireAt: number | null): RequestLogEntity => ({
      id,
      teamId: other.teamId,
      createdAt: now - 40 * 86_400_000,
      expiresAt,
      bodiesExpireAt,
      method: 'POST',
      endpoint: '/v1/chat/completions',
      model: 'gpt-4o-mini',
      servedModel: 'gpt-4o-mini',
      provider: 'openai',
      attempts: 1,
      fallbackPath: null,
      status: 200,
      errorCode: null,
      stream: false,
      inputTokens: 1,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      costMicro: 1,
      fxRate: null,
      fxDate: null,
      latencyMs: 5,
      ttftMs: null,
      apiKeyId: other.keyId,
      keyPrefix: null,
      sessionUserId: null,
      endUser: null,
      projectId: null,
      knowledgeBaseId: null,
      clientIp: null,
      userAgent: null,
      requestBody: bodiesExpireAt === null ? null : '{"a":1}',
      responseBody: bodiesExpireAt === null ? null : '{"b":2}',
      bodyTruncated: false,
    });
    await repo.insertMany([
      ...Array.from({ length: 5 }, (_, i) => row(`old-${i}`, now - 1000, null)),
      row('kept-bodies-gone', now + 86_400_000, now - 1000),
      row('kept-with-bodies', now + 86_400_000, now + 86_400_000),
    ]);
    const out = await t.app.get(RequestLogRetention).run();
    expect(out.records).toBeGreaterThanOrEqual(5);
    expect(out.bodies).toBeGreaterThanOrEqual(1);
    const get = (id: string) => request(t.url).get(`/api/v1/requests/${id}`).set('api-key', other.apiKey);
    for (let i = 0; i < 5; i++) expect((await get(`old-${i}`)).status).toBe(404);
    const cleared = await get('kept-bodies-gone');
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('request_body');
    expect((await get('kept-with-bodies')).body.request_body).toBe('{"a":1}');
  });
});
