import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { AppConfig } from '@app/config';
import { ExtractedDocument, ExtractionError } from '../document-parser';
import { textLayerNearEmpty } from '../document-parser';
import { PdfOcr } from './pdf-ocr';

const pdf = (pages: string[]): ExtractedDocument => ({
  kind: 'pdf',
  mime: 'application/pdf',
  pages: pages.map((text, i) => ({ page: i + 1, text })),
});

async function blankPdf(pages: number, size = 200): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([size, size]);
  return Buffer.from(await doc.save());
}

const ocr = (env: Record<string, string>) => new PdfOcr(AppConfig.fromEnv(env));

describe('textLayerNearEmpty', () => {
  it('is true for a PDF whose pages hold nothing or only page numbers and stamps', () => {
    expect(textLayerNearEmpty(pdf(['', '']))).toBe(true);
    expect(textLayerNearEmpty(pdf(['1', '2', 'Scanned 3']))).toBe(true);
  });

  it('is false for a PDF with text, and for other formats', () => {
    expect(textLayerNearEmpty(pdf(['The quarterly report covers revenue and hiring.', '']))).toBe(false);
    expect(textLayerNearEmpty({ kind: 'text', mime: 'text/plain', pages: [{ page: 1, text: '' }] })).toBe(false);
  });
});

describe('PdfOcr', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pdf-ocr-spec-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is not available when turned off, saying how to turn it on', async () => {
    const tools = await ocr({ OCR_ENABLED: 'false' }).available();
    expect(tools).toEqual({ available: false, reason: expect.stringMatching(/OCR_ENABLED=false.*OCR_ENABLED=true/) });
    await expect(ocr({ OCR_ENABLED: 'false' }).recognize(await blankPdf(1))).rejects.toMatchObject({
      code: 'no_text_layer',
    });
  });

  it('is not available without the tools, naming the missing one and the packages to install', async () => {
    const tools = await ocr({ TESSERACT_PATH: join(dir, 'absent') }).available();
    expect(tools).toEqual({
      available: false,
      reason: expect.stringMatching(/^tesseract not found; install tesseract-ocr .*poppler-utils/),
    });
  });

  it('finds tesseract (English and Russian) and pdftoppm on PATH', async () => {
    await expect(ocr({}).available()).resolves.toMatchObject({ available: true, languages: 'eng+rus' });
  });

  it('a document past OCR_MAX_PAGES fails parse_limit_exceeded for good (no recognition run)', async () => {
    const err = await ocr({ OCR_MAX_PAGES: '2' })
      .recognize(await blankPdf(3))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractionError);
    expect(err).toMatchObject({ code: 'parse_limit_exceeded', retryable: false });
    expect((err as Error).message).toMatch(/more than 2 pages.*OCR_MAX_PAGES/);
  });

  it('caps the memory of each tool: a page of 200 × 200 inches (1.6 GB of pixels) fails instead of being rendered', async () => {
    const err = await ocr({ OCR_MEMORY_MB: '128' })
      .recognize(await blankPdf(1, 14_400))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractionError);
    expect(err).toMatchObject({
      code: 'parse_limit_exceeded',
      retryable: false,
      message: expect.stringMatching(/more than 128 MB \(OCR_MEMORY_MB\)/),
    });
  });

  it('kills recognition at OCR_TIMEOUT_MS (retryable: load can cause it) and removes its temporary directory', async () => {
    // a tesseract that answers the probe and then hangs on a page, recording the image it was given
    const log = join(dir, 'pages.log');
    const hanging = join(dir, 'tesseract');
    writeFileSync(
      hanging,
      `#!/bin/sh\ncase "$1" in -v|--list-langs) exec tesseract "$@";; esac\necho "$1" >> ${log}\nexec sleep 30\n`,
    );
    chmodSync(hanging, 0o755);
    const started = Date.now();
    const err = await ocr({ TESSERACT_PATH: hanging, OCR_TIMEOUT_MS: '1500' })
      .recognize(await blankPdf(1))
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(err).toMatchObject({ code: 'parse_limit_exceeded', retryable: true });
    expect((err as Error).message).toMatch(/did not finish in 1500 ms \(OCR_TIMEOUT_MS\)/);
    const image = readFileSync(log, 'utf8').trim();
    expect(image).toMatch(/gw-ocr-.*page-1\.png$/);
    expect(existsSync(dirname(image))).toBe(false);
  });
});
