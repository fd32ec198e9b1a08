/**
 * POST /api/v1/rerank over HTTP against the fake OpenAI embeddings upstream (whose vectors are a
 * pure function of the text): exact scores, ranks and counts, exact provider-reported tokens,
 * exact cost and balance movement, the three content forms with the table column rules, the upstream
 * calls (query alone, documents batched, base64, dimensions), validation errors and limits, and
 * the local lexical embedder when no provider key is configured.
 */
import request from 'supertest';
import { getEncoding } from 'js-tiktoken';
import { fakeTokenCount, FakeOpenAI, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import {
  costRub,
  DIMS,
  embeddingCalls,
  errorBody,
  expectedRanking,
  FAKE_OPENAI_KEY,
  lastLedgerEntry,
  openAiEnv,
  rawScore,
  rerank,
  tokens,
  toMicro,
} from './rerank-helpers';

const QUERY = 'how to reset my password';
const DOCS = [
  { id: 'kb-1', data: 'Reset your password in account settings', metadata: { lang: 'en', views: 10 } },
  { id: 'kb-2', data: 'Invoices are sent on the first day of every month', metadata: {} },
  { id: 'kb-3', data: 'A password reset link expires after one hour', metadata: { lang: 'en' } },
  { id: 'kb-4', data: 'How to change my email address', metadata: { nested: { a: [1, 2] } } },
  { id: 'kb-5', data: 'The weather is nice today', metadata: {} },
  { id: 'kb-6', data: 'Forgot password? Use the reset form to set a new password', metadata: {} },
];

describe(`rerank over HTTP (fake OpenAI embeddings) on ${backendKind()}`, () => {
  let fake: FakeOpenAI;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({ env: { ...openAiEnv(fake), OPENAI_MAX_RETRIES: '0' } }); // one attempt per call: the fault cases pin single-failure behaviour
    admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(100, 'rerank-team'));
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('documents: exact scores, percentages, ranks, counts, tokens, cost, balance and ledger', async () => {
    const before = await admin.balance(apiKey);
    const res = await rerank(t.url, apiKey, { query: QUERY, content: DOCS, caching: false });
    expect(res.status).toBe(200);

    const expected = expectedRanking(QUERY, DOCS);
    // the fixture must exercise the default threshold 0.0: some documents score below it
    expect(expected.filtered_documents).toBe(4);
    const qTokens = fakeTokenCount(QUERY);
    const dTokens = tokens(DOCS.map((d) => d.data));
    expect([qTokens, dTokens]).toEqual([5, 46]);
    expect(res.body).toEqual({
      query: QUERY,
      results: expected.results,
      total_documents: 6,
      filtered_documents: 4,
      returned_documents: 4,
      model_info: { model: 'small', embedding_model: 'text-embedding-3-small', dimensions: 1536 },
      cache_info: {
        from_cache: false,
        cache_hit: false,
        tokens_used: dTokens,
        cached_tokens: 0,
        cache_enabled: false,
        cache_status: 'disabled',
      },
      usage: { query_tokens: 5, document_tokens: 46, total_tokens: 51, cost_rub: 0.0102 },
      cost: { total_cost_rub: 0.0102, currency: 'RUB' },
      parameters: { similarity_threshold: 0, top_k: 10, model: 'small', column_to_embed: null, column_id: null },
      processing_time_seconds: expect.any(Number),
    });
    // the same figures written out (cosines of the fake's bag-of-words vectors): kb-2 and kb-5
    // score slightly below 0 and are dropped by the default threshold 0.0
    expect(
      res.body.results.map((r: { id: string; similarity_score: number; similarity_percentage: string }) => [
        r.id,
        r.similarity_score,
        r.similarity_percentage,
      ]),
    ).toEqual([
      ['kb-4', 0.5469, '54.7%'],
      ['kb-6', 0.4614, '46.1%'],
      ['kb-1', 0.3328, '33.3%'],
      ['kb-3', 0.2867, '28.7%'],
    ]);
    expect(res.body.results[2]).toEqual({
      rank: 3,
      id: 'kb-1',
      data: DOCS[0].data,
      metadata: { lang: 'en', views: 10 },
      similarity_score: 0.3328,
      similarity_percentage: '33.3%',
    });
    for (const r of res.body.results) {
      expect(r.similarity_score).toBe(Number(r.similarity_score.toFixed(4)));
      expect(r.similarity_percentage).toMatch(/^-?\d+\.\d%$/);
    }
    expect(res.body.processing_time_seconds).toBeGreaterThan(0);
    expect(res.body.processing_time_seconds).toBeLessThan(10);

    // upstream: the query in its own call, then the documents in one call; base64; dimensions
    expect(embeddingCalls(fake)).toEqual([
      {
        model: 'text-embedding-3-small',
        input: [QUERY],
        encoding_format: 'base64',
        dimensions: 1536,
        auth: `Bearer ${FAKE_OPENAI_KEY}`,
      },
      {
        model: 'text-embedding-3-small',
        input: DOCS.map((d) => d.data),
        encoding_format: 'base64',
        dimensions: 1536,
        auth: `Bearer ${FAKE_OPENAI_KEY}`,
      },
    ]);

    // cost = 51 tokens × 200 RUB / 1M = 0.0102 RUB: the balance moves by exactly that, one ledger entry
    expect(costRub(51)).toBe(0.0102);
    const after = await admin.balance(apiKey);
    expect(toMicro(before) - toMicro(after)).toBe(10_200);
    expect(await lastLedgerEntry(t.url, apiKey)).toEqual({
      id: expect.any(Number),
      kind: 'charge',
      request_id: res.headers['x-request-id'],
      reference: null,
      endpoint: '/api/v1/rerank',
      model: 'rerank-small',
      prompt_tokens: 51,
      completion_tokens: 0,
      total_tokens: 51,
      amount_rub: -0.0102,
      balance_after_rub: after,
      created_at: expect.any(String),
      fx_rate: null,
      fx_date: null,
    });
  });

  it('similarity_threshold and top_k: total vs filtered vs returned', async () => {
    const expectedAll = expectedRanking(QUERY, DOCS);
    const threshold = 0.3;
    const expected = expectedRanking(QUERY, DOCS, { threshold, topK: 2 });
    // the threshold removes some of the documents that pass 0.0, and top_k cuts further
    expect([expectedAll.filtered_documents, expected.filtered_documents]).toEqual([4, 3]);
    const res = await rerank(t.url, apiKey, {
      query: QUERY,
      content: DOCS,
      similarity_threshold: threshold,
      top_k: 2,
      caching: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual(expected.results);
    expect(res.body).toMatchObject({ total_documents: 6, filtered_documents: 3, returned_documents: 2 });
    expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(['kb-4', 'kb-6']);
    expect(res.body.parameters).toEqual({
      similarity_threshold: 0.3,
      top_k: 2,
      model: 'small',
      column_to_embed: null,
      column_id: null,
    });
    expect(res.body.results.map((r: { rank: number }) => r.rank)).toEqual([1, 2]);
    for (const r of res.body.results) expect(r.similarity_score).toBeGreaterThanOrEqual(threshold);

    // threshold 1.0: only a perfect match passes; a document equal to the query scores 1
    const exact = await rerank(t.url, apiKey, {
      query: QUERY,
      content: [...DOCS, { id: 'same', data: QUERY }],
      similarity_threshold: 1,
      caching: false,
    });
    expect(exact.status).toBe(200);
    expect(exact.body).toMatchObject({ total_documents: 7, filtered_documents: 1, returned_documents: 1 });
    expect(exact.body.results).toEqual([
      { rank: 1, id: 'same', data: QUERY, metadata: {}, similarity_score: 1, similarity_percentage: '100.0%' },
    ]);
  });

  it('ties keep input order; ids default to the index; numeric ids are stringified', async () => {
    const content = [
      { data: 'alpha beta' },
      { id: 7, data: 'gamma delta' },
      { id: 'x', data: 'beta alpha' },
      { data: 'alpha beta' },
    ];
    const res = await rerank(t.url, apiKey, { query: 'alpha beta', content, caching: false });
    expect(res.status).toBe(200);
    // the same word multiset → the same vector → score 1 for 0, 2 and 3, in input order
    expect(res.body.results.slice(0, 3)).toEqual([
      { rank: 1, id: '0', data: 'alpha beta', metadata: {}, similarity_score: 1, similarity_percentage: '100.0%' },
      { rank: 2, id: 'x', data: 'beta alpha', metadata: {}, similarity_score: 1, similarity_percentage: '100.0%' },
      { rank: 3, id: '3', data: 'alpha beta', metadata: {}, similarity_score: 1, similarity_percentage: '100.0%' },
    ]);
    expect(res.body.results).toEqual(
      expectedRanking('alpha beta', [
        { id: '0', data: 'alpha beta', metadata: {} },
        { id: '7', data: 'gamma delta', metadata: {} },
        { id: 'x', data: 'beta alpha', metadata: {} },
        { id: '3', data: 'alpha beta', metadata: {} },
      ]).results,
    );
  });

  it('model large: text-embedding-3-large at 3072 dimensions, 780 RUB per 1M tokens', async () => {
    const before = await admin.balance(apiKey);
    const res = await rerank(t.url, apiKey, { query: QUERY, content: DOCS, model: 'large', caching: false });
    expect(res.status).toBe(200);
    const expected = expectedRanking(QUERY, DOCS, { dims: DIMS.large });
    expect(res.body.results).toEqual(expected.results);
    expect(res.body.model_info).toEqual({
      model: 'large',
      embedding_model: 'text-embedding-3-large',
      dimensions: 3072,
    });
    expect(res.body.usage).toEqual({ query_tokens: 5, document_tokens: 46, total_tokens: 51, cost_rub: 0.03978 });
    expect(costRub(51, 'large')).toBe(0.03978);
    expect(res.body.parameters.model).toBe('large');
    expect(embeddingCalls(fake).map((c) => [c.model, c.dimensions, c.encoding_format])).toEqual([
      ['text-embedding-3-large', 3072, 'base64'],
      ['text-embedding-3-large', 3072, 'base64'],
    ]);
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe(51 * 780);
    expect(await lastLedgerEntry(t.url, apiKey)).toMatchObject({
      model: 'rerank-large',
      amount_rub: -0.03978,
      prompt_tokens: 51,
    });
  });

  it('plain text: 1000-character windows every 800 characters, ids chunk-i, each window embedded', async () => {
    const words = ['apple', 'river', 'stone', 'cloud', 'password', 'lamp', 'ocean', 'tiger', 'paper', 'music'];
    let text = '';
    for (let i = 0; text.length < 2500; i++) text += `${words[(i * 7) % words.length]}${i} `;
    text = text.slice(0, 2500);
    const windows: Array<[number, number]> = [
      [0, 1000],
      [800, 1800],
      [1600, 2500],
    ];
    const items = windows.map(([s, e], i) => ({
      id: `chunk-${i}`,
      data: text.slice(s, e),
      metadata: { chunk_index: i, start: s, end: e },
    }));
    const query = 'password ocean music';
    const res = await rerank(t.url, apiKey, { query, content: text, caching: false });
    expect(res.status).toBe(200);
    const expected = expectedRanking(query, items);
    expect(res.body.results).toEqual(expected.results);
    expect(res.body).toMatchObject({
      total_documents: 3,
      filtered_documents: expected.filtered_documents,
      returned_documents: expected.returned_documents,
    });
    expect(res.body.results.map((r: { data: string }) => r.data.length).sort()).toEqual(
      expected.results.map((r) => r.data.length).sort(),
    );
    const calls = embeddingCalls(fake);
    expect(calls.map((c) => c.input)).toEqual([[query], items.map((i) => i.data)]);
    expect(calls[1].input).toEqual([text.slice(0, 1000), text.slice(800, 1800), text.slice(1600)]);
    expect(res.body.usage).toEqual({
      query_tokens: 3,
      document_tokens: tokens(items.map((i) => i.data)),
      total_tokens: 3 + tokens(items.map((i) => i.data)),
      cost_rub: costRub(3 + tokens(items.map((i) => i.data))),
    });

    // a short text is one chunk covering all of it
    fake.reset();
    const short = await rerank(t.url, apiKey, { query, content: 'a short text about password music', caching: false });
    expect(short.body.results).toEqual([
      {
        rank: 1,
        id: 'chunk-0',
        data: 'a short text about password music',
        metadata: { chunk_index: 0, start: 0, end: 33 },
        similarity_score: expect.any(Number),
        similarity_percentage: expect.any(String),
      },
    ]);
    expect(short.body.results[0].similarity_score).toBe(
      Number(rawScore(query, 'a short text about password music').toFixed(4)),
    );
  });

  it('upstream failure on the documents call → 502; nothing charged (hold released), nothing cached', async () => {
    const { apiKey: key } = await admin.teamWithKey(5, 'failing-upstream');
    fake.enqueue({ route: 'embeddings' }, { route: 'embeddings', fault: faults.http(500) });
    const res = await rerank(t.url, key, { query: QUERY, content: DOCS });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({
      error: { message: expect.any(String), type: 'upstream_error', code: expect.anything(), param: null },
    });
    expect(embeddingCalls(fake).map((c) => c.input)).toEqual([[QUERY], DOCS.map((d) => d.data)]);
    const bal = await request(t.url).get('/api/v1/balance').set('api-key', key);
    expect(bal.body).toMatchObject({ balance_rub: 5, reserved_rub: 0, available_rub: 5 });
    const stats = await request(t.url).get('/api/v1/rerank/cache-stats').set('api-key', key);
    expect(stats.body).toMatchObject({ entries: 0, hits: 0, misses: 0 });
    // the next identical request is a miss (no half-filled entry), billed normally
    const again = await rerank(t.url, key, { query: QUERY, content: DOCS });
    expect(again.status).toBe(200);
    expect(again.body.cache_info).toMatchObject({ cache_hit: false, cache_status: 'stored' });
    expect(toMicro(5) - toMicro(await admin.balance(key))).toBe(51 * 200);
  });

  it('a balance too small for the hold → 402 before any upstream call', async () => {
    const { apiKey: key } = await admin.teamWithKey(0, 'empty-team');
    const res = await rerank(t.url, key, { query: QUERY, content: DOCS });
    expect(res.status).toBe(402);
    expect(res.body.error.type).toBe('insufficient_quota');
    expect(fake.requests).toHaveLength(0);
  });

  describe('tables', () => {
    const ROWS = [
      { sku: 'A-1', title: 'red running shoes', color: 'red', price: 120 },
      { sku: 'B-2', title: 'blue winter jacket', color: 'blue', price: 300 },
      { sku: 'C-3', title: 'red wool scarf', color: null, price: 35.5 },
    ];
    const query = 'red shoes';

    it('column_to_embed + column_id → data = that column, id = the id column, metadata = the rest', async () => {
      const res = await rerank(t.url, apiKey, {
        query,
        content: ROWS,
        column_to_embed: 'title',
        column_id: 'sku',
        caching: false,
      });
      expect(res.status).toBe(200);
      const items = ROWS.map((r) => ({ id: r.sku, data: r.title, metadata: { color: r.color, price: r.price } }));
      expect(res.body.results).toEqual(expectedRanking(query, items).results);
      expect(res.body.results[0]).toMatchObject({
        rank: 1,
        id: 'A-1',
        data: 'red running shoes',
        metadata: { color: 'red', price: 120 },
      });
      expect(embeddingCalls(fake)[1].input).toEqual(['red running shoes', 'blue winter jacket', 'red wool scarf']);
      expect(res.body.parameters).toEqual({
        similarity_threshold: 0,
        top_k: 10,
        model: 'small',
        column_to_embed: 'title',
        column_id: 'sku',
      });
      expect(res.body.usage.document_tokens).toBe(9);
    });

    it('only column_id → data = "key: value; …" of the other columns, metadata = the other columns', async () => {
      const res = await rerank(t.url, apiKey, { query, content: ROWS, column_id: 'sku', caching: false });
      expect(res.status).toBe(200);
      const texts = [
        'title: red running shoes; color: red; price: 120',
        'title: blue winter jacket; color: blue; price: 300',
        'title: red wool scarf; color: ; price: 35.5',
      ];
      const items = ROWS.map((r, i) => ({
        id: r.sku,
        data: texts[i],
        metadata: { title: r.title, color: r.color, price: r.price },
      }));
      expect(embeddingCalls(fake)[1].input).toEqual(texts);
      expect(res.body.results).toEqual(expectedRanking(query, items).results);
      expect(res.body.usage.document_tokens).toBe(tokens(texts));
    });

    it('neither column option → id = row index, data = the whole row as text, metadata = the row', async () => {
      const res = await rerank(t.url, apiKey, { query, content: ROWS, caching: false });
      expect(res.status).toBe(200);
      const texts = [
        'sku: A-1; title: red running shoes; color: red; price: 120',
        'sku: B-2; title: blue winter jacket; color: blue; price: 300',
        'sku: C-3; title: red wool scarf; color: ; price: 35.5',
      ];
      const items = ROWS.map((r, i) => ({ id: String(i), data: texts[i], metadata: r }));
      expect(embeddingCalls(fake)[1].input).toEqual(texts);
      expect(res.body.results).toEqual(expectedRanking(query, items).results);
      expect(res.body.parameters).toMatchObject({ column_to_embed: null, column_id: null });
    });

    it('a column that no row has → 400 naming the parameter; a row without the value → 400 naming the row', async () => {
      const missing = await rerank(t.url, apiKey, { query, content: ROWS, column_to_embed: 'name', column_id: 'sku' });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual(errorBody('invalid_request_error', 'column_to_embed'));
      expect(missing.body.error.message).toContain('"name"');
      const missingId = await rerank(t.url, apiKey, { query, content: ROWS, column_id: 'id' });
      expect(missingId.status).toBe(400);
      expect(missingId.body).toEqual(errorBody('invalid_request_error', 'column_id'));
      const nullCell = await rerank(t.url, apiKey, { query, content: ROWS, column_to_embed: 'color' });
      expect(nullCell.status).toBe(400);
      expect(nullCell.body).toEqual(errorBody('invalid_request_error', 'content[2]'));
      // column options on non-tabular content
      const onText = await rerank(t.url, apiKey, { query, content: 'plain text', column_id: 'sku' });
      expect(onText.status).toBe(400);
      expect(onText.body.error.param).toBe('column_id');
      expect(fake.requests).toHaveLength(0);
    });
  });

  it('documents are sent in batches of at most 2048 inputs; tokens are summed over the batches', async () => {
    // one word per document: the fake's embedding costs ~0.7 ms per word
    const docs = Array.from({ length: 2100 }, (_, i) => ({
      id: `d${i}`,
      data: i % 3 === 0 ? 'password' : `w${i % 40}`,
    }));
    const res = await rerank(t.url, apiKey, { query: QUERY, content: docs, top_k: 3, caching: false });
    expect(res.status).toBe(200);
    const calls = embeddingCalls(fake);
    expect(calls).toHaveLength(3);
    expect(calls[0].input).toEqual([QUERY]);
    const batchInputs = calls.slice(1).map((c) => c.input as string[]);
    batchInputs.sort((a, b) => b.length - a.length);
    expect(batchInputs.map((b) => b.length)).toEqual([2048, 52]);
    expect([...batchInputs[0], ...batchInputs[1]]).toEqual(docs.map((d) => d.data));
    expect(res.body.usage).toEqual({
      query_tokens: 5,
      document_tokens: 2100,
      total_tokens: 2105,
      cost_rub: costRub(2105),
    });
    expect(costRub(2105)).toBe(0.421);
    const expected = expectedRanking(
      QUERY,
      docs.map((d) => ({ id: d.id, data: d.data, metadata: {} })),
      { topK: 3 },
    );
    expect(res.body.results).toEqual(expected.results);
    // the 700 "password" documents tie; the first three in input order are returned
    expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(['d0', 'd3', 'd6']);
    expect(res.body).toMatchObject({
      total_documents: 2100,
      filtered_documents: expected.filtered_documents,
      returned_documents: 3,
    });
  });

  describe('validation (400) and limits (413), no upstream call and no charge', () => {
    let before: number;
    beforeEach(async () => {
      before = await admin.balance(apiKey);
    });
    afterEach(async () => {
      expect(fake.requests).toHaveLength(0);
      expect(await admin.balance(apiKey)).toBe(before);
    });

    it.each([
      ['a string among documents', [{ id: 'a', data: 'x' }, 'oops'], 'content[1]'],
      [
        'a document without data among documents',
        [
          { id: 'a', data: 'x' },
          { id: 'b', text: 'y' },
        ],
        'content[1]',
      ],
      [
        'a table row among documents (mixed)',
        [
          { id: 'a', data: 'x' },
          { sku: 'b', title: 'y' },
        ],
        'content[1]',
      ],
      [
        'a table row among documents with metadata (mixed)',
        [
          { id: 'a', data: 'x', metadata: { k: 1 } },
          { sku: 'b', title: 'y' },
        ],
        'content[1]',
      ],
      [
        'a document among table rows (mixed)',
        [
          { sku: 'b', title: 'y' },
          { id: 'a', data: 'x', metadata: { k: 1 } },
        ],
        'content[1]',
      ],
      ['data that is not a string', [{ id: 'a', data: 5 }], 'content[0]'],
      ['metadata that is not an object', [{ id: 'a', data: 'x', metadata: 'm' }], 'content[0]'],
      ['a nested value in a table row', [{ a: 'x' }, { a: { b: 1 } }], 'content[1]'],
      ['null in the array', [null], 'content[0]'],
      ['an empty array', [], 'content'],
      ['a number', 42, 'content'],
      ['a blank string', '   ', 'content'],
    ])('malformed content: %s → 400 naming %s', async (_what, content, param) => {
      const res = await rerank(t.url, apiKey, { query: QUERY, content });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody('invalid_request_error', param));
      expect(res.body.error.message).toContain(param === 'content' ? 'content' : param);
    });

    it.each([
      [{ query: '' }, 'query'],
      [{ query: '   ' }, 'query'],
      [{ query: 5 }, 'query'],
      [{ query: undefined }, 'query'],
      [{ top_k: 0 }, 'top_k'],
      [{ top_k: 1001 }, 'top_k'],
      [{ top_k: 2.5 }, 'top_k'],
      [{ similarity_threshold: 1.5 }, 'similarity_threshold'],
      [{ similarity_threshold: -0.1 }, 'similarity_threshold'],
      [{ model: 'medium' }, 'model'],
      [{ caching: 'yes' }, 'caching'],
    ])('%j → 400 naming %s', async (patch, param) => {
      const res = await rerank(t.url, apiKey, { query: QUERY, content: DOCS, ...patch });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody('invalid_request_error', param));
    });

    it('top_k 1000 and threshold 1.0 are accepted bounds (checked without upstream: malformed content still wins)', async () => {
      const res = await rerank(t.url, apiKey, { query: QUERY, content: [5], top_k: 1000, similarity_threshold: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('content[0]');
    });

    it('more than 10,000 documents → 413', async () => {
      const docs = Array.from({ length: 10_001 }, (_, i) => ({ id: String(i), data: 'x' }));
      const res = await rerank(t.url, apiKey, { query: QUERY, content: docs });
      expect(res.status).toBe(413);
      expect(res.body).toEqual(errorBody('request_too_large', 'content'));
      expect(res.body.error.message).toContain('10000');
    });

    it('more than 10,000 table rows → 413', async () => {
      const rows = Array.from({ length: 10_001 }, (_, i) => ({ n: i }));
      const res = await rerank(t.url, apiKey, { query: QUERY, content: rows });
      expect(res.status).toBe(413);
      expect(res.body.error.param).toBe('content');
    });

    it('a text of more than 10,000 chunks (8,000,201 characters) → 413', async () => {
      const res = await rerank(t.url, apiKey, { query: QUERY, content: 'a'.repeat(8_000_201) });
      expect(res.status).toBe(413);
      expect(res.body).toEqual(errorBody('request_too_large', 'content'));
      expect(res.body.error.message).toContain('10001');
    });

    it('no API key → 401', async () => {
      const res = await request(t.url).post('/api/v1/rerank').send({ query: QUERY, content: DOCS });
      expect(res.status).toBe(401);
    });
  });
});

describe(`rerank with no embedding provider configured (local lexical embedder) on ${backendKind()}`, () => {
  let t: TestApp;
  let apiKey: string;
  let admin: AdminClient;
  const cl100k = getEncoding('cl100k_base');
  const count = (s: string) => cl100k.encode(s).length;

  beforeAll(async () => {
    t = await createTestApp();
    admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(10, 'local-team'));
  });
  afterAll(() => t?.close());

  it('model_info says local-embedding-small; tokens counted with cl100k; cost from those', async () => {
    const before = await admin.balance(apiKey);
    const content = [
      { id: 'a', data: 'The invoice is due on Monday' },
      { id: 'b', data: QUERY },
      { id: 'c', data: 'Completely unrelated gardening tips' },
    ];
    const res = await rerank(t.url, apiKey, { query: QUERY, content });
    expect(res.status).toBe(200);
    expect(res.body.model_info).toEqual({ model: 'small', embedding_model: 'local-embedding-small', dimensions: 1536 });
    const q = count(QUERY);
    const d = content.reduce((a, c) => a + count(c.data), 0);
    expect(res.body.usage).toEqual({
      query_tokens: q,
      document_tokens: d,
      total_tokens: q + d,
      cost_rub: costRub(q + d),
    });
    // lexical: the identical document scores 1 and ranks first
    expect(res.body.results[0]).toMatchObject({
      rank: 1,
      id: 'b',
      similarity_score: 1,
      similarity_percentage: '100.0%',
    });
    expect(toMicro(before) - toMicro(await admin.balance(apiKey))).toBe((q + d) * 200);
    expect(res.body.cache_info).toMatchObject({
      cache_hit: false,
      cache_status: 'stored',
      tokens_used: d,
      cached_tokens: d,
    });

    const large = await rerank(t.url, apiKey, { query: QUERY, content, model: 'large' });
    expect(large.body.model_info).toEqual({
      model: 'large',
      embedding_model: 'local-embedding-large',
      dimensions: 3072,
    });
    expect(large.body.usage.cost_rub).toBe(costRub(q + d, 'large'));
  });

  it('exactly 10,000 documents are accepted (10,001 → 413)', async () => {
    const docs = Array.from({ length: 10_000 }, (_, i) => ({ id: String(i), data: `w${i % 50}` }));
    const res = await rerank(t.url, apiKey, { query: 'w7', content: docs, top_k: 1000, caching: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total_documents: 10_000, returned_documents: 1000 });
    // the 200 documents equal to the query score 1 and come first, in input order
    expect(
      res.body.results.slice(0, 200).map((r: { id: string; similarity_score: number }) => [r.id, r.similarity_score]),
    ).toEqual(Array.from({ length: 200 }, (_, k) => [String(7 + 50 * k), 1]));
    expect(res.body.results[200].similarity_score).toBeLessThan(1);
    expect(res.body.usage.document_tokens).toBe(docs.reduce((a, doc) => a + count(doc.data), 0));
    const over = await rerank(t.url, apiKey, {
      query: 'w7',
      content: [...docs, { id: 'x', data: 'w1' }],
      caching: false,
    });
    expect(over.status).toBe(413);
  });
});
