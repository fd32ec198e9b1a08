import { indexTerms } from '@app/retrieval/terms';
import type { Chunking } from './kb-rules';

/** What a parser extracted from a document: text per page (PDF) or one page; CSV rows as units. */
export interface ExtractedDocument {
  kind: 'pdf' | 'docx' | 'html' | 'markdown' | 'text' | 'csv' | 'json' | 'image';
  mime: string;
  title?: string;
  pages: { page: number; text: string }[];
  /** CSV: one self-contained unit per row (header repeated) */
  units?: string[];
}

export interface DocumentChunk {
  ordinal: number;
  page: number | null;
  text: string;
  tokens: number;
  contentHash: string;
}

/** A document that cannot be ingested, with the `last_error.code` it reports. */
export class ExtractionError extends Error {
  constructor(
    readonly code:
      | 'unsupported_file'
      | 'no_text_layer'
      | 'file_too_large'
      | 'parse_error'
      | 'empty_document'
      | 'parse_limit_exceeded',
    message: string,
    /**
     * parse_limit_exceeded only: the parser was stopped for memory or time (which load can cause)
     * rather than by a bound the same bytes always cross
     */
    readonly retryable = false,
  ) {
    super(message);
    this.name = 'ExtractionError';
  }
}

/**
 * Turns bytes into text and chunks (type sniffing by content, maintained parsers per format,
 * token-based chunking). An abstract class so it is the DI token. `sniff` and `extract` read
 * untrusted bytes and `chunk` tokenizes what they produce: all run in a parser worker, off the event
 * loop, within memory and time limits; a document past a limit fails with
 * ExtractionError('parse_limit_exceeded').
 */
export abstract class DocumentParser {
  /** Type by content; throws ExtractionError('unsupported_file') for anything not ingestible or storable. */
  abstract sniff(bytes: Buffer, hint: { filename?: string; mime?: string }): Promise<ExtractedDocument['kind']>;
  abstract extract(bytes: Buffer, hint: { filename?: string; mime?: string }): Promise<ExtractedDocument>;
  abstract chunk(doc: ExtractedDocument, chunking: Chunking): Promise<DocumentChunk[]>;

  /**
   * Extraction and chunking in one step, for ingestion: the chunks with the document's kind, title
   * and page count — or, for a PDF whose text layer is empty or near empty, that layer alone
   * (`scan`), for OCR to read instead. A parser may do both in one place so the page texts never
   * travel (see LibraryDocumentParser).
   */
  async extractChunks(
    bytes: Buffer,
    hint: { filename?: string; mime?: string },
    chunking: Chunking,
  ): Promise<ParsedDocument> {
    return chunkedOrScan(await this.extract(bytes, hint), (doc) => this.chunk(doc, chunking));
  }

  /**
   * The keyword index's terms of each text (@app/retrieval indexTerms), in order. Stemming a
   * document's chunks is seconds of CPU: a parser that has workers computes them there
   * (LibraryDocumentParser); this default computes them inline.
   */
  async indexTerms(texts: string[]): Promise<string[]> {
    return Promise.resolve(texts.map((t) => indexTerms(t)));
  }
}

/** What ingestion gets from `extractChunks`. */
export type ParsedDocument =
  | { kind: ExtractedDocument['kind']; title?: string; pageCount: number; chunks: DocumentChunk[] }
  | { scan: ExtractedDocument };

/**
 * What ingestion does with an extracted document: a scan (near-empty PDF text layer) goes back
 * whole, for OCR; an image has no chunks; anything else is chunked by `chunk`.
 */
export async function chunkedOrScan(
  doc: ExtractedDocument,
  chunk: (doc: ExtractedDocument) => DocumentChunk[] | Promise<DocumentChunk[]>,
): Promise<ParsedDocument> {
  if (textLayerNearEmpty(doc)) return { scan: doc };
  return {
    kind: doc.kind,
    ...(doc.title === undefined ? {} : { title: doc.title }),
    pageCount: doc.pages.length,
    chunks: doc.kind === 'image' ? [] : await chunk(doc),
  };
}

/** A text layer with fewer letters and digits than this per page on average is a scan's (page numbers, a stamp). */
const MIN_CHARS_PER_PAGE = 16;

/** Letters and digits of a document's text. */
export function textChars(pages: { text: string }[]): number {
  return pages.reduce((n, p) => n + (p.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0), 0);
}

/** True when a PDF's text layer is empty or near empty: a scan whose text only OCR can read. */
export function textLayerNearEmpty(doc: ExtractedDocument): boolean {
  if (doc.kind !== 'pdf' || doc.pages.length === 0) return false;
  return textChars(doc.pages) < MIN_CHARS_PER_PAGE * doc.pages.length;
}
