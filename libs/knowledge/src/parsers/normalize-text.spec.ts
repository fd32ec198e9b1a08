import { looksBinary, normalizeText } from './normalize-text';

describe('text normalisation before storage', () => {
  it('removes NUL and other control characters, keeps tabs and line breaks', () => {
    expect(normalizeText('a\u0000b\u0001c\u0007d\u001be\u007ff\u0080g\u009fh\ti\nj')).toBe('abcdefgh\ti\nj');
  });
  it('unifies line breaks: CR LF, CR, vertical tab, form feed, NEL, line and paragraph separators', () => {
    expect(normalizeText('1\r\n2\r3\v4\f5\u00856\u20287\u20298')).toBe('1\n2\n3\n4\n5\n6\n7\n8');
  });
  it('composes to NFC', () => {
    expect(normalizeText('Cafe\u0301 \u0419')).toBe('Caf\u00e9 \u0419');
    expect(normalizeText('\u0418\u0306')).toBe('\u0419');
  });
  it('replaces lone surrogates, keeps pairs', () => {
    expect(normalizeText('x\ud800y\udc00z \ud83d\ude00')).toBe('x\ufffdy\ufffdz \ud83d\ude00');
  });
});

describe('binary or text', () => {
  it('a few stray control characters are text; mostly control characters are binary', () => {
    expect(looksBinary('an ordinary line\u0000 with a stray NUL and a bell\u0007')).toBe(false);
    expect(looksBinary('H\u0000e\u0000l\u0000l\u0000o\u0000')).toBe(true);
    expect(looksBinary('')).toBe(false);
    expect(looksBinary('tabs\tand\nnewlines\r\n are whitespace')).toBe(false);
  });
});
