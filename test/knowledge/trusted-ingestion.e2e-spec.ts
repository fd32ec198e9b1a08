/**
 * Ingestion you can trust, through the REST knowledge-base API on each backend: text from every
 * parser is normalised before storage (control characters and NUL removed, line breaks unified,
 * Unicode NFC), so Postgres and SQLite store the same chunks; data the database refuses fails the
 * document at once with a clear last_error instead of five retries.
 */
import { createHash } from 'node:crypto';
import type { Type } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { DocumentParser } from '@app/knowledge/document-parser';
import { IngestJobEntity, KbChunkEntity } from '@app/knowledge/entities/knowledge.entities';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { pdfWithPages } from './kb-fixtures';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the document leaves queued / in_progress and answers its record. */
async function settled(url: string, apiKey: string, kb: string, doc: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 300; i++) {
    const res = await request(url).get(`/api/v1/knowledge-bases/${kb}/documents/${doc}`).set('api-key', apiKey);
    expect(res.status).toBe(200);
    if (res.body.status !== 'queued' && res.body.status !== 'in_progress') return res.body;
    await sleep(50);
  }
  throw new Error(`${doc} did not finish ingesting`);
}

async function newKb(url: string, apiKey: string, name: string): Promise<string> {
  const res = await request(url).post('/api/v1/knowledge-bases').set('api-key', apiKey).send({ name });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe(`trusted ingestion on ${backendKind()}`, () => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { INGEST_POLL_MS: '100' } });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100, 'trust-team'));
  });
  afterAll(async () => {
    await t?.close();
  });

  const chunksOf = (doc: string) =>
    t
      .get(DataSource)
      .getRepository(KbChunkEntity)
      .find({ where: { documentId: doc }, order: { ordinal: 'ASC' } });

  it('a text file with NUL, control characters, CR LF and decomposed letters ingests as the same clean chunk on both backends', async () => {
    const kb = await newKb(t.url, apiKey, 'dirty text');
    // "Cafe\u0301" is "Café" decomposed (e + combining acute accent)
    const dirty = 'Cafe\u0301 menu:\u0000 coffee\u0007 and\ttea\r\nopen\u001b daily\fclosed\u0085Sundays\u0000';
    const res = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/documents`)
      .set('api-key', apiKey)
      .attach('file', Buffer.from(dirty, 'utf8'), 'menu.txt');
    expect(res.status).toBe(202);
    const doc = await settled(t.url, apiKey, kb, res.body.id);
    expect(doc).toMatchObject({ status: 'completed', last_error: null });
    const chunks = await chunksOf(res.body.id);
    expect(chunks.map((c) => c.text)).toEqual(['Caf\u00e9 menu: coffee and\ttea\nopen daily\nclosed\nSundays']);
    // the search finds the composed spelling
    const hit = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/search`)
      .set('api-key', apiKey)
      .send({ query: 'Caf\u00e9 menu' });
    expect(hit.status).toBe(200);
    expect(hit.body.results[0].data).toContain('Caf\u00e9 menu');
  });

  it('a PDF whose title holds NUL ingests with the title cleaned', async () => {
    const kb = await newKb(t.url, apiKey, 'pdf title');
    const pdf = await pdfWithPages([['The harbour opens at dawn for the fishing fleet.']], 'Harbour\u0000 guide\u0001');
    const res = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/documents`)
      .set('api-key', apiKey)
      .attach('file', pdf, 'harbour.pdf');
    expect(res.status).toBe(202);
    const doc = await settled(t.url, apiKey, kb, res.body.id);
    expect(doc).toMatchObject({ status: 'completed', title: 'Harbour guide' });
    expect((await chunksOf(res.body.id)).map((c) => c.text)).toEqual([
      'The harbour opens at dawn for the fishing fleet.',
    ]);
  });

  it('a corrupt PDF fails at once with parse_error (one attempt); an empty file is refused', async () => {
    const kb = await newKb(t.url, apiKey, 'odd files');
    const upload = (bytes: Buffer, name: string) =>
      request(t.url).post(`/api/v1/knowledge-bases/${kb}/documents`).set('api-key', apiKey).attach('file', bytes, name);
    const valid = await pdfWithPages([['The ferry leaves at noon.']]);
    const corrupt = Buffer.concat([valid.subarray(0, 40), Buffer.from('\u0000garbage'.repeat(50))]);
    const bad = await upload(corrupt, 'broken.pdf');
    expect(bad.status).toBe(202);
    expect(await settled(t.url, apiKey, kb, bad.body.id)).toMatchObject({
      status: 'failed',
      last_error: { code: 'parse_error' },
    });
    const job = await t.get(DataSource).getRepository(IngestJobEntity).findOneByOrFail({ documentId: bad.body.id });
    expect(job.attempts).toBe(1);
    const empty = await upload(Buffer.alloc(0), 'empty.txt');
    expect(empty.status).toBe(400);
  });

  it('binary data that happens to be valid UTF-8 (mostly control characters) is still refused with 400', async () => {
    const kb = await newKb(t.url, apiKey, 'binary');
    const res = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/documents`)
      .set('api-key', apiKey)
      .attach('file', Buffer.from('H\u0000e\u0000l\u0000l\u0000o\u0000', 'utf8'), 'utf16.txt');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('unsupported_file');
  });
});

describe(`document versions on ${backendKind()}`, () => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { INGEST_POLL_MS: '100' } });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100, 'versions-team'));
  });
  afterAll(async () => {
    await t?.close();
  });

  const upload = (kb: string, name: string, text: string, fields: Record<string, string> = {}) => {
    let req = request(t.url).post(`/api/v1/knowledge-bases/${kb}/documents`).set('api-key', apiKey);
    for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
    return req.attach('file', Buffer.from(text, 'utf8'), name);
  };
  const list = async (kb: string) => {
    const res = await request(t.url).get(`/api/v1/knowledge-bases/${kb}/documents`).set('api-key', apiKey);
    expect(res.status).toBe(200);
    return res.body.data as { id: string; filename: string; status: string; replaces: string | null }[];
  };
  const search = async (kb: string, query: string) => {
    const res = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/search`)
      .set('api-key', apiKey)
      .send({ query, top_k: 10, similarity_threshold: 0 });
    expect(res.status).toBe(200);
    return (res.body.results as { data: string; source: { document_id: string } }[]).map((r) => r.data).join('\n');
  };
  const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

  it('the same content again (any name, upload or JSON text) answers the existing document; nothing new is stored', async () => {
    const kb = await newKb(t.url, apiKey, 'dedup');
    const text = 'Parking is free for visitors on the north lot before nine.';
    const first = await upload(kb, 'parking.md', text);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ content_hash: sha256(text), replaces: null });
    const again = await upload(kb, 'copy-of-parking.md', text);
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    const json = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/documents`)
      .set('api-key', apiKey)
      .send({ name: 'parking', text });
    expect(json.status).toBe(202);
    expect(json.body.id).toBe(first.body.id);
    expect((await list(kb)).map((d) => d.id)).toEqual([first.body.id]);
    const files = await request(t.url).get('/v1/files').set('authorization', `Bearer ${apiKey}`);
    expect(files.body.data.filter((f: { filename: string }) => /parking/.test(f.filename))).toHaveLength(1);
  });

  it('new content under the same name replaces the old version once it is searchable; a failed new version keeps the old one', async () => {
    const kb = await newKb(t.url, apiKey, 'versions');
    const v1 = await upload(kb, 'policy.md', 'Version one: the office closes at five o clock sharp.');
    expect((await settled(t.url, apiKey, kb, v1.body.id)).status).toBe('completed');

    // a new version that cannot be ingested (no text) fails; the old one stays searchable
    const broken = await upload(kb, 'policy.md', '   \n\n   ');
    expect(broken.status).toBe(202);
    expect(broken.body.replaces).toBe(v1.body.id);
    expect(await settled(t.url, apiKey, kb, broken.body.id)).toMatchObject({
      status: 'failed',
      last_error: { code: 'empty_document' },
    });
    expect((await settled(t.url, apiKey, kb, v1.body.id)).status).toBe('completed');
    expect(await search(kb, 'office closes')).toContain('Version one');

    const v2 = await upload(kb, 'policy.md', 'Version two: the office closes at six in the evening.');
    expect(v2.status).toBe(202);
    expect(v2.body.id).not.toBe(v1.body.id);
    expect(v2.body.replaces).toBe(broken.body.id);
    expect(await settled(t.url, apiKey, kb, v2.body.id)).toMatchObject({
      status: 'completed',
      replaces: broken.body.id,
    });
    // the old version (and the failed one between) went in the transaction that made v2 searchable
    for (const old of [v1.body.id, broken.body.id]) {
      const gone = await request(t.url).get(`/api/v1/knowledge-bases/${kb}/documents/${old}`).set('api-key', apiKey);
      expect(gone.status).toBe(404);
    }
    expect((await list(kb)).map((d) => d.id)).toEqual([v2.body.id]);
    const found = await search(kb, 'office closes');
    expect(found).toContain('Version two');
    expect(found).not.toContain('Version one');
    const chunks = await t.get(DataSource).getRepository(KbChunkEntity).findBy({ vectorStoreId: kb });
    expect(chunks.map((c) => c.documentId)).toEqual([v2.body.id]);
  });

  it('replace=false keeps both versions', async () => {
    const kb = await newKb(t.url, apiKey, 'keep both');
    const v1 = await upload(kb, 'menu.md', 'Monday: soup of the day and fresh bread.');
    const v2 = await upload(kb, 'menu.md', 'Tuesday: pasta with tomato sauce.', { replace: 'false' });
    expect(v2.status).toBe(202);
    expect(v2.body.replaces).toBeNull();
    await settled(t.url, apiKey, kb, v1.body.id);
    expect((await settled(t.url, apiKey, kb, v2.body.id)).status).toBe('completed');
    expect((await list(kb)).map((d) => d.id).sort()).toEqual([v1.body.id, v2.body.id].sort());
    const bad = await upload(kb, 'menu.md', 'Wednesday: fish.', { replace: 'no' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('replace');
  });
});

describe(`retry and list filters on ${backendKind()}`, () => {
  let t: TestApp;
  let admin: AdminClient;

  beforeAll(async () => {
    t = await createTestApp({ env: { INGEST_POLL_MS: '100' } });
    admin = new AdminClient(t.url);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a document failed for want of money runs again after a top-up; retrying a document that is not failed is 409', async () => {
    const { apiKey, teamId } = await admin.teamWithKey(0, 'broke-team');
    const kb = await newKb(t.url, apiKey, 'retry');
    const add = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/documents`)
      .set('api-key', apiKey)
      .send({ name: 'hours', text: 'The help desk answers from eight to eight every weekday.' });
    expect(add.status).toBe(202);
    expect(await settled(t.url, apiKey, kb, add.body.id)).toMatchObject({
      status: 'failed',
      last_error: { code: 'insufficient_quota' },
    });
    await admin.topUp(teamId, 10);
    const retry = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/documents/${add.body.id}/retry`)
      .set('api-key', apiKey);
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id: add.body.id, status: 'queued', last_error: null });
    expect(await settled(t.url, apiKey, kb, add.body.id)).toMatchObject({ status: 'completed', chunks: 1 });
    const again = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/documents/${add.body.id}/retry`)
      .set('api-key', apiKey);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'document_not_failed', param: 'doc_id' });
    const unknown = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/documents/file-000000000000000000000000/retry`)
      .set('api-key', apiKey);
    expect(unknown.status).toBe(404);
  });

  it('re-adding a failed file to a vector store runs it again', async () => {
    const { apiKey, teamId } = await admin.teamWithKey(0, 'readd-team');
    const auth = { authorization: `Bearer ${apiKey}` };
    const file = await request(t.url)
      .post('/v1/files')
      .set(auth)
      .field('purpose', 'assistants')
      .attach('file', Buffer.from('Lockers are emptied every Friday evening.'), 'lockers.txt');
    expect(file.status).toBe(200);
    const vs = await request(t.url).post('/v1/vector_stores').set(auth).send({ name: 'readd' });
    const add = () =>
      request(t.url).post(`/v1/vector_stores/${vs.body.id}/files`).set(auth).send({ file_id: file.body.id });
    expect((await add()).status).toBe(200);
    expect((await settled(t.url, apiKey, vs.body.id, file.body.id)).status).toBe('failed');
    await admin.topUp(teamId, 10);
    expect((await add()).body).toMatchObject({ id: file.body.id, status: 'in_progress', last_error: null });
    expect((await settled(t.url, apiKey, vs.body.id, file.body.id)).status).toBe('completed');
  });

  it('the document list filters by status and by attributes[key]=value', async () => {
    const { apiKey } = await admin.teamWithKey(100, 'filter-team');
    const kb = await newKb(t.url, apiKey, 'filters');
    const add = (name: string, text: string, metadata?: Record<string, unknown>) =>
      request(t.url)
        .post(`/api/v1/knowledge-bases/${kb}/documents`)
        .set('api-key', apiKey)
        .send({ name, text, metadata });
    const en = (await add('en', 'Opening hours are nine to five.', { lang: 'en', year: 2026, pinned: true })).body.id;
    const ru = (await add('ru', 'Часы работы с девяти до пяти.', { lang: 'ru', year: 2025 })).body.id;
    const failed = (
      await request(t.url)
        .post(`/api/v1/knowledge-bases/${kb}/documents`)
        .set('api-key', apiKey)
        .attach('file', Buffer.from(' \n \n '), 'blank.txt')
    ).body.id;
    for (const id of [en, ru, failed]) await settled(t.url, apiKey, kb, id);
    const ids = async (query: string) => {
      const res = await request(t.url).get(`/api/v1/knowledge-bases/${kb}/documents?${query}`).set('api-key', apiKey);
      expect(res.status).toBe(200);
      return (res.body.data as { id: string }[]).map((d) => d.id).sort();
    };
    expect(await ids('status=failed')).toEqual([failed]);
    expect(await ids('status=completed')).toEqual([en, ru].sort());
    expect(await ids('status=in_progress')).toEqual([]);
    expect(await ids('attributes[lang]=en')).toEqual([en]);
    expect(await ids('attributes%5Blang%5D=ru')).toEqual([ru]);
    expect(await ids('attributes[year]=2025')).toEqual([ru]);
    expect(await ids('attributes[pinned]=true')).toEqual([en]);
    expect(await ids('attributes[lang]=en&attributes[year]=2025')).toEqual([]);
    expect(await ids('attributes[lang]=en&status=completed&limit=1')).toEqual([en]);
    expect(await ids('attributes[lang]=de')).toEqual([]);
    const bad = await request(t.url).get(`/api/v1/knowledge-bases/${kb}/documents?status=done`).set('api-key', apiKey);
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('status');
    const twice = await request(t.url)
      .get(`/api/v1/knowledge-bases/${kb}/documents?attributes[lang]=en&attributes[lang]=ru`)
      .set('api-key', apiKey);
    expect(twice.status).toBe(400);
    expect(twice.body.error.param).toBe('attributes[lang]');
  });

  it("the document list and the vector-store file list take OpenAI's filter grammar as filters=<JSON>, in the database", async () => {
    const { apiKey } = await admin.teamWithKey(100, 'grammar-team');
    const kb = await newKb(t.url, apiKey, 'grammar');
    const add = async (name: string, metadata: Record<string, unknown>) => {
      const res = await request(t.url)
        .post(`/api/v1/knowledge-bases/${kb}/documents`)
        .set('api-key', apiKey)
        .send({ name, text: `Notes about ${name} and the opening hours.`, metadata });
      expect(res.status).toBe(202);
      return res.body.id as string;
    };
    const a = await add('a', { lang: 'en', year: 2026, pinned: true, tier: 'gold' });
    const b = await add('b', { lang: 'en', year: 2024, tier: 'silver' });
    const c = await add('c', { lang: 'ru', year: '2026' });
    const d = await add('d', {});
    for (const id of [a, b, c, d]) await settled(t.url, apiKey, kb, id);
    const kbIds = async (filter: unknown, extra = '') => {
      const res = await request(t.url)
        .get(`/api/v1/knowledge-bases/${kb}/documents?filters=${encodeURIComponent(JSON.stringify(filter))}${extra}`)
        .set('api-key', apiKey);
      expect(res.status).toBe(200);
      return (res.body.data as { id: string }[]).map((x) => x.id).sort();
    };
    const sorted = (...ids: string[]) => ids.sort();
    expect(await kbIds({ type: 'eq', key: 'lang', value: 'en' })).toEqual(sorted(a, b));
    // types are strict: the number 2026 is not the string "2026"
    expect(await kbIds({ type: 'eq', key: 'year', value: 2026 })).toEqual([a]);
    expect(await kbIds({ type: 'eq', key: 'year', value: '2026' })).toEqual([c]);
    expect(await kbIds({ type: 'eq', key: 'pinned', value: true })).toEqual([a]);
    // a missing key satisfies only ne / nin
    expect(await kbIds({ type: 'ne', key: 'lang', value: 'en' })).toEqual(sorted(c, d));
    expect(await kbIds({ type: 'ne', key: 'pinned', value: true })).toEqual(sorted(b, c, d));
    expect(await kbIds({ type: 'in', key: 'tier', value: ['gold', 'silver'] })).toEqual(sorted(a, b));
    expect(await kbIds({ type: 'nin', key: 'tier', value: ['gold'] })).toEqual(sorted(b, c, d));
    expect(await kbIds({ type: 'gte', key: 'year', value: 2025 })).toEqual([a]);
    expect(await kbIds({ type: 'lt', key: 'year', value: 2025 })).toEqual([b]);
    expect(await kbIds({ type: 'gt', key: 'tier', value: 'gold' })).toEqual([b]);
    expect(await kbIds({ type: 'lt', key: 'pinned', value: true })).toEqual([]);
    expect(
      await kbIds({
        type: 'or',
        filters: [
          {
            type: 'and',
            filters: [
              { type: 'eq', key: 'lang', value: 'en' },
              { type: 'lt', key: 'year', value: 2025 },
            ],
          },
          { type: 'eq', key: 'lang', value: 'ru' },
        ],
      }),
    ).toEqual(sorted(b, c));
    // with the other filters and cursor pages
    expect(await kbIds({ type: 'eq', key: 'lang', value: 'en' }, '&attributes[tier]=gold')).toEqual([a]);
    expect(await kbIds({ type: 'eq', key: 'lang', value: 'en' }, '&order=asc&limit=1')).toEqual([a]);
    const page2 = await request(t.url)
      .get(
        `/api/v1/knowledge-bases/${kb}/documents?order=asc&limit=1&after=${a}&filters=${encodeURIComponent(JSON.stringify({ type: 'eq', key: 'lang', value: 'en' }))}`,
      )
      .set('api-key', apiKey);
    expect(page2.body).toMatchObject({ data: [{ id: b }], has_more: false });
    for (const [bad, param] of [
      ['not json', 'filters'],
      ['{"type":"eq","key":"lang"}', 'filters.value'],
      ['{"type":"near","key":"lang","value":"en"}', 'filters.type'],
      ['{"type":"eq","key":"la\\"ng","value":"en"}', 'filters.key'],
    ]) {
      const res = await request(t.url)
        .get(`/api/v1/knowledge-bases/${kb}/documents?filters=${encodeURIComponent(bad)}`)
        .set('api-key', apiKey);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(param);
    }

    // the same knowledge base as an OpenAI vector store: attributes[key]=value and filters on its file list
    const auth = { authorization: `Bearer ${apiKey}` };
    const vsIds = async (query: string) => {
      const res = await request(t.url).get(`/v1/vector_stores/${kb}/files?${query}`).set(auth);
      expect(res.status).toBe(200);
      return (res.body.data as { id: string }[]).map((x) => x.id).sort();
    };
    expect(await vsIds('attributes[lang]=en')).toEqual(sorted(a, b));
    expect(await vsIds('attributes[year]=2026')).toEqual(sorted(a, c));
    expect(
      await vsIds(`filters=${encodeURIComponent(JSON.stringify({ type: 'eq', key: 'year', value: 2026 }))}`),
    ).toEqual([a]);
    expect(
      await vsIds(
        `filter=completed&filters=${encodeURIComponent(JSON.stringify({ type: 'ne', key: 'lang', value: 'en' }))}`,
      ),
    ).toEqual(sorted(c, d));
    const vsBad = await request(t.url).get(`/v1/vector_stores/${kb}/files?filters=%7B`).set(auth);
    expect(vsBad.status).toBe(400);
    expect(vsBad.body.error.param).toBe('filters');
  });
});

/**
 * A parser that hands the worker raw text (NUL kept), standing in for a format whose text escaped
 * normalisation: Postgres refuses it (SQLSTATE 22021) on every attempt, so the document fails at
 * once. SQLite stores NUL, so this is a Postgres-only case.
 */
class RawTextParser extends DocumentParser {
  sniff(): Promise<'text'> {
    return Promise.resolve('text');
  }
  extract(bytes: Buffer) {
    return Promise.resolve({ kind: 'text' as const, mime: 'text/plain', pages: [{ page: 1, text: bytes.toString() }] });
  }
  chunk(doc: { pages: { text: string }[] }) {
    const text = doc.pages[0].text;
    return Promise.resolve([
      { ordinal: 0, page: null, text, tokens: 8, contentHash: createHash('sha256').update(text).digest('hex') },
    ]);
  }
}

(backendKind() === 'postgres' ? describe : describe.skip)('data the database refuses', () => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await createTestApp({
      env: { INGEST_POLL_MS: '100' },
      // an abstract class is the DI token
      overrides: [{ provide: DocumentParser as unknown as Type<DocumentParser>, useValue: new RawTextParser() }],
    });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100, 'refused-team'));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('fails the document at once with invalid_data (one attempt, no retries)', async () => {
    const kb = await newKb(t.url, apiKey, 'refused');
    const res = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/documents`)
      .set('api-key', apiKey)
      .attach('file', Buffer.from('a NUL \u0000 inside a longer line of text', 'utf8'), 'raw.txt');
    expect(res.status).toBe(202);
    const doc = await settled(t.url, apiKey, kb, res.body.id);
    expect(doc).toMatchObject({ status: 'failed', last_error: { code: 'invalid_data' } });
    expect((doc.last_error as { message: string }).message).toMatch(/database refused the document's data/);
    const jobs = await t.get(DataSource).getRepository(IngestJobEntity).findBy({ documentId: res.body.id });
    expect(jobs.map((j) => [j.status, j.attempts])).toEqual([['failed', 1]]);
  });
});
