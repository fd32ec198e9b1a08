import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import { zipSync } from 'fflate';
import {
  checkPdfStreams,
  InflateBudget,
  InflateLimits,
  inflateBounded,
  unzipBounded,
  ZipFormatError,
} from './bounded-inflate';
import { assertHtmlDepth, assertJsonDepth } from './nesting';
import { ParseLimitError } from './parse-limit';

const MiB = 1024 * 1024;
const LIMITS: InflateLimits = { maxInflatedBytes: 32 * MiB, maxRatio: 200, ratioFloorBytes: MiB, maxEntries: 10 };
const budget = (over: Partial<InflateLimits> = {}) => new InflateBudget({ ...LIMITS, ...over }, 'test file');

/** Raw deflate of `copies` MiB of 'A' (a repeated full-flush segment), without inflating anything. */
function bomb(copies: number): Buffer {
  const seg = deflateRawSync(Buffer.alloc(MiB, 'A'), { finishFlush: constants.Z_FULL_FLUSH });
  return Buffer.concat([...Array.from({ length: copies }, () => seg), Buffer.from([0x03, 0x00])]);
}

const limitOf = (fn: () => unknown): ParseLimitError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ParseLimitError) return err;
    throw err;
  }
  throw new Error('no limit was crossed');
};

describe('inflateBounded', () => {
  it('inflates ordinary data exactly (raw and zlib)', () => {
    const text = Buffer.from(Array.from({ length: 5000 }, (_, i) => `line ${i} of an ordinary document`).join('\n'));
    expect(Buffer.from(inflateBounded(deflateRawSync(text), budget(), { keep: true }).bytes)).toEqual(text);
    const z = inflateBounded(deflateSync(text), budget(), { zlib: true, keep: true });
    expect(z).toMatchObject({ size: text.length, complete: true });
    expect(Buffer.from(z.bytes)).toEqual(text);
  });

  it('stops a bomb by its ratio soon after the first MiB, not after inflating it', () => {
    const b = budget();
    const err = limitOf(() => inflateBounded(bomb(4096), b));
    expect(err.reason).toBe('ratio');
    expect(b.inflatedBytes).toBeLessThan(40 * MiB);
  });

  it('stops at the total inflated size, counted over every stream of the document', () => {
    const b = budget({ maxRatio: 1e9 });
    inflateBounded(bomb(20), b);
    expect(limitOf(() => inflateBounded(bomb(20), b)).reason).toBe('inflated_size');
    expect(b.inflatedBytes).toBeLessThanOrEqual(32 * MiB + 17 * MiB);
  });

  it('corrupt data ends the stream where it breaks (not a limit)', () => {
    expect(inflateBounded(Buffer.from('not deflate at all'), budget()).complete).toBe(false);
  });
});

describe('unzipBounded', () => {
  it('reads members from the central directory; keeps only the selected ones', () => {
    const zip = Buffer.from(
      zipSync({
        'a.json': Buffer.from('{"a":1}'),
        'dir/b.txt': Buffer.from('bee'.repeat(1000)),
        'c.json': Buffer.alloc(0),
      }),
    );
    const entries = unzipBounded(zip, budget(), (n) => n.endsWith('.json'));
    expect(entries.map((e) => [e.name, e.bytes && Buffer.from(e.bytes).toString()])).toEqual([
      ['a.json', '{"a":1}'],
      ['dir/b.txt', undefined],
      ['c.json', ''],
    ]);
  });

  it('counts what actually inflates, whatever sizes the zip declares', () => {
    const zip = Buffer.from(zipSync({ 'big.xml': Buffer.alloc(40 * MiB, 'A') }, { level: 9 }));
    // declare 10 bytes uncompressed in both headers: the bound still holds
    zip.writeUInt32LE(10, 22);
    zip.writeUInt32LE(10, zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 24);
    expect(limitOf(() => unzipBounded(zip, budget({ maxRatio: 1e9 }), () => true)).reason).toBe('inflated_size');
    expect(limitOf(() => unzipBounded(zip, budget(), () => false)).reason).toBe('ratio');
  });

  it('bounds the member count; refuses what is not a zip', () => {
    const many = Buffer.from(
      zipSync(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, new Uint8Array(1)]))),
    );
    expect(limitOf(() => unzipBounded(many, budget(), () => false)).reason).toBe('entries');
    expect(() => unzipBounded(Buffer.from('plain text'), budget(), () => true)).toThrow(ZipFormatError);
  });
});

describe('checkPdfStreams', () => {
  const stream = (dict: string, data: Buffer) =>
    Buffer.concat([
      Buffer.from(`4 0 obj\n<< ${dict} /Length ${data.length} >>\nstream\n`),
      data,
      Buffer.from('\nendstream\nendobj\n'),
    ]);
  const zlibBomb = (mib: number) => Buffer.concat([Buffer.from([0x78, 0xda]), bomb(mib)]);

  it('inflates the Flate streams text extraction reads and stops a bomb among them', () => {
    const ok = Buffer.concat([Buffer.from('%PDF-1.7\n'), stream('/Filter /FlateDecode', deflateSync('BT (Hi) Tj ET'))]);
    checkPdfStreams(ok, budget());
    const bad = Buffer.concat([Buffer.from('%PDF-1.7\n'), stream('/Filter /FlateDecode', zlibBomb(1024))]);
    expect(limitOf(() => checkPdfStreams(bad, budget())).reason).toBe('ratio');
  });

  it('skips image XObjects (text extraction never decodes them) and unfiltered streams', () => {
    const pdf = Buffer.concat([
      Buffer.from('%PDF-1.7\n'),
      stream('/Type /XObject /Subtype /Image /Width 9000 /Height 9000 /Filter /FlateDecode', zlibBomb(64)),
      stream('', Buffer.from('BT (plain) Tj ET')),
    ]);
    const b = budget();
    checkPdfStreams(pdf, b);
    expect(b.inflatedBytes).toBe(0);
  });
});

describe('checkPdfStreams: filter chains', () => {
  const stream = (dict: string, data: Buffer) =>
    Buffer.concat([Buffer.from(`4 0 obj\n<< ${dict} >>\nstream\n`), data, Buffer.from('\nendstream\nendobj\n')]);
  const zlibBomb = (mib: number) => Buffer.concat([Buffer.from([0x78, 0xda]), bomb(mib)]);
  const ascii85 = (buf: Buffer): Buffer => {
    let out = '';
    for (let i = 0; i < buf.length; i += 4) {
      const chunk = Buffer.concat([buf.subarray(i, i + 4), Buffer.alloc(4)]).subarray(0, 4);
      let n = chunk.readUInt32BE(0);
      const digits: string[] = [];
      for (let k = 0; k < 5; k++) {
        digits.unshift(String.fromCharCode(33 + (n % 85)));
        n = Math.floor(n / 85);
      }
      out += digits.slice(0, Math.min(4, buf.length - i) + 1).join('');
    }
    return Buffer.from(`${out}~>`);
  };
  /** 9-bit LZW codes (clear first, end last), packed most significant bit first. */
  const lzw9 = (codes: number[]): Buffer => {
    const bits = [256, ...codes, 257].map((c) => c.toString(2).padStart(9, '0')).join('');
    const padded = bits.padEnd(Math.ceil(bits.length / 8) * 8, '0');
    return Buffer.from(
      Array.from({ length: padded.length / 8 }, (_, i) => parseInt(padded.slice(i * 8, i * 8 + 8), 2)),
    );
  };

  it('a Flate bomb wrapped in ASCIIHex or ASCII85 is still inflated under the bounds', () => {
    const hex = Buffer.from(`${zlibBomb(1024).toString('hex')}>`);
    expect(limitOf(() => checkPdfStreams(stream('/Filter [/ASCIIHexDecode /FlateDecode]', hex), budget())).reason).toBe(
      'ratio',
    );
    const a85 = ascii85(zlibBomb(1024));
    expect(limitOf(() => checkPdfStreams(stream('/Filter [/A85 /Fl]', a85), budget())).reason).toBe('ratio');
    // and an ordinary wrapped stream passes with its exact size counted
    const b = budget();
    checkPdfStreams(stream('/Filter [/ASCII85Decode /FlateDecode]', ascii85(deflateSync('BT (Hello) Tj ET'))), b);
    expect(b.inflatedBytes).toBe('BT (Hello) Tj ET'.length);
  });

  it('RunLength output is counted (a run of 128 per 2 bytes) and bounded', () => {
    const b = budget();
    checkPdfStreams(stream('/Filter /RunLengthDecode', Buffer.from([2, 65, 66, 67, 129, 88, 128])), b);
    expect(b.inflatedBytes).toBe(3 + 128);
    const runs = Buffer.alloc(2 * 20_000, Buffer.from([129, 65]));
    expect(limitOf(() => checkPdfStreams(stream('/Filter /RL', runs), budget({ maxInflatedBytes: MiB }))).reason).toBe(
      'inflated_size',
    );
  });

  it('LZW output is counted from the codes (literal, then growing KwKwK entries) and bounded', () => {
    const b = budget();
    // A, then entries 258 = AA, 259 = AAA, 260 = AAAA: 1 + 2 + 3 + 4 bytes
    checkPdfStreams(stream('/Filter /LZWDecode', lzw9([65, 258, 259, 260])), b);
    expect(b.inflatedBytes).toBe(10);
    const growing = lzw9([65, ...Array.from({ length: 250 }, (_, i) => 258 + i)]);
    expect(
      limitOf(() => checkPdfStreams(stream('/Filter /LZWDecode', growing), budget({ maxInflatedBytes: 10_000 })))
        .reason,
    ).toBe('inflated_size');
  });
});

describe('nesting bounds', () => {
  it('JSON: arrays and objects deeper than the bound; brackets inside strings do not count', () => {
    assertJsonDepth(JSON.stringify({ a: [[[{ b: '[[[[[[[[[[[[' }]]] }), 5);
    assertJsonDepth('"\\"[[[[[[[[[["', 2);
    expect(limitOf(() => assertJsonDepth('['.repeat(200_000) + ']'.repeat(200_000), 512)).reason).toBe('nesting');
    expect(limitOf(() => assertJsonDepth('{"a":{"b":{"c":[1]}}}', 3)).reason).toBe('nesting');
  });

  it('HTML: nested elements deeper than the bound; siblings, void elements and implied end tags do not nest', () => {
    assertHtmlDepth(`<html><body>${'<p>para<br><img src=x>'.repeat(10_000)}</body></html>`, 5);
    assertHtmlDepth(`<ul>${'<li>item'.repeat(1000)}</ul>`, 5);
    expect(limitOf(() => assertHtmlDepth('<div>'.repeat(600) + 'x', 512)).reason).toBe('nesting');
    expect(limitOf(() => assertHtmlDepth('<b>'.repeat(1_000_000) + 'x' + '</b>'.repeat(1_000_000), 512)).reason).toBe(
      'nesting',
    );
  });
});
