/**
 * The document parsing that runs inside a parser worker (see ParserPool): type sniffing, text
 * extraction of untrusted bytes, and token chunking of the text. Only relative and library imports, so a worker loads no more than
 * the parsers themselves.
 */
import { TokenCounter, TokenEncodingName } from '@app/providers/tokenizer/token-counter';
import { indexTerms } from '@app/retrieval/terms';
import type { Chunking } from '../kb-rules';
import { chunkedOrScan, DocumentChunk, ExtractedDocument } from '../document-parser';
import { chunkDocumentText } from './chunking';
import { packChunks, PackedChunks } from './packed-chunks';
import { extractCsv, extractDocx, extractHtml, extractJson, extractPdf } from './formats';
import { normalizeText } from './normalize-text';
import type { PdfTextTool } from './pdf-text';
import { DOCX_MIME, loadFileType, sniffKind, utf8 } from './sniff';

const MIME_OF: Record<ExtractedDocument['kind'], string> = {
  pdf: 'application/pdf',
  docx: DOCX_MIME,
  html: 'text/html',
  markdown: 'text/markdown',
  text: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  image: 'image/*',
};

/**
 * The type sniffer (an ES module), loaded once when a worker starts (not during a document's wall
 * time). pdfjs is not: PDFs go to poppler's pdftotext where it is installed, and loading pdfjs costs
 * a worker about 0.25 s of CPU and 35 MB — it loads at its first PDF (see extractPdf).
 */
export async function ready(): Promise<void> {
  await loadFileType();
}

export function sniffDocument(bytes: Buffer, hint: { filename?: string; mime?: string }) {
  return sniffKind(bytes, hint);
}

/** The document's text from its format's parser, normalised for storage (see normalize-text.ts). */
export async function extractDocument(
  bytes: Buffer,
  hint: { filename?: string; mime?: string },
  pdfText: PdfTextTool | null = null,
): Promise<ExtractedDocument> {
  const doc = await extractRaw(bytes, hint, pdfText);
  const title = doc.title === undefined ? undefined : normalizeText(doc.title).trim();
  return {
    ...doc,
    pages: doc.pages.map((p) => ({ page: p.page, text: normalizeText(p.text) })),
    ...(doc.units ? { units: doc.units.map(normalizeText).filter((u) => u.trim() !== '') } : {}),
    ...(doc.title === undefined ? {} : { title: title || undefined }),
  };
}

async function extractRaw(
  bytes: Buffer,
  hint: { filename?: string; mime?: string },
  pdfText: PdfTextTool | null,
): Promise<ExtractedDocument> {
  const kind = await sniffKind(bytes, hint);
  const base = { kind, mime: MIME_OF[kind] };
  switch (kind) {
    case 'image':
      return { ...base, pages: [] };
    case 'pdf':
      return { ...base, ...(await extractPdf(bytes, pdfText)) };
    case 'docx':
      return { ...base, ...(await extractDocx(bytes)) };
    case 'html':
      return { ...base, ...extractHtml(utf8(bytes)!) };
    case 'csv':
      return { ...base, ...extractCsv(utf8(bytes)!) };
    case 'json':
      return { ...base, ...extractJson(utf8(bytes)!) };
    default: {
      const text = utf8(bytes)!;
      const heading = kind === 'markdown' ? /^# (.+)$/m.exec(text)?.[1]?.trim() : undefined;
      return { ...base, pages: [{ page: 1, text }], ...(heading ? { title: heading } : {}) };
    }
  }
}

export function chunkDocument(
  doc: ExtractedDocument,
  chunking: Chunking,
  encoding: TokenEncodingName,
): DocumentChunk[] {
  // a counter is a handle on the process-wide rank table of its encoding: cheap to make
  return chunkDocumentText(doc, chunking, new TokenCounter(encoding));
}

/** A ParsedDocument as extractAndChunk sends it: its chunks packed (packed-chunks.ts). */
export type PackedParsedDocument =
  | { kind: ExtractedDocument['kind']; title?: string; pageCount: number; packed: PackedChunks }
  | { scan: ExtractedDocument };

/**
 * Extraction and chunking in one task (ingestion): the page texts stay in this worker instead of
 * being copied to the main thread and back — a dense 10 MB PDF holds 16 MB of text. A PDF whose text
 * layer is near empty comes back whole, for OCR.
 */
export async function extractAndChunk(
  bytes: Buffer,
  hint: { filename?: string; mime?: string },
  pdfText: PdfTextTool | null,
  chunking: Chunking,
  encoding: TokenEncodingName,
): Promise<PackedParsedDocument> {
  const parsed = await chunkedOrScan(await extractDocument(bytes, hint, pdfText), (doc) =>
    chunkDocument(doc, chunking, encoding),
  );
  // sent packed: thousands of chunk objects would be decoded on the event loop's thread in one go
  if ('scan' in parsed) return parsed;
  const { chunks, ...rest } = parsed;
  return { ...rest, packed: packChunks(chunks) };
}

/** The keyword index's terms of chunk texts (stemming: seconds of CPU for a large document's chunks). */
export function chunkTerms(texts: string[]): string[] {
  return texts.map((t) => indexTerms(t));
}
