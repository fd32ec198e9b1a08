/**
 * Hostile documents, generated in the test (never committed binaries). The bombs are built from
 * one deflate segment repeated: a 1 MiB block compressed with a full flush ends byte-aligned and
 * refers to nothing before it, so N copies followed by an empty final block inflate to N MiB — a
 * valid stream of a few KB per MiB, with correct checksums, generated without inflating anything.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

const MiB = 1024 * 1024;
/** An empty final block with fixed Huffman codes: BFINAL=1, BTYPE=01, end-of-block. */
const FINAL_EMPTY_BLOCK = Buffer.from([0x03, 0x00]);

/** Raw deflate of `prefix + block × copies + suffix`, and the inflated length. */
function deflateBomb(prefix: Buffer, block: Buffer, copies: number, suffix: Buffer): { data: Buffer; size: number } {
  const flush = { finishFlush: constants.Z_FULL_FLUSH, level: 9 };
  const head = deflateRawSync(prefix, flush);
  const seg = deflateRawSync(block, flush);
  const tail = deflateRawSync(suffix, flush);
  const data = Buffer.concat([head, ...Array.from({ length: copies }, () => seg), tail, FINAL_EMPTY_BLOCK]);
  return { data, size: prefix.length + block.length * copies + suffix.length };
}

const ADLER_BASE = 65521;
function adler32(buf: Buffer, start = 1): number {
  let a = start & 0xffff;
  let b = start >>> 16;
  for (const byte of buf) {
    a = (a + byte) % ADLER_BASE;
    b = (b + a) % ADLER_BASE;
  }
  return ((b << 16) | a) >>> 0;
}
/** zlib's adler32_combine: the checksum of A‖B from those of A and B and B's length. */
function adler32Combine(a1: number, a2: number, len2: number): number {
  const rem = len2 % ADLER_BASE;
  let sum1 = a1 & 0xffff;
  let sum2 = (rem * sum1) % ADLER_BASE;
  sum1 += (a2 & 0xffff) + ADLER_BASE - 1;
  sum2 += ((a1 >>> 16) & 0xffff) + ((a2 >>> 16) & 0xffff) + ADLER_BASE - rem;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum2 >= ADLER_BASE << 1) sum2 -= ADLER_BASE << 1;
  if (sum2 >= ADLER_BASE) sum2 -= ADLER_BASE;
  return (sum1 | (sum2 << 16)) >>> 0;
}

/** A one-page PDF whose page content stream (FlateDecode) inflates to `mib` MiB of text operators. */
export function pdfBomb(mib = 1024): Buffer {
  const op = Buffer.from('BT /F1 12 Tf 72 712 Td (All work and no play) Tj ET\n');
  const block = Buffer.alloc(MiB, op);
  const { data } = deflateBomb(Buffer.alloc(0), block, mib, Buffer.alloc(0));
  let adler = 1;
  const blockAdler = adler32(block);
  for (let i = 0; i < mib; i++) adler = adler32Combine(adler, blockAdler, block.length);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler);
  const stream = Buffer.concat([Buffer.from([0x78, 0xda]), data, trailer]);

  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  const obj = (n: number, body: Buffer | string, streamData?: Buffer) => {
    offsets[n] = length;
    push(`${n} 0 obj\n`);
    push(body);
    if (streamData) {
      push('\nstream\n');
      push(streamData);
      push('\nendstream');
    }
    push('\nendobj\n');
  };
  push('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(
    3,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
  );
  obj(4, `<< /Length ${stream.length} /Filter /FlateDecode >>`, stream);
  obj(5, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const xref = length;
  push(`xref\n0 6\n0000000000 65535 f \n`);
  for (let n = 1; n <= 5; n++) push(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  push(`trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** A DOCX whose word/document.xml inflates to `mib` MiB (one run of text), with correct CRCs and sizes. */
export function docxBomb(mib = 2048): Buffer {
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const contentTypes = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  const rels = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  const prefix = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>`,
  );
  const suffix = Buffer.from('</w:t></w:r></w:p></w:body></w:document>');
  return zip([
    { name: '[Content_Types].xml', method: 0, data: contentTypes, size: contentTypes.length, crc: crc32(contentTypes) },
    { name: '_rels/.rels', method: 0, data: rels, size: rels.length, crc: crc32(rels) },
    bombMember('word/document.xml', prefix, mib, suffix),
  ]);
}

/** A Slack export whose one channel-day JSON inflates to `mib` MiB. */
export function slackBomb(mib = 1024): Buffer {
  const prefix = Buffer.from('[{"type":"message","user":"U1","ts":"1700000000.000100","text":"');
  const suffix = Buffer.from('"}]');
  return zip([bombMember('general/2026-01-15.json', prefix, mib, suffix)]);
}

/** A deflated zip member holding `prefix + 'A' × mib MiB + suffix`, with its real CRC-32 and size. */
function bombMember(name: string, prefix: Buffer, mib: number, suffix: Buffer): ZipMember {
  const block = Buffer.alloc(MiB, 'A');
  const bomb = deflateBomb(prefix, block, mib, suffix);
  let crc = crc32(prefix);
  for (let i = 0; i < mib; i++) crc = crc32(block, crc);
  return { name, method: 8, data: bomb.data, size: bomb.size, crc: crc32(suffix, crc) };
}

interface ZipMember {
  name: string;
  method: 0 | 8;
  data: Buffer;
  size: number;
  crc: number;
}

function zip(members: ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(m.method, 8);
    local.writeUInt32LE(m.crc >>> 0, 14);
    local.writeUInt32LE(m.data.length, 18);
    local.writeUInt32LE(m.size, 22);
    local.writeUInt16LE(name.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(m.method, 10);
    cd.writeUInt32LE(m.crc >>> 0, 16);
    cd.writeUInt32LE(m.data.length, 20);
    cd.writeUInt32LE(m.size, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    locals.push(local, name, m.data);
    central.push(cd, name);
    offset += 30 + name.length + m.data.length;
  }
  const cdBytes = Buffer.concat(central);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(members.length, 8);
  eocd.writeUInt16LE(members.length, 10);
  eocd.writeUInt32LE(cdBytes.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cdBytes, eocd]);
}

/** HTML with `n` nested elements (10^6 `<b>`: about 7 MB). */
export function deepHtml(n = 1_000_000): Buffer {
  return Buffer.from(`<!doctype html><html><body>${'<b>'.repeat(n)}deep${'</b>'.repeat(n)}</body></html>`);
}

/** JSON with `n` nested arrays (200 000: 400 KB). */
export function deepJson(n = 200_000): Buffer {
  return Buffer.from('['.repeat(n) + ']'.repeat(n));
}
