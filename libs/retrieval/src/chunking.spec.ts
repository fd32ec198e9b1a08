import { CHUNK_OVERLAP, CHUNK_SIZE, chunkText, chunkWindows } from './chunking';

function text(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String.fromCharCode(97 + (i % 26));
  return out;
}

function spans(length: number): Array<[number, number]> {
  return chunkText(text(length)).map((c) => [c.start, c.end]);
}

describe('chunkText', () => {
  it('uses 1000 characters with 200 overlap by default', () => {
    expect(CHUNK_SIZE).toBe(1000);
    expect(CHUNK_OVERLAP).toBe(200);
  });

  it.each<[number, Array<[number, number]>]>([
    [1, [[0, 1]]],
    [999, [[0, 999]]],
    [1000, [[0, 1000]]],
    [
      1001,
      [
        [0, 1000],
        [800, 1001],
      ],
    ],
    [
      1800,
      [
        [0, 1000],
        [800, 1800],
      ],
    ],
    [
      1801,
      [
        [0, 1000],
        [800, 1800],
        [1600, 1801],
      ],
    ],
    [
      2600,
      [
        [0, 1000],
        [800, 1800],
        [1600, 2600],
      ],
    ],
    [
      5000,
      [
        [0, 1000],
        [800, 1800],
        [1600, 2600],
        [2400, 3400],
        [3200, 4200],
        [4000, 5000],
      ],
    ],
  ])('length %i → windows %j', (length, expected) => {
    expect(spans(length)).toEqual(expected);
  });

  it('empty text has no chunks', () => {
    expect(chunkText('')).toEqual([]);
  });

  it('chunk text, index and offsets agree with the source', () => {
    const source = text(2600);
    const chunks = chunkText(source);
    chunks.forEach((c, i) => {
      expect(c.index).toBe(i);
      expect(c.text).toBe(source.slice(c.start, c.end));
    });
    // consecutive chunks overlap by exactly 200 characters
    expect(chunks[0].text.slice(800)).toBe(chunks[1].text.slice(0, 200));
  });

  it('counts code points, never splitting a surrogate pair', () => {
    const source = '😀'.repeat(1500); // 1500 code points, 3000 UTF-16 units
    const chunks = chunkText(source);
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 1000],
      [800, 1500],
    ]);
    expect(chunks[0].text).toBe('😀'.repeat(1000));
    expect(chunks[1].text).toBe('😀'.repeat(700));
    for (const c of chunks) expect(c.text).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });

  it('mixed BMP and astral characters: offsets are code points', () => {
    const source = 'a'.repeat(999) + '😀' + 'b'.repeat(10);
    const chunks = chunkText(source);
    expect(chunks[0]).toMatchObject({ start: 0, end: 1000 });
    expect(chunks[0].text.endsWith('😀')).toBe(true);
    expect(chunks[1]).toMatchObject({ start: 800, end: 1010, text: 'a'.repeat(199) + '😀' + 'b'.repeat(10) });
  });

  it('supports other sizes and rejects invalid ones', () => {
    expect(chunkWindows(10, 4, 1)).toEqual([
      [0, 4],
      [3, 7],
      [6, 10],
    ]);
    expect(chunkWindows(5, 5, 0)).toEqual([[0, 5]]);
    expect(() => chunkWindows(10, 0, 0)).toThrow(RangeError);
    expect(() => chunkWindows(10, 4, 4)).toThrow(RangeError);
    expect(() => chunkWindows(10, 4, -1)).toThrow(RangeError);
    expect(() => chunkText('abc', { size: 2.5 })).toThrow(RangeError);
  });

  it('is fast enough for a few MB of text', () => {
    const chunks = chunkText(text(3_000_000));
    expect(chunks).toHaveLength(Math.ceil((3_000_000 - 1000) / 800) + 1);
    expect(chunks[chunks.length - 1].end).toBe(3_000_000);
  });
});
