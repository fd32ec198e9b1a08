import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import {
  DocumentChunk,
  DocumentParser,
  ExtractedDocument,
  ExtractionError,
  ParsedDocument,
  textChars,
} from '../document-parser';
import type { IngestJobEntity } from '../entities/knowledge.entities';
import type { Chunking } from '../kb-rules';
import type { KnowledgeRepository } from '../knowledge.repository';
import type { PdfOcr } from '../parsers/pdf-ocr';
import { PermanentFailure } from './permanent-failure';

/**
 * Parser runs of one document that may end unfinished (parser stopped for memory or time, or the
 * replica died meanwhile) before the document fails with parse_limit_exceeded: one retry.
 */
const MAX_PARSE_RUNS = 2;

/** One parser run of a document being ingested: extraction (OCR for scans where it is available), then chunking. */
export class ParseRun {
  private readonly log = new Logger('Ingestion');

  constructor(
    private readonly repo: KnowledgeRepository,
    private readonly parser: DocumentParser,
    private readonly ocr: PdfOcr,
  ) {}

  /**
   * The parser run (extraction, then chunking unless it is an image), counted durably before it
   * starts and cleared when it finishes, so a document that stops its parser (or kills its
   * replica) is parsed at most MAX_PARSE_RUNS times in all — also when the job is claimed again
   * after a restart or by another replica.
   */
  async parse(
    job: IngestJobEntity,
    bytes: Buffer,
    hint: { filename: string; mime: string },
    chunking: Chunking,
  ): Promise<{ kind: ExtractedDocument['kind']; title?: string; pages: number; chunks: DocumentChunk[] }> {
    const id = Number(job.id);
    const unfinished = job.parseRuns ?? 0;
    if (unfinished >= MAX_PARSE_RUNS)
      throw new PermanentFailure(
        'parse_limit_exceeded',
        `The document's parser did not finish in ${unfinished} runs (stopped for memory or time, or its replica stopped); it is not parsed again.`,
      );
    await this.repo.startParseRun(id);
    try {
      let parsed: ParsedDocument | null = null;
      try {
        parsed = await this.parser.extractChunks(bytes, hint, chunking);
      } catch (err) {
        if (!(err instanceof ExtractionError && err.code === 'no_text_layer')) throw err;
      }
      if (parsed && 'chunks' in parsed) {
        await this.repo.endParseRun(id);
        return { kind: parsed.kind, title: parsed.title, pages: parsed.pageCount, chunks: parsed.chunks };
      }
      // a scan: OCR's text where this replica can read it
      const extracted = await this.scanText(bytes, parsed?.scan ?? null);
      const chunks = await this.parser.chunk(extracted, chunking);
      await this.repo.endParseRun(id);
      // the page texts end here (their chunks carry the text), so they are not held while embedding
      return { kind: extracted.kind, title: extracted.title, pages: extracted.pages.length, chunks };
    } catch (err) {
      if (err instanceof ExtractionError && err.retryable) {
        // stopped for memory or time: once more (the limit may have been hit under load), then for good
        if (unfinished + 1 >= MAX_PARSE_RUNS) throw new PermanentFailure(err.code, err.message);
        throw new Error(err.message);
      }
      // the parser finished (an ordinary parse error) or never ran (shutdown): the run does not count
      if (!(err instanceof ExtractionError)) await this.repo.endParseRun(id).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The text of a PDF whose text layer is empty or near empty (`layer`; null when it has none): OCR's
   * when this replica can OCR (child processes, within OCR_MAX_PAGES and OCR_TIMEOUT_MS). A scan that
   * cannot be read here fails with no_text_layer, the message saying how to enable OCR; a near-empty
   * text layer without OCR is indexed as it is.
   */
  private async scanText(bytes: Buffer, layer: ExtractedDocument | null): Promise<ExtractedDocument> {
    const tools = await this.ocr.available();
    if (!tools.available) {
      if (layer) return layer;
      throw new ExtractionError(
        'no_text_layer',
        `The PDF has no text layer (a scan or images only) and OCR is not available: ${tools.reason}.`,
      );
    }
    const started = performance.now();
    const pages = await this.ocr.recognize(bytes);
    const chars = textChars(pages);
    this.log.log(
      `OCR read ${pages.length} page(s), ${chars} characters, in ${Math.round(performance.now() - started)} ms`,
    );
    if (layer && textChars(layer.pages) >= chars) return layer;
    if (chars === 0)
      throw new ExtractionError(
        'no_text_layer',
        `The PDF has no text layer (a scan or images only) and OCR found no text on its ${pages.length} page(s).`,
      );
    return { kind: 'pdf', mime: 'application/pdf', ...(layer?.title ? { title: layer.title } : {}), pages };
  }
}
