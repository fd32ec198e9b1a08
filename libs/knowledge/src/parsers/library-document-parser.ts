import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ParseLimitError, ParserPool, ParserTask, ParserTaskError } from '@app/common';
import { TokenCounter, TokenizerService } from '@app/providers';
import { DocumentChunk, DocumentParser, ExtractedDocument, ExtractionError } from '../document-parser';
import { Chunking, splitMessages } from '../kb-rules';
import { MAX_FILE_BYTES } from '../files.service';

/** Sniffing and extraction run in a parser worker (document-tasks.ts). */
const TASKS = join(__dirname, 'document-tasks');
const SNIFF_TASK: ParserTask = { module: TASKS, fn: 'sniffDocument' };
const EXTRACT_TASK: ParserTask = { module: TASKS, fn: 'extractDocument' };

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * Message windows also end after a message whose hash is ≡ 0 mod 8 (about 8 messages per window),
 * so boundaries depend on the messages themselves, not on where the transcript starts: when old
 * messages are dropped or new ones appended (webhook events), only the windows at the edges change
 * and the others keep their content hash — and their vectors, which are not embedded or billed again.
 */
const endsWindow = (unit: string): boolean => createHash('sha256').update(unit).digest()[0] % 8 === 0;

/**
 * Type by content, then the format's parser (both in a parser worker of the ParserPool: off the
 * event loop, within its memory and time limits), then token chunking with the embedding tokenizer.
 */
@Injectable()
export class LibraryDocumentParser extends DocumentParser {
  private readonly tokens: TokenCounter;

  constructor(
    tokenizers: TokenizerService,
    private readonly pool: ParserPool,
  ) {
    super();
    this.tokens = tokenizers.embeddings;
  }

  async sniff(bytes: Buffer, hint: { filename?: string; mime?: string }): Promise<ExtractedDocument['kind']> {
    this.assertSize(bytes);
    return this.isolated(() => this.pool.run<ExtractedDocument['kind']>(SNIFF_TASK, bytes, hint));
  }

  async extract(bytes: Buffer, hint: { filename?: string; mime?: string }): Promise<ExtractedDocument> {
    this.assertSize(bytes);
    return this.isolated(() => this.pool.run<ExtractedDocument>(EXTRACT_TASK, bytes, hint));
  }

  private assertSize(bytes: Buffer): void {
    if (bytes.length > MAX_FILE_BYTES)
      throw new ExtractionError('file_too_large', `The file is ${bytes.length} bytes; files are limited to 10 MB.`);
  }

  /** A worker's failure as the ExtractionError it stands for. */
  private async isolated<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof ParseLimitError)
        throw new ExtractionError('parse_limit_exceeded', err.message, !err.deterministic);
      if (err instanceof ParserTaskError && err.errorName === 'ExtractionError')
        throw new ExtractionError(err.code as ExtractionError['code'], err.message);
      if (err instanceof ParserTaskError)
        throw new ExtractionError('parse_error', `The file could not be read: ${err.message}`);
      throw err;
    }
  }

  /**
   * Token windows of `maxTokens` advancing by `maxTokens − overlapTokens`, inside each page (a chunk
   * never spans pages, so it keeps its page number). CSV rows are grouped whole into chunks, and so
   * are chat messages (`messages` chunking), whose windows also end at content-defined boundaries.
   */
  chunk(doc: ExtractedDocument, chunking: Chunking): DocumentChunk[] {
    const out: DocumentChunk[] = [];
    const push = (text: string, page: number | null, tokens: number) => {
      const t = text.trim();
      if (t) out.push({ ordinal: out.length, page, text: t, tokens, contentHash: sha256(t) });
    };
    // chats: whole messages are the units, so a window never splits a message (unless one alone is too long)
    const units =
      doc.units ?? (chunking.type === 'messages' ? doc.pages.flatMap((p) => splitMessages(p.text)) : undefined);
    if (units) {
      let group: string[] = [];
      let groupTokens = 0;
      for (const unit of units) {
        const n = this.tokens.count(unit);
        if (group.length > 0 && groupTokens + n > chunking.maxTokens) {
          push(group.join('\n'), null, groupTokens);
          group = [];
          groupTokens = 0;
        }
        if (n > chunking.maxTokens) {
          this.windows(unit, chunking, null, push);
          continue;
        }
        group.push(unit);
        groupTokens += n;
        if (chunking.type === 'messages' && endsWindow(unit)) {
          push(group.join('\n'), null, groupTokens);
          group = [];
          groupTokens = 0;
        }
      }
      if (group.length > 0) push(group.join('\n'), null, groupTokens);
      return out;
    }
    const paged = doc.kind === 'pdf';
    for (const p of doc.pages) this.windows(p.text, chunking, paged ? p.page : null, push);
    return out;
  }

  private windows(
    text: string,
    c: Chunking,
    page: number | null,
    push: (text: string, page: number | null, tokens: number) => void,
  ): void {
    const ids = this.tokens.encode(text);
    if (ids.length === 0) return;
    const stride = c.maxTokens - c.overlapTokens;
    for (let start = 0; start < ids.length; start += stride) {
      const slice = ids.slice(start, start + c.maxTokens);
      push(this.tokens.decode(slice), page, slice.length);
      if (start + c.maxTokens >= ids.length) break;
    }
  }
}
