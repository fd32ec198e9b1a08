/**
 * OCR of PDFs without a text layer, through the REST knowledge-base API on each backend: a scan
 * (pictures of text only, made in the test with pdftoppm) is read by tesseract and its words are
 * searchable, on the page they were on; a scan past OCR_MAX_PAGES fails parse_limit_exceeded; a PDF
 * with a text layer never starts OCR; with OCR turned off a scan fails no_text_layer with a message
 * saying how to enable it. Needs tesseract-ocr (eng, rus) and poppler-utils (`.ci/run` installs them).
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FILLER, pdfWithPages, scannedPdf } from './kb-fixtures';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function settled(url: string, apiKey: string, kb: string, doc: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 600; i++) {
    const res = await request(url).get(`/api/v1/knowledge-bases/${kb}/documents/${doc}`).set('api-key', apiKey);
    expect(res.status).toBe(200);
    if (res.body.status !== 'queued' && res.body.status !== 'in_progress') return res.body;
    await sleep(50);
  }
  throw new Error(`${doc} did not finish ingesting`);
}

/** A knowledge base holding one uploaded file; its document once ingestion settled. */
async function ingest(t: TestApp, apiKey: string, bytes: Buffer, name: string) {
  const kb = await request(t.url).post('/api/v1/knowledge-bases').set('api-key', apiKey).send({ name });
  expect(kb.status).toBe(201);
  const res = await request(t.url)
    .post(`/api/v1/knowledge-bases/${kb.body.id}/documents`)
    .set('api-key', apiKey)
    .attach('file', bytes, name);
  expect(res.status).toBe(202);
  return { kb: kb.body.id as string, doc: await settled(t.url, apiKey, kb.body.id, res.body.id) };
}

const SCAN = [FILLER, ['The vault access phrase is GREEN LANTERN and the door code is 4471.', FILLER[0]]];

describe(`OCR of scanned PDFs on ${backendKind()}`, () => {
  let t: TestApp;
  let off: TestApp;
  let apiKey: string;
  let offKey: string;
  let dir: string;
  let renders: string;

  beforeAll(async () => {
    // pdftoppm as the gateway runs it, each run recorded: OCR starts with a render
    dir = mkdtempSync(join(tmpdir(), 'ocr-e2e-'));
    renders = join(dir, 'renders.log');
    writeFileSync(join(dir, 'pdftoppm'), `#!/bin/sh\n[ "$1" = -v ] || echo run >> ${renders}\nexec pdftoppm "$@"\n`);
    chmodSync(join(dir, 'pdftoppm'), 0o755);
    t = await createTestApp({
      env: { INGEST_POLL_MS: '100', PDFTOPPM_PATH: join(dir, 'pdftoppm'), OCR_MAX_PAGES: '2' },
    });
    off = await createTestApp({ env: { INGEST_POLL_MS: '100', OCR_ENABLED: 'false' } });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(100, 'ocr-team'));
    ({ apiKey: offKey } = await new AdminClient(off.url).teamWithKey(100, 'no-ocr-team'));
  });
  afterAll(async () => {
    await t?.close();
    await off?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rendered = () => (existsSync(renders) ? readFileSync(renders, 'utf8').trim().split('\n').length : 0);

  it('a scan is read by OCR: completed with its pages, its words searchable on the page they were on', async () => {
    const before = rendered();
    const { kb, doc } = await ingest(t, apiKey, await scannedPdf(SCAN), 'vault-scan.pdf');
    expect(doc).toMatchObject({ status: 'completed', last_error: null, pages: 2 });
    expect(rendered()).toBe(before + 1);
    const hit = await request(t.url)
      .post(`/api/v1/knowledge-bases/${kb}/search`)
      .set('api-key', apiKey)
      .send({ query: 'vault access phrase GREEN LANTERN', top_k: 3 });
    expect(hit.status).toBe(200);
    expect(hit.body.results[0].source).toMatchObject({ document_id: doc.id, page: 2 });
    expect(hit.body.results[0].data).toMatch(/GREEN LANTERN/);
    expect(hit.body.results[0].data).toMatch(/4471/);
  });

  it('a PDF with a text layer never starts OCR', async () => {
    const before = rendered();
    const { doc } = await ingest(t, apiKey, await pdfWithPages(SCAN), 'vault-text.pdf');
    expect(doc).toMatchObject({ status: 'completed', pages: 2 });
    expect(rendered()).toBe(before);
  });

  it('a scan longer than OCR_MAX_PAGES fails parse_limit_exceeded, naming the limit', async () => {
    const { doc } = await ingest(t, apiKey, await scannedPdf([['One.'], ['Two.'], ['Three.']]), 'long-scan.pdf');
    expect(doc).toMatchObject({
      status: 'failed',
      last_error: { code: 'parse_limit_exceeded', message: expect.stringMatching(/more than 2 pages.*OCR_MAX_PAGES/) },
    });
  });

  it('with OCR turned off a scan fails no_text_layer, the message saying how to enable OCR', async () => {
    const { doc } = await ingest(off, offKey, await scannedPdf(SCAN), 'vault-scan.pdf');
    expect(doc).toMatchObject({
      status: 'failed',
      chunks: 0,
      last_error: {
        code: 'no_text_layer',
        message: expect.stringMatching(/no text layer.*OCR_ENABLED=true.*tesseract-ocr.*poppler-utils/),
      },
    });
  });
});
