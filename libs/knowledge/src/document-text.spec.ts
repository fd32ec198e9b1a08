import { mergeChunks, overlapLength } from './document-text';

describe('document text from overlapping chunks', () => {
  it('finds the longest suffix/prefix overlap', () => {
    expect(overlapLength('abcdef', 'defgh')).toBe(3);
    expect(overlapLength('abc', 'xyz')).toBe(0);
    expect(overlapLength('', 'x')).toBe(0);
    expect(overlapLength('aaaa', 'aaab')).toBe(3);
  });

  it('rebuilds the text of overlapping windows exactly, page by page, in ordinal order', () => {
    const page1 = 'The quick brown fox jumps over the lazy dog near the river bank in the early morning light.';
    const page2 = 'Second page text that stands alone.';
    const chunks = [
      { ordinal: 2, page: 2, text: page2 },
      { ordinal: 1, page: 1, text: page1.slice(40) },
      { ordinal: 0, page: 1, text: page1.slice(0, 60) },
    ];
    const out = mergeChunks(chunks);
    expect(out.pages).toEqual([
      { page: 1, text: page1 },
      { page: 2, text: page2 },
    ]);
    expect(out.text).toBe(`${page1}\n\n${page2}`);
  });

  it('joins chunks without a real overlap by a line break (a shared short word is no overlap)', () => {
    const out = mergeChunks([
      { ordinal: 0, page: null, text: 'First row of the table' },
      { ordinal: 1, page: null, text: 'table second row' },
    ]);
    expect(out.text).toBe('First row of the table\ntable second row');
  });
});
