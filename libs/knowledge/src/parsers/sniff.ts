/**
 * Type by content (runs in a parser worker): file-type's magic numbers for binary formats; for
 * text, JSON.parse, an HTML document shape, papaparse's table check; the name is only a
 * tie-breaker between Markdown and plain text.
 */
import { ExtractedDocument, ExtractionError } from '../document-parser';
import { looksLikeCsv } from './formats';
import { looksBinary } from './normalize-text';

/** file-type is ESM-only and its typings need a newer moduleResolution: the part used here. */
interface FileTypeModule {
  fileTypeFromBuffer(bytes: Uint8Array): Promise<{ ext: string; mime: string } | undefined>;
}
const FILE_TYPE = 'file-type/core';
let fileType: Promise<FileTypeModule> | null = null;
export const loadFileType = (): Promise<FileTypeModule> => (fileType ??= import(FILE_TYPE) as Promise<FileTypeModule>);

export const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const IMAGE_MIMES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export function utf8(bytes: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
}

export async function sniffKind(
  bytes: Buffer,
  hint: { filename?: string; mime?: string },
): Promise<ExtractedDocument['kind']> {
  const { fileTypeFromBuffer } = await loadFileType();
  const detected = await fileTypeFromBuffer(bytes);
  if (detected) {
    if (detected.mime === 'application/pdf') return 'pdf';
    if (detected.mime === DOCX_MIME) return 'docx';
    if (IMAGE_MIMES.has(detected.mime)) return 'image';
    // xml-based text formats are still text; anything else binary is refused
    if (detected.mime !== 'application/xml' && detected.mime !== 'text/xml') throw unsupported(detected.mime);
  }
  const text = utf8(bytes);
  // a few stray control bytes (removed before storage) do not make text binary
  if (text === null || looksBinary(text)) throw unsupported('binary data');
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

function unsupported(what: string): ExtractionError {
  return new ExtractionError(
    'unsupported_file',
    `Unsupported file type (${what}): knowledge bases take PDF, DOCX, HTML, Markdown or plain text, CSV and JSON; images are stored but not indexed.`,
  );
}
