/**
 * Content fingerprint for the rerank embedding cache key (docs/decisions/rerank-fingerprint.md).
 *
 * STRICTER THAN THE SPEC on purpose: the spec samples the content (text: first and last 200
 * characters; documents: first 2 and last 2, id + first 100 characters of data; table: dimensions
 * + first/last 2 rows), so a change in the middle would hit a stale entry and return embeddings
 * of other text. Here the SHA-256 covers the FULL canonical content, which still satisfies every
 * change the specification lists (content text, order, structure, id or data changed → new fingerprint).
 * Cost: one pass over the content, far cheaper than embedding it.
 *
 * What is hashed, in order (format version "rerank-content-fp/v1"):
 *   form, dimensions, column_to_embed, column_id (null when not given), then
 *   - text:      the whole text (chunks are a pure function of it);
 *   - documents: count, then per item: id (as normalised: numbers stringified, index default),
 *                data, metadata (as a JSON value);
 *   - table:     count, then every raw row as given (items are a pure function of rows + options).
 *
 * Encoding is unambiguous: every value is a type tag followed by a length prefix (UTF-8 byte length
 * for strings, element count for arrays/objects), so ["ab","c"] and ["a","bc"] differ, and "1" and
 * 1 differ inside metadata/rows. Object keys are hashed in their given order, not sorted: `{a,b}`
 * and `{b,a}` are different content (for tables the key order changes the embedded row text; for
 * metadata it changes the returned JSON). Identical JSON bodies always give identical fingerprints.
 */
import { createHash, type Hash } from 'node:crypto';
import type { ParsedContent, TableColumnOptions } from './content';

export const FINGERPRINT_VERSION = 'rerank-content-fp/v1';

const BUFFER_SIZE = 64 * 1024;

/** Buffers small writes into one 64 KiB block per `hash.update`. */
class CanonicalWriter {
  private readonly buffer = Buffer.allocUnsafe(BUFFER_SIZE);
  private used = 0;

  constructor(private readonly hash: Hash) {}

  private room(bytes: number): void {
    if (this.used + bytes > BUFFER_SIZE) this.flush();
  }

  flush(): void {
    if (this.used > 0) this.hash.update(this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  private tagAndLength(tag: string, length: number): void {
    this.room(5);
    this.buffer[this.used] = tag.charCodeAt(0);
    this.buffer.writeUInt32BE(length, this.used + 1);
    this.used += 5;
  }

  string(value: string): void {
    const bytes = Buffer.byteLength(value, 'utf8');
    this.tagAndLength('S', bytes);
    if (bytes > BUFFER_SIZE / 2) {
      this.flush();
      this.hash.update(value, 'utf8');
      return;
    }
    this.room(bytes);
    this.used += this.buffer.write(value, this.used, 'utf8');
  }

  number(value: number): void {
    const text = String(value); // canonical JS form; -0 → "0"
    this.tagAndLength('N', text.length);
    this.room(text.length);
    this.used += this.buffer.write(text, this.used, 'latin1');
  }

  tag(tag: 'T' | 'F' | 'Z' | 'U'): void {
    this.tagAndLength(tag, 0);
  }

  /** Any JSON value: string, finite/non-finite number, boolean, null, array, plain object. */
  value(value: unknown): void {
    if (typeof value === 'string') this.string(value);
    else if (typeof value === 'number') this.number(value);
    else if (typeof value === 'boolean') this.tag(value ? 'T' : 'F');
    else if (value === null) this.tag('Z');
    else if (value === undefined) this.tag('U');
    else if (Array.isArray(value)) {
      this.tagAndLength('A', value.length);
      for (const element of value) this.value(element);
    } else if (typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      this.tagAndLength('O', keys.length);
      for (const key of keys) {
        this.string(key);
        this.value(record[key]);
      }
    } else {
      throw new TypeError(`cannot fingerprint a ${typeof value}`);
    }
  }

  optional(value: string | null | undefined): void {
    if (value === null || value === undefined) this.tag('Z');
    else this.string(value);
  }

  count(tag: 'A', length: number): void {
    this.tagAndLength(tag, length);
  }
}

/** SHA-256 (hex) over the full canonical content; see the module comment. */
export function fingerprintContent(
  content: ParsedContent,
  dimensions: number,
  options: TableColumnOptions = {},
): string {
  const hash = createHash('sha256');
  const w = new CanonicalWriter(hash);
  w.string(FINGERPRINT_VERSION);
  w.string(content.form);
  w.number(dimensions);
  w.optional(options.column_to_embed);
  w.optional(options.column_id);
  switch (content.form) {
    case 'text':
      w.string(content.text);
      break;
    case 'documents':
      w.count('A', content.items.length);
      for (const item of content.items) {
        w.string(item.id);
        w.string(item.data);
        w.value(item.metadata);
      }
      break;
    case 'table':
      w.count('A', content.rows.length);
      for (const row of content.rows) w.value(row);
      break;
  }
  w.flush();
  return hash.digest('hex');
}
