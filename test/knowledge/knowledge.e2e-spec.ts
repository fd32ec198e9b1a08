/**
 * Knowledge bases end to end: the official `openai` SDK drives Files + Vector Stores unchanged
 * (upload, createAndPoll, uploadAndPoll, fileBatches.uploadAndPoll, search, `for await` pagination)
 * over PDF (pdf-lib), DOCX (docx) and HTML served from a local server; a text-less PDF fails with
 * no_text_layer; another team's ids answer 404; the balance moves by exactly the embedding tokens ×
 * price; the REST knowledge-base API shares the records and answers rerank-style results.
 */
import OpenAI, { toFile } from 'openai';
import request from 'supertest';
import { SAFE_FETCHER_OPTIONS, SafeFetcherOptions } from '@app/common';
import { ImageServer } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { docxWith, FILLER, pdfWithoutText, pdfWithPages } from './kb-fixtures';

/** local-embedding-small: 200 RUB per 1M tokens = 200 µRUB per token (catalog, written out). */
const LOCAL_EMBEDDING_MICRO_PER_TOKEN = 200;
const toMicro = (rub: number): number => Math.round(rub * 1e6);

describe(`knowledge bases on ${backendKind()}`, () => {
  let t: TestApp;
  let web: ImageServer;
  let admin: AdminClient;
  let apiKey: string;
  let client: OpenAI;
  let other: OpenAI;

  beforeAll(async () => {
    web = await ImageServer.start();
    t = await createTestApp({
      env: { INGEST_POLL_MS: '100' },
      overrides: [
        {
          provide: SAFE_FETCHER_OPTIONS,
          useValue: { allowAddress: (ip: string) => ip === '127.0.0.1' } satisfies SafeFetcherOptions,
        },
      ],
    });
    admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(100, 'kb-team'));
    client = new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0 });
    const stranger = await admin.teamWithKey(100, 'other-team');
    other = new OpenAI({ apiKey: stranger.apiKey, baseURL: `${t.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await t?.close();
    await web?.close();
  });

  it('PDF: createAndPoll ingests every page; search finds the page holding a unique sentence first', async () => {
    const pdf = await pdfWithPages(
      [
        FILLER,
        ['The secret launch codename is BLUE HERON and it ships in May.', ...FILLER.slice(0, 1)],
        FILLER.slice(1),
      ],
      'Company handbook',
    );
    const file = await client.files.create({ file: await toFile(pdf, 'handbook.pdf'), purpose: 'assistants' });
    expect(file).toMatchObject({
      object: 'file',
      filename: 'handbook.pdf',
      bytes: pdf.length,
      purpose: 'assistants',
      status: 'processed',
    });
    const store = await client.vectorStores.create({ name: 'handbook' });
    const vsFile = await client.vectorStores.files.createAndPoll(
      store.id,
      { file_id: file.id, attributes: { lang: 'en', year: 2026 } },
      { pollIntervalMs: 50 },
    );
    expect(vsFile).toMatchObject({
      id: file.id,
      object: 'vector_store.file',
      status: 'completed',
      last_error: null,
      attributes: { lang: 'en', year: 2026 },
    });
    expect(vsFile.usage_bytes).toBeGreaterThan(0);

    const kb = await request(t.url)
      .get(`/api/v1/knowledge-bases/${store.id}/documents/${file.id}`)
      .set('api-key', apiKey);
    expect(kb.body).toMatchObject({
      id: file.id,
      kind: 'file',
      filename: 'handbook.pdf',
      title: 'Company handbook',
      status: 'completed',
      pages: 3,
    });
    expect(kb.body.chunks).toBe(3);

    const res = await client.vectorStores.search(store.id, { query: 'what is the launch codename?' });
    expect(res.object).toBe('vector_store.search_results.page');
    expect(res.data[0].file_id).toBe(file.id);
    expect(res.data[0].filename).toBe('handbook.pdf');
    expect(res.data[0].content[0].text).toContain('BLUE HERON');
    expect(res.data[0].attributes).toEqual({ lang: 'en', year: 2026 });
    // REST search: the page is named in the source
    const rest = await request(t.url)
      .post(`/api/v1/knowledge-bases/${store.id}/search`)
      .set('api-key', apiKey)
      .send({ query: 'launch codename BLUE HERON', top_k: 2 });
    expect(rest.status).toBe(200);
    expect(rest.body.results[0]).toMatchObject({
      rank: 1,
      source: { document_id: file.id, title: 'Company handbook', page: 2, url: null },
    });
    expect(rest.body.results[0].data).toContain('BLUE HERON');
    expect(rest.body.results[0].similarity_percentage).toMatch(/^\d+\.\d%$/);
    expect(rest.body.usage.query_tokens).toBeGreaterThan(0);
    expect(rest.body.usage.cost_rub).toBe((rest.body.usage.query_tokens * LOCAL_EMBEDDING_MICRO_PER_TOKEN) / 1e6);
    expect(rest.body.cost).toEqual({ total_cost_rub: rest.body.usage.cost_rub, currency: 'RUB' });
  });

  it('a PDF without a text layer fails with no_text_layer, never an empty success', async () => {
    const store = await client.vectorStores.create({ name: 'scans' });
    const vsFile = await client.vectorStores.files.uploadAndPoll(
      store.id,
      await toFile(await pdfWithoutText(), 'scan.pdf'),
      { pollIntervalMs: 50 },
    );
    expect(vsFile.status).toBe('failed');
    expect(vsFile.last_error).toEqual({ code: 'no_text_layer', message: expect.stringMatching(/no text layer/) });
    const vs = await client.vectorStores.retrieve(store.id);
    expect(vs.file_counts).toMatchObject({ failed: 1, completed: 0, in_progress: 0, total: 1 });
  });

  it('DOCX and HTML (a link from a local server, fetched through the SSRF guard) in one knowledge base', async () => {
    const store = await client.vectorStores.create({ name: 'mixed' });
    const docx = await docxWith('Travel policy', [
      'Employees book trains through the portal called RAILDESK.',
      ...FILLER,
    ]);
    const d = await client.vectorStores.files.uploadAndPoll(store.id, await toFile(docx, 'travel.docx'), {
      pollIntervalMs: 50,
    });
    expect(d.status).toBe('completed');
    const page = web.serve(
      '/help/parking.html',
      '<!doctype html><html><head><title>Parking guide</title></head><body><nav>Home | About | Contact</nav><article><h1>Parking</h1><p>Visitors park on level minus two, bay number forty-two, next to the ZEBRA sign.</p><p>Staff park on level minus one and must display the green permit at all times.</p></article><footer>© Example</footer></body></html>',
      'text/html; charset=utf-8',
    );
    const link = await request(t.url)
      .post(`/api/v1/knowledge-bases/${store.id}/links`)
      .set('api-key', apiKey)
      .send({ url: page, metadata: { source: 'web' } });
    expect(link.status).toBe(202);
    expect(link.body).toMatchObject({ kind: 'link', url: page, status: 'queued' });
    const done = await waitFor(async () => {
      const r = await request(t.url)
        .get(`/api/v1/knowledge-bases/${store.id}/documents/${link.body.id}`)
        .set('api-key', apiKey);
      return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : null;
    });
    expect(done).toMatchObject({ status: 'completed', title: 'Parking guide', final_url: page });

    const rail = await client.vectorStores.search(store.id, { query: 'which portal books trains', max_num_results: 1 });
    expect(rail.data[0].file_id).toBe(d.id);
    expect(rail.data[0].content[0].text).toContain('RAILDESK');
    const park = await client.vectorStores.search(store.id, {
      query: 'where do visitors park ZEBRA',
      filters: { type: 'eq', key: 'source', value: 'web' },
    });
    expect(park.data.map((x) => x.file_id)).toEqual([link.body.id]);
    expect(park.data[0].content[0].text).not.toContain('Home | About');

    // refresh of unchanged content keeps the chunks and re-embeds nothing
    const before = await ledgerCount();
    const again = await request(t.url)
      .post(`/api/v1/knowledge-bases/${store.id}/links/${link.body.id}/refresh`)
      .set('api-key', apiKey);
    expect(again.status).toBe(202);
    await waitFor(async () => {
      const r = await request(t.url)
        .get(`/api/v1/knowledge-bases/${store.id}/documents/${link.body.id}`)
        .set('api-key', apiKey);
      return r.body.status === 'completed' ? r.body : null;
    });
    expect(web.hits('/help/parking.html')).toBe(2);
    expect(await ledgerCount()).toBe(before);
  });

  it('fileBatches.uploadAndPoll and list pagination with for await', async () => {
    const store = await client.vectorStores.create({ name: 'batch' });
    const files = await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        toFile(Buffer.from(`# Note ${i}\n\nItem number ${i} is stored in drawer ${i * 7}.`), `note-${i}.md`),
      ),
    );
    const batch = await client.vectorStores.fileBatches.uploadAndPoll(store.id, { files }, { pollIntervalMs: 50 });
    expect(batch).toMatchObject({
      object: 'vector_store.files_batch',
      status: 'completed',
      file_counts: { completed: 5, total: 5, failed: 0, in_progress: 0 },
    });
    const seen: string[] = [];
    for await (const f of client.vectorStores.files.list(store.id, { limit: 2 })) seen.push(f.id);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    const allFiles: string[] = [];
    for await (const f of client.files.list({ limit: 3 })) allFiles.push(f.id);
    expect(allFiles.length).toBeGreaterThanOrEqual(8);
  });

  it('another team: 404 for the vector store, its files and search (no existence leak)', async () => {
    const store = await client.vectorStores.create({ name: 'private' });
    const file = await client.files.create({
      file: await toFile(Buffer.from('private text'), 'p.txt'),
      purpose: 'assistants',
    });
    await expect(other.vectorStores.retrieve(store.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.vectorStores.search(store.id, { query: 'x' })).rejects.toMatchObject({ status: 404 });
    await expect(other.vectorStores.files.create(store.id, { file_id: file.id })).rejects.toMatchObject({
      status: 404,
    });
    const mine = await client.vectorStores.create({ name: 'mine' });
    await expect(other.vectorStores.files.create(mine.id, { file_id: file.id })).rejects.toMatchObject({ status: 404 });
  });

  it('the balance moves by exactly the embedding tokens × price (ingestion and search)', async () => {
    const team = await admin.teamWithKey(10, 'billing-kb');
    const c = new OpenAI({ apiKey: team.apiKey, baseURL: `${t.url}/v1`, maxRetries: 0 });
    const store = await c.vectorStores.create({ name: 'billed' });
    await c.vectorStores.files.uploadAndPoll(
      store.id,
      await toFile(Buffer.from('Billing test document about invoices and receipts.\n'.repeat(40)), 'bill.txt'),
      { pollIntervalMs: 50 },
    );
    await c.vectorStores.search(store.id, { query: 'invoices' });
    const usage = await request(t.url).get('/api/v1/usage?limit=50').set('api-key', team.apiKey);
    const charges = (
      usage.body.data as Array<{ kind: string; endpoint: string; prompt_tokens: number; amount_rub: number }>
    ).filter((e) => e.kind === 'charge');
    expect(charges.map((e) => e.endpoint).sort()).toEqual(['/v1/vector_stores/search', 'knowledge-base ingestion']);
    for (const e of charges) expect(toMicro(-e.amount_rub)).toBe(e.prompt_tokens * LOCAL_EMBEDDING_MICRO_PER_TOKEN);
    const spent = charges.reduce((s, e) => s + e.prompt_tokens * LOCAL_EMBEDDING_MICRO_PER_TOKEN, 0);
    expect(toMicro(10) - toMicro(await admin.balance(team.apiKey))).toBe(spent);
  });

  it('REST: create, JSON text documents, unsupported types by content, validation, PATCH and DELETE', async () => {
    const created = await request(t.url)
      .post('/api/v1/knowledge-bases')
      .set('api-key', apiKey)
      .send({ name: 'rest kb', metadata: { team: 'docs' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'rest kb',
      embedding_model: 'local-embedding-small',
      dimensions: 1536,
      document_count: 0,
      link_count: 0,
    });
    const id = created.body.id as string;
    expect((await client.vectorStores.retrieve(id)).name).toBe('rest kb');

    const text = await request(t.url)
      .post(`/api/v1/knowledge-bases/${id}/documents`)
      .set('api-key', apiKey)
      .send({ name: 'faq', text: 'The wifi password is printed under the router.', metadata: { kind: 'faq' } });
    expect(text.status).toBe(202);
    expect(text.body).toMatchObject({ kind: 'text', status: 'queued', metadata: { kind: 'faq' } });
    const binary = await request(t.url)
      .post(`/api/v1/knowledge-bases/${id}/documents`)
      .set('api-key', apiKey)
      .attach('file', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0, 0, 0]), 'notes.txt');
    expect(binary.status).toBe(400);
    expect(binary.body.error).toMatchObject({ code: 'unsupported_file', param: 'file' });
    const missing = await request(t.url)
      .post(`/api/v1/knowledge-bases/${id}/documents`)
      .set('api-key', apiKey)
      .send({ name: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('text');
    const badChunking = await client.vectorStores.files
      .create(id, {
        file_id: text.body.id,
        chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 60 } },
      })
      .catch((e: { status: number; error: unknown }) => e);
    expect(badChunking).toMatchObject({ status: 400 });

    const patched = await request(t.url)
      .patch(`/api/v1/knowledge-bases/${id}`)
      .set('api-key', apiKey)
      .send({ name: 'renamed' });
    expect(patched.body.name).toBe('renamed');
    await waitFor(async () =>
      (await request(t.url).get(`/api/v1/knowledge-bases/${id}`).set('api-key', apiKey)).body.file_counts
        .in_progress === 0
        ? true
        : null,
    );
    const del = await request(t.url).delete(`/api/v1/knowledge-bases/${id}`).set('api-key', apiKey);
    expect(del.body).toEqual({ id, deleted: true });
    expect((await request(t.url).get(`/api/v1/knowledge-bases/${id}`).set('api-key', apiKey)).status).toBe(404);
  });

  it('files over 10 MB → 413 naming the limit; nothing stored', async () => {
    const before = (await client.files.list()).data.length;
    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 0x61);
    const res = await request(t.url)
      .post('/v1/files')
      .set('authorization', `Bearer ${apiKey}`)
      .field('purpose', 'assistants')
      .attach('file', big, 'big.txt');
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ type: 'request_too_large', message: expect.stringMatching(/10 MB/) });
    expect((await client.files.list()).data.length).toBe(before);
  });

  async function ledgerCount(): Promise<number> {
    const r = await request(t.url).get('/api/v1/usage?limit=500').set('api-key', apiKey);
    return (r.body.data as unknown[]).length;
  }
});

async function waitFor<T>(probe: () => Promise<T | null>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
