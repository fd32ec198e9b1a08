import { AppConfig } from '@app/config';
import { ParserPool } from '@app/common';
import { TokenCounter } from '@app/providers/tokenizer/token-counter';
import { ExtractionError } from '@app/knowledge/document-parser';
import { extractPdf } from '@app/knowledge/parsers/formats';
import { PdfTextTool, pdftotextPages, PdfTextToolFailed, pdftotextVersion } from '@app/knowledge/parsers/pdf-text';
import { LibraryDocumentParser } from '@app/knowledge/parsers/library-document-parser';
import { pdfWithPages as pdf } from './kb-fixtures';

const TOOL: PdfTextTool = { path: 'pdftotext', memoryMb: 512, timeoutMs: 30_000 };

describe('PDF text by pdftotext (poppler), pdfjs where it is absent or refuses', () => {
  beforeAll(async () => {
    if (!(await pdftotextVersion('pdftotext')))
      throw new Error('pdftotext is not installed here: apt-get install -y poppler-utils (.ci/run installs it)');
  });

  it('gives the same pages, page numbers and title as pdfjs; entities in title and text are decoded', async () => {
    const bytes = await pdf(
      [
        ['Tariffs & fees <2026>', 'Standard plan: 1 200 RUB per month.', 'Cancel "any" time.'],
        [],
        ['Appendix: the harbour opens at dawn.'],
      ],
      'Price list & <terms>',
    );
    const poppler = await extractPdf(bytes, TOOL);
    const pdfjs = await extractPdf(bytes, null);
    expect(poppler.title).toBe('Price list & <terms>');
    expect(poppler.pages.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(poppler.pages[0].text).toBe(
      'Tariffs & fees <2026>\nStandard plan: 1 200 RUB per month.\nCancel "any" time.',
    );
    expect(poppler.pages[1].text).toBe('');
    expect(poppler).toEqual(pdfjs);
  });

  it('a PDF without text is no_text_layer; a damaged one is refused by the tool and judged by pdfjs', async () => {
    const blank = await pdf([[], []]);
    await expect(extractPdf(blank, TOOL)).rejects.toMatchObject({ code: 'no_text_layer' });

    const damaged = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2048, 0x41)]);
    await expect(pdftotextPages(damaged, TOOL)).rejects.toBeInstanceOf(PdfTextToolFailed);
    const err = await extractPdf(damaged, TOOL).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractionError);
    expect(err).toMatchObject({ code: 'parse_error', message: expect.stringMatching(/^The PDF could not be read/) });
  });

  it('a run past its time limit is killed: parse_limit_exceeded, retryable', async () => {
    const long = await pdf(Array.from({ length: 200 }, (_, i) => [`Page ${i + 1} of a long report.`]));
    const err = await pdftotextPages(long, { ...TOOL, timeoutMs: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractionError);
    expect(err).toMatchObject({ code: 'parse_limit_exceeded', retryable: true });
  });

  it('the parser uses pdftotext where it runs, pdfjs when told to or when the tool is missing', async () => {
    const pool = new ParserPool(AppConfig.fromEnv({}));
    const parser = (env: Record<string, string>) =>
      new LibraryDocumentParser({ embeddings: new TokenCounter('cl100k_base') } as never, pool, AppConfig.fromEnv(env));
    try {
      expect(await parser({}).pdfTextTool()).toEqual({ path: 'pdftotext', memoryMb: 512, timeoutMs: 60_000 });
      expect(await parser({ PDF_TEXT_ENGINE: 'pdfjs' }).pdfTextTool()).toBeNull();
      const missing = parser({ PDFTOTEXT_PATH: '/nonexistent/pdftotext' });
      expect(await missing.pdfTextTool()).toBeNull();
      // and documents still parse, by pdfjs
      const doc = await missing.extract(await pdf([['Still readable without poppler.']], 'Fallback'), {
        filename: 'a.pdf',
      });
      expect(doc).toMatchObject({
        kind: 'pdf',
        title: 'Fallback',
        pages: [{ page: 1, text: 'Still readable without poppler.' }],
      });
      expect(() => AppConfig.fromEnv({ PDF_TEXT_ENGINE: 'fast' })).toThrow(/PDF_TEXT_ENGINE must be auto or pdfjs/);
    } finally {
      await pool.onApplicationShutdown();
    }
  });
});
