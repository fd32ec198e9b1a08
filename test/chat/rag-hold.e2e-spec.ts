/**
 * A RAG chat (knowledge base or project) holds the whole request — the retrieval's worst case and
 * the answer's — before its first paid step. Refused with 402, it costs nothing (retrieval used to be
 * charged before the answer's hold was refused: 60 concurrent RAG chats on 3.84 RUB gave 60 × 402
 * and 3.60 RUB charged). A request that fails after retrieval is charged the retrieval (one ledger
 * entry per query embedding and rerank) and nothing for the failed answer; nothing stays held.
 */
import request from 'supertest';
import { FakeAnthropic, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { charges, getBalance, providerEnv, UPSTREAM_KEYS } from './chat-helpers';

const FACT = 'The secret launch codename is BLUE HERON and it ships in May.';

describe(`RAG chat: one hold for retrieval and answer (${backendKind()})`, () => {
  let t: TestApp;
  let anthropic: FakeAnthropic;
  let admin: AdminClient;
  let apiKey: string;
  let teamId: string;
  let storeId: string;
  let projectId: string;
  const auth = () => ({ authorization: `Bearer ${apiKey}` });

  beforeAll(async () => {
    anthropic = await FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic });
    // no OpenAI key: knowledge bases and rerank use the local embedder (priced like the remote one)
    t = await createTestApp({ env: { ...providerEnv({ anthropic }), INGEST_POLL_MS: '50' } });
    admin = new AdminClient(t.url);
    ({ apiKey, teamId } = await admin.teamWithKey(0.5, 'rag-hold'));
    const file = await request(t.url)
      .post('/v1/files')
      .set(auth())
      .field('purpose', 'assistants')
      .attach('file', Buffer.from(`Handbook.\n\n${FACT}\n\nOffices open at nine.`), 'handbook.txt');
    const vs = await request(t.url).post('/v1/vector_stores').set(auth()).send({ name: 'handbook' });
    storeId = vs.body.id;
    await request(t.url).post(`/v1/vector_stores/${storeId}/files`).set(auth()).send({ file_id: file.body.id });
    for (let i = 0; i < 200; i++) {
      const got = await request(t.url).get(`/v1/vector_stores/${storeId}`).set(auth());
      if (got.body.file_counts.completed === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const project = await request(t.url)
      .post('/api/v1/projects')
      .set('api-key', apiKey)
      .send({ name: 'rag', mode: 'default' });
    projectId = project.body.id;
    const attached = await request(t.url)
      .post(`/api/v1/projects/${projectId}/knowledge-bases`)
      .set('api-key', apiKey)
      .send({ knowledge_base_id: storeId });
    expect(attached.status).toBe(201);
  });
  afterEach(() => anthropic.reset());
  afterAll(async () => {
    await t?.close();
    await anthropic?.close();
  });

  const completions = (body: Record<string, unknown>) =>
    request(t.url)
      .post('/v1/chat/completions')
      .set(auth())
      .send({
        model: 'claude-sonnet-4',
        max_tokens: 1000,
        messages: [{ role: 'user', content: 'What is the launch codename?' }],
        ...body,
      });
  const rest = (body: Record<string, unknown>) =>
    request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({
        model: 'claude-sonnet-4',
        max_tokens: 1000,
        user_id: 'u',
        prompt: 'What is the launch codename?',
        ...body,
      });

  it('30 concurrent RAG chats the balance cannot cover → 30 × 402, nothing charged, nothing held', async () => {
    const before = await getBalance(t.url, apiKey);
    const chargesBefore = (await charges(t.url, apiKey)).length;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 3 === 0
          ? completions({ knowledge_base_id: storeId })
          : i % 3 === 1
            ? completions({ project_id: projectId })
            : rest({ knowledge_base_id: storeId }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 402));
    for (const r of results) expect(r.body.error.type).toBe('insufficient_quota');
    expect(anthropic.requests).toHaveLength(0);
    const after = await getBalance(t.url, apiKey);
    expect(after.balance_rub).toBe(before.balance_rub);
    expect(after.reserved_rub).toBe(0);
    expect(await charges(t.url, apiKey)).toHaveLength(chargesBefore);
  });

  it('covered: the answer and each retrieval step are charged exactly once, nothing stays held', async () => {
    await admin.topUp(teamId, 200);
    const before = await getBalance(t.url, apiKey);
    const chargesBefore = (await charges(t.url, apiKey)).length;
    const res = await completions({ knowledge_base_id: storeId });
    expect(res.status).toBe(200);
    const after = await getBalance(t.url, apiKey);
    expect(after.reserved_rub).toBe(0);
    const all = await charges(t.url, apiKey);
    const newCharges = all.slice(0, all.length - chargesBefore);
    // query embedding, rerank, answer
    expect(newCharges.map((c) => c.model).sort()).toEqual(['claude-sonnet-4', 'local-embedding-small', 'rerank-small']);
    const total = newCharges.reduce((s, c) => s - Math.round(c.amount_rub * 1e6), 0);
    expect(Math.round((before.balance_rub - after.balance_rub) * 1e6)).toBe(total);
    expect(Math.round(res.body.cost.total_cost_rub * 1e6)).toBe(total);
  });

  it('the answer fails after retrieval → only the retrieval is charged, nothing stays held', async () => {
    anthropic.enqueue({ fault: faults.http(400, { message: 'bad request upstream' }) });
    const chargesBefore = (await charges(t.url, apiKey)).length;
    const before = await getBalance(t.url, apiKey);
    const res = await completions({ knowledge_base_id: storeId });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const after = await getBalance(t.url, apiKey);
    expect(after.reserved_rub).toBe(0);
    const all = await charges(t.url, apiKey);
    const newCharges = all.slice(0, all.length - chargesBefore);
    expect(newCharges.map((c) => c.model).sort()).toEqual(['local-embedding-small', 'rerank-small']);
    const total = newCharges.reduce((s, c) => s - Math.round(c.amount_rub * 1e6), 0);
    expect(Math.round((before.balance_rub - after.balance_rub) * 1e6)).toBe(total);
  });
});
