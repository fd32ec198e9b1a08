import { Injectable, Logger } from '@nestjs/common';
import { join } from 'node:path';
import { ParseLimitError, ParserPool, ParserTask, ParserTaskError } from '@app/common';
import { AppConfig } from '@app/config';
import { TokenCounter, TokenizerService } from '@app/providers';
import { DocumentChunk, DocumentParser, ExtractedDocument, ExtractionError, ParsedDocument } from '../document-parser';
import { Chunking } from '../kb-rules';
import { MAX_FILE_BYTES } from '../files.service';
import type { PackedParsedDocument } from './document-tasks';
import { unpackChunks } from './packed-chunks';
import { PdfTextTool, pdftotextVersion } from './pdf-text';

/** Sniffing and extraction run in a parser worker (document-tasks.ts). */
const TASKS = join(__dirname, 'document-tasks');
const SNIFF_TASK: ParserTask = { module: TASKS, fn: 'sniffDocument' };
const EXTRACT_TASK: ParserTask = { module: TASKS, fn: 'extractDocument' };
const CHUNK_TASK: ParserTask = { module: TASKS, fn: 'chunkDocument' };
const EXTRACT_AND_CHUNK_TASK: ParserTask = { module: TASKS, fn: 'extractAndChunk' };
const TERMS_TASK: ParserTask = { module: TASKS, fn: 'chunkTerms' };

/**
 * Type by content, then the format's parser, then token chunking with the embedding tokenizer —
 * all three in a parser worker of the ParserPool: off the event loop, within its memory and time
 * limits. A PDF's text layer is read by poppler's pdftotext where the server has it (probed once),
 * else by pdfjs (PDF_TEXT_ENGINE).
 */
@Injectable()
export class LibraryDocumentParser extends DocumentParser {
  private readonly log = new Logger('DocumentParser');
  private readonly tokens: TokenCounter;
  private pdfText?: Promise<PdfTextTool | null>;

  constructor(
    tokenizers: TokenizerService,
    private readonly pool: ParserPool,
    private readonly config: AppConfig,
  ) {
    super();
    this.tokens = tokenizers.embeddings;
  }

  /** pdftotext as the parser workers run it, or null for pdfjs (turned off, or not installed). */
  pdfTextTool(): Promise<PdfTextTool | null> {
    this.pdfText ??= (async () => {
      const { engine, pdftotextPath } = this.config.pdfText;
      if (engine === 'pdfjs') return null;
      const path = pdftotextPath ?? 'pdftotext';
      const version = await pdftotextVersion(path);
      if (!version) {
        this.log.warn(
          `PDF text by pdfjs: ${path} not found (install poppler-utils, or set PDFTOTEXT_PATH, for faster PDF ingestion)`,
        );
        return null;
      }
      this.log.log(`PDF text by ${path} (${version})`);
      return { path, memoryMb: this.config.parserMemoryMb, timeoutMs: this.config.parserTimeoutMs };
    })();
    return this.pdfText;
  }

  async sniff(bytes: Buffer, hint: { filename?: string; mime?: string }): Promise<ExtractedDocument['kind']> {
    this.assertSize(bytes);
    return this.isolated(() => this.pool.run<ExtractedDocument['kind']>(SNIFF_TASK, bytes, hint));
  }

  async extract(bytes: Buffer, hint: { filename?: string; mime?: string }): Promise<ExtractedDocument> {
    this.assertSize(bytes);
    const pdfText = await this.pdfTextTool();
    return this.isolated(() => this.pool.run<ExtractedDocument>(EXTRACT_TASK, bytes, hint, pdfText));
  }

  private assertSize(bytes: Buffer): void {
    if (bytes.length > MAX_FILE_BYTES)
      throw new ExtractionError('file_too_large', `The file is ${bytes.length} bytes; files are limited to 10 MB.`);
  }

  /** Both in one worker task: the page texts never leave the worker. */
  override async extractChunks(
    bytes: Buffer,
    hint: { filename?: string; mime?: string },
    chunking: Chunking,
  ): Promise<ParsedDocument> {
    this.assertSize(bytes);
    const pdfText = await this.pdfTextTool();
    const parsed = await this.isolated(() =>
      this.pool.run<PackedParsedDocument>(EXTRACT_AND_CHUNK_TASK, bytes, hint, pdfText, chunking, this.tokens.encoding),
    );
    if ('scan' in parsed) return parsed;
    const { packed, ...rest } = parsed;
    return { ...rest, chunks: await unpackChunks(packed) };
  }

  /** A worker's failure as the ExtractionError it stands for. */
  private async isolated<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ParseLimitError)
        throw new ExtractionError('parse_limit_exceeded', err.message, !err.deterministic);
      if (err instanceof ParserTaskError && err.errorName === 'ExtractionError')
        throw new ExtractionError(err.code as ExtractionError['code'], err.message, err.retryable);
      if (err instanceof ParserTaskError)
        throw new ExtractionError('parse_error', `The file could not be read: ${err.message}`);
      throw err;
    }
  }

  /**
   * Token windows (see chunking.ts), computed in a parser worker with the embedding tokenizer's
   * encoding: tokenizing megabytes of text would hold the event loop for seconds.
   */
  async chunk(doc: ExtractedDocument, chunking: Chunking): Promise<DocumentChunk[]> {
    return this.isolated(() => this.pool.run<DocumentChunk[]>(CHUNK_TASK, doc, chunking, this.tokens.encoding));
  }

  /** The keyword terms of chunk texts, stemmed in a parser worker: on the event loop they held it for seconds. */
  override async indexTerms(texts: string[]): Promise<string[]> {
    return this.pool.run<string[]>(TERMS_TASK, texts);
  }
}
