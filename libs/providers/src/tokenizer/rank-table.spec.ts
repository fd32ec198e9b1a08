import { RankTable } from './rank-table';

const bin = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

describe('RankTable', () => {
  const words = ['a', 'b', 'ab', 'abc', 'hello', ' world', 'привет', '\u0000', 'ÿ'];
  // ranks with a gap (7 has no token), not in order
  const ranks = [0, 1, 2, 3, 9, 5, 6, 4, 8];
  const table = new RankTable(
    words.map((w) => Buffer.from(w, 'utf8')),
    ranks,
  );

  it('finds every token by a range of a binary string, and nothing else', () => {
    words.forEach((w, i) => expect(table.rank(bin(w), 0, bin(w).length)).toBe(ranks[i]));
    const text = bin('xxhello worldxx');
    expect(table.rank(text, 2, 7)).toBe(9);
    expect(table.rank(text, 7, 13)).toBe(5);
    expect(table.rank(text, 2, 6)).toBe(-1); // "hell"
    expect(table.rank(text, 0, 1)).toBe(-1);
    expect(table.rank(bin('abcd'), 0, 4)).toBe(-1);
  });

  it('gives each rank its bytes; a rank without a token has none', () => {
    const out = Buffer.alloc(32);
    expect(table.byteLength(6)).toBe(Buffer.byteLength('привет'));
    table.copyTo(6, out, 3);
    expect(out.subarray(3, 3 + table.byteLength(6)).toString('utf8')).toBe('привет');
    expect(table.byteLength(7)).toBe(0);
    expect(table.byteLength(10)).toBe(0);
    expect(table.byteLength(-1)).toBe(0);
  });

  it('holds many tokens whose hashes collide in the table (linear probing)', () => {
    const many = Array.from({ length: 5000 }, (_, i) => Buffer.from(`t${i}`));
    const t = new RankTable(
      many,
      many.map((_, i) => i),
    );
    for (let i = 0; i < 5000; i += 7) expect(t.rank(`t${i}`, 0, `t${i}`.length)).toBe(i);
    expect(t.rank('t5000', 0, 5)).toBe(-1);
  });
});
