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

/** PDF stream filters by full and abbreviated (inline-image) name. */
const PDF_FILTERS: Record<string, 'flate' | 'lzw' | 'rl' | 'ahx' | 'a85'> = {
  FlateDecode: 'flate',
  Fl: 'flate',
  LZWDecode: 'lzw',
  LZW: 'lzw',
  RunLengthDecode: 'rl',
  RL: 'rl',
  ASCIIHexDecode: 'ahx',
  AHx: 'ahx',
  ASCII85Decode: 'a85',
  A85: 'a85',
};

/**
 * The streams of a PDF that a text extractor decodes (content, fonts, object and xref streams;
 * image XObjects are skipped: text extraction never decodes them), decoded through their filter
 * chain under the budget: ASCII filters (which only shrink) are undone, Flate is inflated in
 * bounded steps, RunLength and LZW output is counted without being produced. PDF streams are
 * `<<dict>> stream EOL … endstream`; the dict's `/Length` may be indirect or wrong, so the data is
 * taken up to the next `endstream`.
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
    if (/\/Subtype\s*\/Image\b/.test(header)) continue;
    const chain = [
      ...header.matchAll(/\/(FlateDecode|Fl|LZWDecode|LZW|RunLengthDecode|RL|ASCIIHexDecode|AHx|ASCII85Decode|A85)\b/g),
    ].map((m) => PDF_FILTERS[m[1]]);
    if (!chain.some((f) => f === 'flate' || f === 'lzw' || f === 'rl')) continue;
    budget.entry();
    const earlyChange = /\/EarlyChange\s+0\b/.test(header) ? 0 : 1;
    decodeChain(pdf.subarray(start, stop), chain, budget, earlyChange);
  }
}

function decodeChain(data: Uint8Array, chain: string[], budget: InflateBudget, earlyChange: number): void {
  for (const [i, filter] of chain.entries()) {
    const last = i === chain.length - 1;
    if (filter === 'ahx') data = asciiHexDecode(data);
    else if (filter === 'a85') data = ascii85Decode(data);
    else if (filter === 'flate') {
      const zlib = data.length >= 2 && (data[0] & 0x0f) === 8 && ((data[0] << 8) | data[1]) % 31 === 0;
      const r = inflateBounded(data, budget, { zlib, keep: !last });
      if (!r.complete && !last) return;
      data = r.bytes;
    } else if (filter === 'rl') {
      const r = runLengthDecode(data, budget, !last);
      if (!r) return;
      data = r;
    } else {
      // LZW: counted; what follows an LZW stage (rare) is bounded by time only
      lzwCount(data, budget, earlyChange);
      return;
    }
  }
}

function asciiHexDecode(data: Uint8Array): Uint8Array {
  const text = Buffer.from(data).toString('latin1');
  const end = text.indexOf('>');
  const hex = (end < 0 ? text : text.slice(0, end)).replace(/[^0-9a-fA-F]/g, '');
  return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
}

function ascii85Decode(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  let group: number[] = [];
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (c === 0x7e) break; // ~> ends the data
    if (c === 0x7a && group.length === 0) {
      out.push(0, 0, 0, 0); // z: four zero bytes
      continue;
    }
    if (c < 0x21 || c > 0x75) continue; // white space (and anything else outside the alphabet)
    group.push(c - 33);
    if (group.length === 5) {
      const n = group.reduce((acc, d) => acc * 85 + d, 0);
      out.push((n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
      group = [];
    }
  }
  if (group.length > 1) {
    const size = group.length - 1;
    while (group.length < 5) group.push(84);
    const n = group.reduce((acc, d) => acc * 85 + d, 0);
    out.push(...[(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].slice(0, size));
  }
  return Uint8Array.from(out);
}

/** RunLength (at most 128× its input): counted under the budget; produced only when `keep`. */
function runLengthDecode(data: Uint8Array, budget: InflateBudget, keep: boolean): Uint8Array | null {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (let i = 0; i < data.length;) {
    const n = data[i++];
    if (n === 128) break;
    const run = n < 128 ? data.subarray(i, i + n + 1) : Buffer.alloc(257 - n, data[i] ?? 0);
    i += n < 128 ? n + 1 : 1;
    size += run.length;
    budget.add(run.length, size, i);
    if (keep) parts.push(run);
  }
  return keep ? concat(parts, size) : null;
}

/** LZW (PDF's variant: 9–12-bit codes, 256 clear, 257 end): output length counted, nothing produced. */
function lzwCount(data: Uint8Array, budget: InflateBudget, earlyChange: number): void {
  const lens = new Uint32Array(4096);
  let next = 258;
  let width = 9;
  let prevLen = 0;
  let size = 0;
  let bits = 0;
  let acc = 0;
  for (let i = 0; i < data.length; i++) {
    acc = ((acc << 8) | data[i]) >>> 0;
    bits += 8;
    while (bits >= width) {
      const code = (acc >>> (bits - width)) & ((1 << width) - 1);
      bits -= width;
      acc &= (1 << bits) - 1;
      if (code === 256) {
        next = 258;
        width = 9;
        prevLen = 0;
        continue;
      }
      if (code === 257) return;
      const len = code < 256 ? 1 : code < next ? lens[code] : code === next && prevLen > 0 ? prevLen + 1 : 0;
      if (len === 0) return; // not a valid code here: the stream ends (as a decoder would stop)
      if (prevLen > 0 && next < 4096) lens[next++] = prevLen + 1;
      if (next + earlyChange >= 1 << width && width < 12) width++;
      prevLen = len;
      size += len;
      budget.add(len, size, i + 1);
    }
  }
}
