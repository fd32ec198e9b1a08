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
