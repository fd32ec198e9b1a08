import type { DocumentChunk } from '../document-parser';

/**
 * A document's chunks as a parser worker sends them to the main thread: their texts joined into one
 * string and their numbers in typed arrays. Copying thousands of chunk objects between threads is
 * decoded on the receiving thread in one go (a 10 MiB text file's 5,700 chunks: a few hundred ms of
 * the event loop on a loaded machine); one string and a few arrays are copied, and the objects are
 * then made a slice at a time (`unpackChunks`).
 */
export interface PackedChunks {
  text: string;
  /** where each chunk's text ends in `text` (UTF-16 units) */
  ends: Int32Array;
  ordinals: Int32Array;
  /** -1: no page */
  pages: Int32Array;
  tokens: Int32Array;
  /** the chunks' content hashes, joined (each `hashLength` characters) */
  hashes: string;
  hashLength: number;
}

/** Chunks made into objects per slice, the event loop free between slices. */
const UNPACK_SLICE = 512;

export function packChunks(chunks: DocumentChunk[]): PackedChunks {
  const n = chunks.length;
  const ends = new Int32Array(n);
  const ordinals = new Int32Array(n);
  const pages = new Int32Array(n);
  const tokens = new Int32Array(n);
  let at = 0;
  chunks.forEach((c, i) => {
    at += c.text.length;
    ends[i] = at;
    ordinals[i] = c.ordinal;
    pages[i] = c.page ?? -1;
    tokens[i] = c.tokens;
  });
  const hashLength = n > 0 ? chunks[0].contentHash.length : 0;
  if (chunks.some((c) => c.contentHash.length !== hashLength)) throw new Error('content hashes of unequal length');
  return {
    text: chunks.map((c) => c.text).join(''),
    ends,
    ordinals,
    pages,
    tokens,
    hashes: chunks.map((c) => c.contentHash).join(''),
    hashLength,
  };
}

/** The chunk objects of `packed`, made UNPACK_SLICE at a time with the event loop free between. */
export async function unpackChunks(packed: PackedChunks): Promise<DocumentChunk[]> {
  const { text, ends, ordinals, pages, tokens, hashes, hashLength } = packed;
  const out: DocumentChunk[] = new Array<DocumentChunk>(ends.length);
  for (let i = 0; i < ends.length; i++) {
    if (i > 0 && i % UNPACK_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    out[i] = {
      ordinal: ordinals[i],
      page: pages[i] < 0 ? null : pages[i],
      text: text.slice(i === 0 ? 0 : ends[i - 1], ends[i]),
      tokens: tokens[i],
      contentHash: hashes.slice(i * hashLength, (i + 1) * hashLength),
    };
  }
  return out;
}
