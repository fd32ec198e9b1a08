/**
 * Token chunking of extracted text (runs in a parser worker: tokenizing megabytes of text takes
 * seconds). Pure: the tokenizer is passed in.
 */
import { createHash } from 'node:crypto';
import type { TokenCounter } from '@app/providers/tokenizer/token-counter';
import type { Chunking } from '../kb-rules';
import type { DocumentChunk, ExtractedDocument } from '../document-parser';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * Message windows also end after a message whose hash is ≡ 0 mod 8 (about 8 messages per window),
 * so boundaries depend on the messages themselves, not on where the transcript starts: when old
 * messages are dropped or new ones appended (webhook events), only the windows at the edges change
 * and the others keep their content hash — and their vectors, which are not embedded or billed again.
 */
const endsWindow = (unit: string): boolean => createHash('sha256').update(unit).digest()[0] % 8 === 0;

/**
 * The messages of a chat transcript: each starts at column 0; its continuation lines are indented
 * (see `MESSAGE_CHUNKING`). Blank lines between messages are dropped.
 */
export function splitMessages(text: string): string[] {
  return text
    .split(/\n(?=\S)/)
    .map((m) => m.replace(/\s+$/, ''))
    .filter((m) => m.trim() !== '');
}

/**
 * Token windows of `maxTokens` advancing by `maxTokens − overlapTokens`, inside each page (a chunk
 * never spans pages, so it keeps its page number). CSV rows are grouped whole into chunks, and so
 * are chat messages (`messages` chunking), whose windows also end at content-defined boundaries.
 */
export function chunkDocumentText(doc: ExtractedDocument, chunking: Chunking, tokens: TokenCounter): DocumentChunk[] {
  const out: DocumentChunk[] = [];
  const push = (text: string, page: number | null, count: number) => {
    const t = text.trim();
    if (t) out.push({ ordinal: out.length, page, text: t, tokens: count, contentHash: sha256(t) });
  };
  // chats: whole messages are the units, so a window never splits a message (unless one alone is too long)
  const units =
    doc.units ?? (chunking.type === 'messages' ? doc.pages.flatMap((p) => splitMessages(p.text)) : undefined);
  if (units) {
    let group: string[] = [];
    let groupTokens = 0;
    for (const unit of units) {
      const n = tokens.count(unit);
      if (group.length > 0 && groupTokens + n > chunking.maxTokens) {
        push(group.join('\n'), null, groupTokens);
        group = [];
        groupTokens = 0;
      }
      if (n > chunking.maxTokens) {
        windows(tokens, unit, chunking, null, push);
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
  for (const p of doc.pages) windows(tokens, p.text, chunking, paged ? p.page : null, push);
  return out;
}

function windows(
  tokens: TokenCounter,
  text: string,
  c: Chunking,
  page: number | null,
  push: (text: string, page: number | null, tokens: number) => void,
): void {
  const ids = tokens.encode(text);
  if (ids.length === 0) return;
  const stride = c.maxTokens - c.overlapTokens;
  for (let start = 0; start < ids.length; start += stride) {
    const slice = ids.slice(start, start + c.maxTokens);
    push(tokens.decode(slice), page, slice.length);
    if (start + c.maxTokens >= ids.length) break;
  }
}
