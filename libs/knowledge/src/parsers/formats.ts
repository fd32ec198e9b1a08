/**
 * Format parsers, each a maintained library: PDF text per page (pdfjs-dist, legacy build), DOCX
 * (mammoth → HTML → turndown Markdown; images left out), HTML main content (@mozilla/readability
 * over linkedom → turndown; pages past READABILITY_MAX_CHARS, and DOCX HTML past it, through the
 * streaming htmlparser2 extractor of html-text.ts instead), CSV (papaparse, one unit per row with
 * the header repeated), JSON (pretty-printed).
 * They run in a parser worker; before a library sees the bytes, the compressed parts are decoded
 * once under bounds (PDF streams, the DOCX zip) and HTML and JSON nesting is bounded.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import mammoth from 'mammoth';
import Papa from 'papaparse';
import TurndownService from 'turndown';
import {
  checkPdfStreams,
  InflateBudget,
  InflateLimits,
  unzipBounded,
  ZipFormatError,
} from '@app/common/isolation/bounded-inflate';
import { assertHtmlDepth, assertJsonDepth } from '@app/common/isolation/nesting';
import { releaseWorkerMemory } from '@app/common/isolation/worker-memory';
import { ExtractedDocument, ExtractionError } from '../document-parser';
import { htmlText } from './html-text';
import { PdfTextTool, pdftotextPages, PdfTextToolFailed, tidyPageText } from './pdf-text';

const MiB = 1024 * 1024;

/**
 * Streams of one PDF that text extraction decodes (Flate, LZW, RunLength): 256 MiB decoded in all,
 * a stream past 1 MiB at most 1000× its encoded size (page content of text compresses ~5–20×).
 */
export const PDF_INFLATE_LIMITS: InflateLimits = {
  maxInflatedBytes: 256 * MiB,
  maxRatio: 1000,
  ratioFloorBytes: MiB,
  maxEntries: 100_000,
};

/** A DOCX zip: 128 MiB inflated in all, a member past 1 MiB at most 200× (WordprocessingML ~5–20×), 10 000 members. */
export const DOCX_INFLATE_LIMITS: InflateLimits = {
  maxInflatedBytes: 128 * MiB,
  maxRatio: 200,
  ratioFloorBytes: MiB,
  maxEntries: 10_000,
};

/**
 * HTML up to this many UTF-16 code units goes through Readability (main-content detection over a
 * DOM, then Markdown); larger pages through the streaming extractor (html-text.ts), whose memory
 * does not grow with the markup: a DOM costs about 100 bytes of heap per byte of HTML.
 */
export const READABILITY_MAX_CHARS = 512 * 1024;

/** Element nesting of HTML (as Blink's tree builder caps it) and array/object nesting of JSON. */
export const MAX_NESTING_DEPTH = 512;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | null = null;
/**
 * pdfjs-dist and its worker module, both loaded here: in Node, pdfjs runs its "worker" in this
 * thread and would otherwise import the worker module on the first document (and its polyfills
 * with it); `globalThis.pdfjsWorker` is where pdfjs looks for an already loaded one.
 */
export const loadPdfJs = (): Promise<PdfJs> =>
  (pdfjs ??= keepBuiltins(async () => {
    const [lib, worker] = await Promise.all([
      import('pdfjs-dist/legacy/build/pdf.mjs'),
      import('pdfjs-dist/legacy/build/pdf.worker.mjs'),
    ]);
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return lib;
  }));

/** Objects whose built-in functions a polyfill may replace. */
const BUILTIN_HOLDERS: object[] = [
  Array,
  Array.prototype,
  Object,
  JSON,
  Math,
  String.prototype,
  Promise,
  Map.prototype,
  Set.prototype,
  RegExp.prototype,
  Object.getPrototypeOf(Uint8Array.prototype) as object,
];

/**
 * Runs `load` and then puts back every built-in function it replaced. pdfjs-dist's legacy build
 * bundles core-js, which swaps V8's own `Array.prototype.push` and `JSON.stringify` for JavaScript
 * versions (for edge cases of the spec no parser relies on) — for the whole worker thread, so
 * tokenizing and JSON slowed down too (push alone was a tenth of a PDF's extraction time).
 * Functions the runtime lacks and the polyfills add stay.
 */
async function keepBuiltins<T>(load: () => Promise<T>): Promise<T> {
  const saved = BUILTIN_HOLDERS.flatMap((holder) =>
    Reflect.ownKeys(holder).flatMap((key) => {
      const d = Object.getOwnPropertyDescriptor(holder, key);
      return d && typeof d.value === 'function' ? [{ holder, key, d }] : [];
    }),
  );
  try {
    return await load();
  } finally {
    for (const { holder, key, d } of saved)
      if (Object.getOwnPropertyDescriptor(holder, key)?.value !== d.value) Object.defineProperty(holder, key, d);
  }
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });

export function htmlToMarkdown(html: string): string {
  return turndown.turndown(html).trim();
}

/**
 * Pages read from one opening of a PDF: pdfjs keeps what it parsed for every page (objects, fonts,
 * page dictionaries) until the document is destroyed, so a long PDF is opened again after this
 * many pages, the previous opening collected at once, and its memory stays that of a few hundred
 * pages.
 */
const PDF_PAGES_PER_OPEN = 400;

/**
 * A PDF's pages and title: by poppler's pdftotext where the server has it (`tool`), else — or when
 * the tool rejects the file — by pdfjs. Streams are checked against the inflate limits first either
 * way.
 */
export async function extractPdf(
  bytes: Buffer,
  tool: PdfTextTool | null = null,
): Promise<Pick<ExtractedDocument, 'pages' | 'title'>> {
  checkPdfStreams(bytes, new InflateBudget(PDF_INFLATE_LIMITS, 'PDF'));
  if (tool) {
    try {
      return withTextLayer(await pdftotextPages(bytes, tool));
    } catch (err) {
      if (!(err instanceof PdfTextToolFailed)) throw err;
    }
  }
  return withTextLayer(await extractPdfWithPdfjs(bytes));
}

/** The pages, unless none has text: then the PDF is a scan (no_text_layer, which OCR may take up). */
function withTextLayer(doc: Pick<ExtractedDocument, 'pages' | 'title'>): Pick<ExtractedDocument, 'pages' | 'title'> {
  if (doc.pages.every((p) => p.text === ''))
    throw new ExtractionError(
      'no_text_layer',
      `The PDF has ${doc.pages.length} page(s) but no text layer (a scan or images only); run OCR first.`,
    );
  return doc;
}

async function extractPdfWithPdfjs(bytes: Buffer): Promise<Pick<ExtractedDocument, 'pages' | 'title'>> {
  const { getDocument } = await loadPdfJs();
  const open = async () => {
    try {
      return await getDocument({
        data: new Uint8Array(bytes),
        isEvalSupported: false,
        disableFontFace: true,
        useSystemFonts: false,
        verbosity: 0,
      }).promise;
    } catch (err) {
      throw new ExtractionError('parse_error', `The PDF could not be read: ${(err as Error).message}`);
    }
  };
  let doc = await open();
  try {
    const numPages = doc.numPages;
    const meta = await doc.getMetadata().catch(() => null);
    const title = (meta?.info as { Title?: unknown } | undefined)?.Title;
    const pages: { page: number; text: string }[] = [];
    for (let n = 1; n <= numPages; n++) {
      if (n > 1 && (n - 1) % PDF_PAGES_PER_OPEN === 0) {
        await doc.destroy();
        releaseWorkerMemory();
        doc = await open();
      }
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str;
        text += item.hasEOL ? '\n' : item.str.endsWith(' ') ? '' : ' ';
      }
      pages.push({ page: n, text: tidyPageText(text) });
      page.cleanup();
    }
    return { pages, ...(typeof title === 'string' && title.trim() ? { title: title.trim() } : {}) };
  } finally {
    await doc.destroy();
  }
}

const NO_IMAGE_DATA = mammoth.images.imgElement(() => Promise.resolve({ src: '' }));

export async function extractDocx(bytes: Buffer): Promise<Pick<ExtractedDocument, 'pages' | 'title'>> {
  try {
    unzipBounded(bytes, new InflateBudget(DOCX_INFLATE_LIMITS, 'DOCX'), () => false);
  } catch (err) {
    if (err instanceof ZipFormatError)
      throw new ExtractionError('parse_error', `The DOCX could not be read: ${err.message}`);
    throw err;
  }
  let html: string;
  try {
    // images are not indexed: an empty source instead of mammoth's default base64 data URI (which
    // put megabytes of base64 into the text, and its chunks into the index)
    html = (await mammoth.convertToHtml({ buffer: bytes }, { convertImage: NO_IMAGE_DATA })).value;
  } catch (err) {
    throw new ExtractionError('parse_error', `The DOCX could not be read: ${(err as Error).message}`);
  }
  // large documents through the streaming extractor, like large HTML pages (see READABILITY_MAX_CHARS)
  let text: string;
  if (html.length > READABILITY_MAX_CHARS) text = htmlText(html, MAX_NESTING_DEPTH).text;
  else {
    assertHtmlDepth(html, MAX_NESTING_DEPTH);
    text = htmlToMarkdown(html);
  }
  const heading = /^#{1,3} (.+)$/m.exec(text)?.[1];
  return { pages: [{ page: 1, text }], ...(heading ? { title: heading.trim() } : {}) };
}

export function extractHtml(html: string): Pick<ExtractedDocument, 'pages' | 'title'> {
  if (html.length > READABILITY_MAX_CHARS) {
    const { text, title } = htmlText(html, MAX_NESTING_DEPTH);
    return { pages: [{ page: 1, text }], ...(title ? { title } : {}) };
  }
  assertHtmlDepth(html, MAX_NESTING_DEPTH);
  const { document } = parseHTML(html);
  const pageTitle = document.querySelector('title')?.textContent?.trim() || undefined;
  // Readability mutates the document; it is ours to throw away
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0]).parse();
  const text = article?.content
    ? htmlToMarkdown(article.content)
    : (document.body?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const title = article?.title?.trim() || pageTitle;
  return { pages: [{ page: 1, text }], ...(title ? { title } : {}) };
}

export function extractJson(text: string): Pick<ExtractedDocument, 'pages'> {
  assertJsonDepth(text, MAX_NESTING_DEPTH);
  return { pages: [{ page: 1, text: JSON.stringify(JSON.parse(text), null, 2) }] };
}

/** CSV: every row becomes "column: value; column2: value2" — a unit that never loses its header. */
export function extractCsv(text: string): Pick<ExtractedDocument, 'pages' | 'units'> {
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: 'greedy' });
  const fields = parsed.meta.fields ?? [];
  const units = parsed.data.map((row) =>
    fields
      .filter((f) => row[f] !== undefined && row[f] !== '')
      .map((f) => `${f}: ${row[f]}`)
      .join('; '),
  );
  return { pages: [{ page: 1, text: units.join('\n') }], units: units.filter(Boolean) };
}

/** Is this UTF-8 text a table? papaparse must find ≥ 2 columns and the same count on every row. */
export function looksLikeCsv(text: string): boolean {
  const sample = text.slice(0, 64 * 1024);
  const parsed = Papa.parse<string[]>(sample, { preview: 50, skipEmptyLines: 'greedy' });
  const rows = parsed.data;
  if (rows.length < 2 || parsed.errors.some((e) => e.type === 'Quotes')) return false;
  const width = rows[0].length;
  return (
    width >= 2 &&
    rows.every((r) => r.length === width) &&
    (parsed.meta.delimiter === ',' || parsed.meta.delimiter === ';' || parsed.meta.delimiter === '\t')
  );
}
