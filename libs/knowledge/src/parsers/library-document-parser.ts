import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { TokenCounter, TokenizerService } from '@app/providers';
import { DocumentChunk, DocumentParser, ExtractedDocument, ExtractionError } from '../document-parser';
import { Chunking, splitMessages } from '../kb-rules';
import { MAX_FILE_BYTES } from '../files.service';
import { extractCsv, extractDocx, extractHtml, extractPdf, looksLikeCsv } from './formats';

/** file-type is ESM-only and its typings need a newer moduleResolution: the part used here. */
interface FileTypeModule {
  fileTypeFromBuffer(bytes: Uint8Array): Promise<{ ext: string; mime: string } | undefined>;
}
const FILE_TYPE = 'file-type/core';
let fileType: Promise<FileTypeModule> | null = null;
const loadFileType = (): Promise<FileTypeModule> => (fileType ??= import(FILE_TYPE) as Promise<FileTypeModule>);

const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const IMAGE_MIMES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
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

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * Message windows also end after a message whose hash is ≡ 0 mod 8 (about 8 messages per window),
 * so boundaries depend on the messages themselves, not on where the transcript starts: when old
 * messages are dropped or new ones appended (webhook events), only the windows at the edges change
 * and the others keep their content hash — and their vectors, which are not embedded or billed again.
 */
const endsWindow = (unit: string): boolean => createHash('sha256').update(unit).digest()[0] % 8 === 0;

function utf8(bytes: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
}

/**
 * Type by content (file-type's magic numbers for binary formats; for text: JSON.parse, an HTML
 * document shape, papaparse's table check; the name is only a tie-breaker between Markdown and
 * plain text), then the format's parser, then token chunking with the embedding tokenizer.
 */
@Injectable()
export class LibraryDocumentParser extends DocumentParser {
  private readonly tokens: TokenCounter;

  constructor(tokenizers: TokenizerService) {
    super();
    this.tokens = tokenizers.embeddings;
  }

  async sniff(bytes: Buffer, hint: { filename?: string; mime?: string }): Promise<ExtractedDocument['kind']> {
    if (bytes.length > MAX_FILE_BYTES)
      throw new ExtractionError('file_too_large', `The file is ${bytes.length} bytes; files are limited to 10 MB.`);
    const { fileTypeFromBuffer } = await loadFileType();
    const detected = await fileTypeFromBuffer(bytes);
    if (detected) {
      if (detected.mime === 'application/pdf') return 'pdf';
      if (detected.mime === DOCX_MIME) return 'docx';
      if (IMAGE_MIMES.has(detected.mime)) return 'image';
      // xml-based text formats are still text; anything else binary is refused
      if (detected.mime !== 'application/xml' && detected.mime !== 'text/xml') throw this.unsupported(detected.mime);
    }
    const text = utf8(bytes);
    if (text === null || text.includes('\u0000')) throw this.unsupported('binary data');
    const head = text.slice(0, 4096).trimStart();
    if (/^[[{]/.test(head)) {
      try {
        JSON.parse(text);
        return 'json';
      } catch {
        /* not JSON: fall through */
      }
    }
    if (
      /^(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(head) ||
      /<(html|body)[\s>][\s\S]*<\/(html|body)>/i.test(text.slice(0, 256 * 1024))
    )
      return 'html';
    if (looksLikeCsv(text) && !/\.(md|markdown)$/i.test(hint.filename ?? '')) return 'csv';
    if (/\.(md|markdown)$/i.test(hint.filename ?? '') || hint.mime === 'text/markdown' || /^#{1,6} \S/m.test(head))
      return 'markdown';
    return 'text';
  }

  async extract(bytes: Buffer, hint: { filename?: string; mime?: string }): Promise<ExtractedDocument> {
    const kind = await this.sniff(bytes, hint);
    const base = { kind, mime: MIME_OF[kind] };
    switch (kind) {
      case 'image':
        return { ...base, pages: [] };
      case 'pdf':
        return { ...base, ...(await extractPdf(bytes)) };
      case 'docx':
        return { ...base, ...(await extractDocx(bytes)) };
      case 'html':
        return { ...base, ...extractHtml(utf8(bytes)!) };
      case 'csv':
        return { ...base, ...extractCsv(utf8(bytes)!) };
      case 'json':
        return { ...base, pages: [{ page: 1, text: JSON.stringify(JSON.parse(utf8(bytes)!), null, 2) }] };
      default: {
        const text = utf8(bytes)!;
        const heading = kind === 'markdown' ? /^# (.+)$/m.exec(text)?.[1]?.trim() : undefined;
        return { ...base, pages: [{ page: 1, text }], ...(heading ? { title: heading } : {}) };
      }
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

  private unsupported(what: string): ExtractionError {
    return new ExtractionError(
      'unsupported_file',
      `Unsupported file type (${what}): knowledge bases take PDF, DOCX, HTML, Markdown or plain text, CSV and JSON; images are stored but not indexed.`,
    );
  }
}
