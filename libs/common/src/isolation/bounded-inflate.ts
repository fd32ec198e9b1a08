/**
 * Decompression of untrusted data, bounded while it streams: compressed data is fed to fflate's
 * streaming inflater in small steps and the output is counted as it appears, so a bomb is stopped
 * after at most one step's worth of output (deflate inflates at most ~1032× per input byte), long
 * before it can fill memory. The declared sizes of a container are never trusted.
 */
import { Inflate, Unzlib } from 'fflate';
import { ParseLimitError } from './parse-limit';

/** Compressed bytes fed per step: at most ~16 MiB of output can appear between two checks. */
const STEP = 16 * 1024;

export interface InflateLimits {
  /** inflated bytes over every stream or entry of one document */
  maxInflatedBytes: number;
  /** inflated ÷ compressed, checked for each stream or entry once it has inflated past `ratioFloorBytes` */
  maxRatio: number;
  ratioFloorBytes: number;
  /** streams or zip entries of one document */
  maxEntries: number;
}

/** Running totals of one document against its limits. */
export class InflateBudget {
  private inflated = 0;
  private entries = 0;

  constructor(
    readonly limits: InflateLimits,
    private readonly what: string,
  ) {}

  get inflatedBytes(): number {
    return this.inflated;
  }

  /** Counts one more entry (zip member, PDF stream). */
  entry(): void {
    if (++this.entries > this.limits.maxEntries)
      throw new ParseLimitError(
        'entries',
        `The ${this.what} has more than ${this.limits.maxEntries} compressed parts.`,
      );
  }

  /** Counts bytes that are stored uncompressed. */
  stored(bytes: number): void {
    this.add(bytes, bytes, bytes);
  }

  add(bytes: number, entryInflated: number, entryCompressed: number): void {
    this.inflated += bytes;
    if (this.inflated > this.limits.maxInflatedBytes)
      throw new ParseLimitError(
        'inflated_size',
        `The ${this.what} inflates to more than ${mib(this.limits.maxInflatedBytes)} MiB.`,
      );
    if (entryInflated > this.limits.ratioFloorBytes && entryInflated > entryCompressed * this.limits.maxRatio)
      throw new ParseLimitError(
        'ratio',
        `Part of the ${this.what} inflates more than ${this.limits.maxRatio}× (a decompression bomb).`,
      );
  }
}

const mib = (n: number): number => Math.round(n / (1024 * 1024));

/**
 * Inflates `data` (raw deflate, or zlib-wrapped when `zlib`), charging `budget` as output appears.
 * Returns the output when `keep` is set (else an empty array: only the bounds are checked). Corrupt
 * data ends the stream where it breaks (`complete: false`), as a tolerant reader would.
 */
export function inflateBounded(
  data: Uint8Array,
  budget: InflateBudget,
  opts: { zlib?: boolean; keep?: boolean } = {},
): { bytes: Uint8Array; size: number; complete: boolean } {
  const parts: Uint8Array[] = [];
  let size = 0;
  let fed = 0;
  const onData = (chunk: Uint8Array): void => {
    size += chunk.length;
    budget.add(chunk.length, size, Math.max(fed, 1));
    if (opts.keep) parts.push(chunk);
  };
  const inflater = opts.zlib ? new Unzlib(onData) : new Inflate(onData);
  let complete = true;
  try {
    for (let off = 0; off < data.length; off += STEP) {
      const end = Math.min(data.length, off + STEP);
      fed = end;
      inflater.push(data.subarray(off, end), end === data.length);
    }
  } catch (err) {
    if (err instanceof ParseLimitError) throw err;
    complete = false;
  }
  return { bytes: opts.keep ? concat(parts, size) : new Uint8Array(0), size, complete };
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export interface ZipEntry {
  name: string;
  /** inflated bytes (only for entries selected with `keep`) */
  bytes?: Uint8Array;
}

/**
 * Reads a zip from its central directory (what zip libraries read), inflating every member with
 * the budget's bounds; the bytes of members for which `keep(name)` is true are returned. Zip64 and
 * encrypted archives are refused (`ZipFormatError`), as are methods other than stored and deflate.
 */
export function unzipBounded(zip: Uint8Array, budget: InflateBudget, keep: (name: string) => boolean): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const eocd = findEndOfCentralDirectory(zip, view);
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  if (count === 0xffff || at === 0xffffffff) throw new ZipFormatError('Zip64 archives are not supported.');
  const out: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== 0x02014b50)
      throw new ZipFormatError('The zip central directory is damaged.');
    budget.entry();
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const nameLen = view.getUint16(at + 28, true);
    const extraLen = view.getUint16(at + 30, true);
    const commentLen = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLen));
    at += 46 + nameLen + extraLen + commentLen;
    if (compressed === 0xffffffff || local === 0xffffffff)
      throw new ZipFormatError('Zip64 archives are not supported.');
    if (flags & 1) throw new ZipFormatError('Encrypted zip archives are not supported.');
    if (local + 30 > zip.length || view.getUint32(local, true) !== 0x04034b50)
      throw new ZipFormatError('The zip holds a damaged entry.');
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = zip.subarray(start, Math.min(zip.length, start + compressed));
    const wanted = keep(name);
    if (method === 0) {
      budget.stored(data.length);
      out.push(wanted ? { name, bytes: data } : { name });
    } else if (method === 8) {
      const r = inflateBounded(data, budget, { keep: wanted });
      out.push(wanted ? { name, bytes: r.bytes } : { name });
    } else {
      throw new ZipFormatError(`The zip uses an unsupported compression method (${method}).`);
    }
  }
  return out;
}

/** A zip that cannot be read at all (not a limit). */
export class ZipFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipFormatError';
  }
}

function findEndOfCentralDirectory(zip: Uint8Array, view: DataView): number {
  const min = Math.max(0, zip.length - 22 - 0xffff);
  for (let i = zip.length - 22; i >= min; i--) if (view.getUint32(i, true) === 0x06054b50) return i;
  throw new ZipFormatError('Not a zip archive (no end of central directory).');
}

/**
 * The Flate streams of a PDF that a text extractor decodes (content, fonts, object and xref
 * streams; image XObjects are skipped: text extraction never decodes them), inflated under the
 * budget. PDF streams are `<<dict>> stream EOL … endstream`; the dict's `/Length` may be indirect or
 * wrong, so the data is taken up to the next `endstream`.
 */
export function checkPdfStreams(pdf: Buffer, budget: InflateBudget): void {
  let pos = 0;
  for (;;) {
    pos = pdf.indexOf('stream', pos, 'latin1');
    if (pos < 0) return;
    const keyword = pos;
    pos += 6;
    if (keyword >= 3 && pdf.toString('latin1', keyword - 3, keyword) === 'end') continue;
    let start = pos;
    if (pdf[start] === 0x0d) start++;
    if (pdf[start] === 0x0a) start++;
    if (start === pos) continue; // "stream" not followed by an end of line: not the keyword
    const end = pdf.indexOf('endstream', start, 'latin1');
    const stop = end < 0 ? pdf.length : end;
    pos = stop;
    const dict = pdf.toString('latin1', Math.max(0, keyword - 4096), keyword);
    const open = dict.lastIndexOf(' obj');
    const header = open >= 0 ? dict.slice(open) : dict;
    if (!/\/(FlateDecode|Fl)\b/.test(header) || /\/Subtype\s*\/Image\b/.test(header)) continue;
    budget.entry();
    const data = pdf.subarray(start, stop);
    const zlib = data.length >= 2 && (data[0] & 0x0f) === 8 && ((data[0] << 8) | data[1]) % 31 === 0;
    inflateBounded(data, budget, { zlib });
  }
}
