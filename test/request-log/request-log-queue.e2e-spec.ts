/**
 * The request log never slows down or fails the proxy: with its writer blocked, load goes on with
 * no failed request while the bounded queue drops bodies first, then records, each drop counted in
 * /metrics; once the writer moves again, what was kept is written. A database outage of a few
 * seconds (a private Postgres) loses no record within the bound.
 */
import request from 'supertest';
import { RequestLogRepository, RequestLogWriter } from '@app/request-log';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { PrivatePostgres } from '../support/private-postgres';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';
import { Scrape } from '../observability/prometheus-text';

const hi = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function listedIds(url: string, teamId: string): Promise<string[]> {
  const res = await request(url).get(`/api/v1/requests?team_id=${teamId}&limit=200`).set(operator);
  expect(res.status).toBe(200);
  return (res.body.data as { id: string }[]).map((r) => r.id);
}

describe(`request log queue saturation (${backendKind()})`, () => {
  let t: TestApp;
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({
      env: {
        ...openAiEnv(fake),
        INGEST_CONCURRENCY: '0',
        REQUEST_LOG_QUEUE_MAX: '6',
        REQUEST_LOG_BATCH_SIZE: '2',
        REQUEST_LOG_FLUSH_MS: '10',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('writer blocked: 0 failed requests, bodies dropped from half full, records at the bound, all counted', async () => {
    const { teamId, apiKey } = await new AdminClient(t.url).teamWithKey(100, 'saturated');
    const set = await request(t.url)
      .patch(`/api/v1/admin/teams/${teamId}`)
      .set(operator)
      .send({ request_log_bodies: 'full' });
    expect(set.status).toBe(200);
    const repo = t.get(RequestLogRepository);
    const insert = repo.insertMany.bind(repo);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    repo.insertMany = async (rows) => {
      await gate;
      return insert(rows);
    };
    const before = await Scrape.of(t.url);
    const dropped = (s: Scrape, what: string) => s.value('gateway_request_log_dropped_total', { what });
    const ids: string[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        fake.enqueue({ text: `answer ${i}`, usage: { input: 3, output: 2 } });
        const res = await request(t.url).post('/v1/chat/completions').set('api-key', apiKey).send(hi);
        expect(res.status).toBe(200);
        ids.push(res.headers['x-request-id'] as string);
      }
      await new Promise((r) => setTimeout(r, 50));
      const during = await Scrape.of(t.url);
      expect(during.value('gateway_request_log_queue')).toBe(6);
      expect(dropped(during, 'record') - dropped(before, 'record')).toBe(14);
      expect(dropped(during, 'body') - dropped(before, 'body')).toBe(3);
    } finally {
      open();
      repo.insertMany = insert;
    }
    await t.get(RequestLogWriter).flush();
    const listed = await listedIds(t.url, teamId);
    expect(listed.sort()).toEqual(ids.slice(0, 6).sort());
    const withBodies = await Promise.all(
      ids.slice(0, 6).map(async (id) => {
        const r = await request(t.url).get(`/api/v1/requests/${id}`).set('api-key', apiKey);
        return r.body.response_body !== undefined;
      }),
    );
    expect(withBodies).toEqual([true, true, true, false, false, false]);
  });
});

const outage = backendKind() === 'postgres' && PrivatePostgres.available() ? describe : describe.skip;

outage('request log during a database outage (private Postgres)', () => {
  let pg: PrivatePostgres;
  let t: TestApp;
  let fake: FakeOpenAI;

  beforeAll(async () => {
    pg = await PrivatePostgres.start();
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({
      env: {
        ...openAiEnv(fake),
        OPENAI_MAX_RETRIES: '0',
        INGEST_CONCURRENCY: '0',
        DATABASE_URL: pg.url,
        DATABASE_SCHEMA: '',
        REQUEST_LOG_FLUSH_MS: '60000',
        // a request during the outage must be refused (credit already granted would serve it)
        BILLING_CREDIT_GRANTS: 'false',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close().catch(() => undefined);
    await fake?.close();
    await pg?.destroy();
  });

  it('records queued before and during a short outage are all written once it is back', async () => {
    const { teamId, apiKey } = await new AdminClient(t.url).teamWithKey(100, 'outage');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      fake.enqueue({ text: 'x', usage: { input: 1, output: 1 } });
      const res = await request(t.url).post('/v1/chat/completions').set('api-key', apiKey).send(hi);
      expect(res.status).toBe(200);
      ids.push(res.headers['x-request-id'] as string);
    }
    const writer = t.get(RequestLogWriter);
    await pg.down();
    try {
      await writer.flush(); // refused: the records stay queued
      expect(writer.pending).toBe(5);
      const refused = await request(t.url).post('/v1/chat/completions').set('api-key', apiKey).send(hi);
      expect(refused.status).toBe(503);
      ids.push(refused.headers['x-request-id'] as string);
      await new Promise((r) => setTimeout(r, 20));
      await writer.flush();
      expect(writer.pending).toBe(6);
    } finally {
      await pg.up();
    }
    await writer.flush();
    expect(writer.pending).toBe(0);
    const listed = await listedIds(t.url, teamId);
    expect(listed.sort()).toEqual([...ids].sort());
  }, 60_000);
});
