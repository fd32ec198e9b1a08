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
import { charges, getBalance, LedgerEntry, providerEnv, UPSTREAM_KEYS } from './chat-helpers';

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

  /** Every charge of the team (the usage API pages by 100). */
  async function allCharges(): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    let before: string | null = null;
    do {
      const res: request.Response = await request(t.url)
        .get(`/api/v1/usage?limit=100${before ? `&before=${before}` : ''}`)
        .set('api-key', apiKey);
      expect(res.status).toBe(200);
      out.push(...(res.body.data as LedgerEntry[]).filter((e) => e.kind === 'charge'));
      before = res.body.has_more ? String(res.body.next_before) : null;
    } while (before);
    return out;
  }

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

  it('mixed drain: 40 concurrent RAG chats on a balance that covers a few — every refused request has no charge at all', async () => {
    await admin.topUp(teamId, 300);
    // answers take a while and each holds 90 RUB (max_tokens 60000), so the holds of admitted
    // requests overlap and the balance runs short for some
    anthropic.setDefault({ text: 'BLUE HERON', delayMs: 400 });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2
          ? completions({ knowledge_base_id: storeId, max_tokens: 60_000 })
          : rest({ knowledge_base_id: storeId, max_tokens: 60_000 })
        ).set('x-request-id', `drain-${i}`),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 402).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    const byRequest = new Map<string, string[]>();
    for (const c of await allCharges())
      if (c.request_id) byRequest.set(c.request_id, [...(byRequest.get(c.request_id) ?? []), c.model ?? '']);
    results.forEach((r, i) => {
      const models = (byRequest.get(`drain-${i}`) ?? []).sort();
      if (r.status === 402) expect(models).toEqual([]);
      else expect(models).toEqual(['claude-sonnet-4', 'local-embedding-small', 'rerank-small']);
    });
    expect((await getBalance(t.url, apiKey)).reserved_rub).toBe(0);
  });

  it('the answer fails after retrieval → only the retrieval is charged, nothing stays held', async () => {
    anthropic.enqueue({ fault: faults.http(400, { message: 'bad request upstream' }) });
    const chargesBefore = (await allCharges()).length;
    const before = await getBalance(t.url, apiKey);
    const res = await completions({ knowledge_base_id: storeId });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const after = await getBalance(t.url, apiKey);
    expect(after.reserved_rub).toBe(0);
    const all = await allCharges();
    const newCharges = all.slice(0, all.length - chargesBefore);
    expect(newCharges.map((c) => c.model).sort()).toEqual(['local-embedding-small', 'rerank-small']);
    const total = newCharges.reduce((s, c) => s - Math.round(c.amount_rub * 1e6), 0);
    expect(Math.round((before.balance_rub - after.balance_rub) * 1e6)).toBe(total);
  });
});
