import { parseRerankContent, type ParsedContent, type TableColumnOptions } from './content';
import { fingerprintContent } from './fingerprint';

function fp(content: unknown, dimensions = 1536, options: TableColumnOptions = {}): string {
  return fingerprintContent(parseRerankContent(content, options), dimensions, options);
}

function docs(n: number): Array<{ id: string; data: string; metadata: Record<string, unknown> }> {
  return Array.from({ length: n }, (_, i) => ({ id: `d${i}`, data: `document number ${i}`, metadata: { i } }));
}

describe('fingerprintContent', () => {
  it('is a SHA-256 hex digest, stable for identical input', () => {
    const a = fp(docs(10));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(fp(docs(10))).toBe(a);
    expect(fp('same text')).toBe(fp('same text'));
  });

  it('is unambiguous: ["ab","c"] ≠ ["a","bc"]', () => {
    expect(fp([{ data: 'ab' }, { data: 'c' }])).not.toBe(fp([{ data: 'a' }, { data: 'bc' }]));
    expect(fp([{ id: 'ab', data: 'c' }])).not.toBe(fp([{ id: 'a', data: 'bc' }]));
    expect(fp([{ a: 'b', c: 'd' }])).not.toBe(fp([{ a: 'b; c: d' }]));
  });

  it('changes with document order', () => {
    const d = docs(5);
    expect(fp([d[1], d[0], ...d.slice(2)])).not.toBe(fp(d));
  });

  it('changes with an id', () => {
    const d = docs(5);
    expect(fp([...d.slice(0, 4), { ...d[4], id: 'other' }])).not.toBe(fp(d));
  });

  it('changes with data', () => {
    const d = docs(5);
    expect(fp([{ ...d[0], data: d[0].data + '!' }, ...d.slice(1)])).not.toBe(fp(d));
  });

  it('changes with a document in the middle (the spec sample would miss this)', () => {
    const d = docs(101);
    const changed = d.map((x, i) => (i === 50 ? { ...x, data: x.data.replace('50', 'fifty') } : x));
    expect(fp(changed)).not.toBe(fp(d));
    // beyond the spec's first 100 characters of data
    const long = docs(3).map((x) => ({ ...x, data: 'x'.repeat(500) }));
    const longChanged = long.map((x, i) => (i === 1 ? { ...x, data: 'x'.repeat(499) + 'y' } : x));
    expect(fp(longChanged)).not.toBe(fp(long));
  });

  it('changes with metadata', () => {
    const d = docs(3);
    expect(fp([...d.slice(0, 2), { ...d[2], metadata: { i: 3 } }])).not.toBe(fp(d));
    expect(fp([...d.slice(0, 2), { ...d[2], metadata: { i: '2' } }])).not.toBe(fp(d));
  });

  it('changes with the middle of a text (not just its first/last 200 characters)', () => {
    const text = 'a'.repeat(1000) + 'MIDDLE' + 'b'.repeat(1000);
    expect(fp(text.replace('MIDDLE', 'middle'))).not.toBe(fp(text));
  });

  it('changes with a table row, a cell type, and column options', () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({ id: i, name: `row ${i}`, price: i * 10 }));
    const base = fp(rows);
    expect(fp(rows.map((r, i) => (i === 5 ? { ...r, price: 51 } : r)))).not.toBe(base);
    expect(fp(rows.map((r, i) => (i === 5 ? { ...r, price: '50' } : r)))).not.toBe(base);
    expect(fp(rows.slice(0, 9))).not.toBe(base);
    expect(fp(rows, 1536, { column_id: 'id' })).not.toBe(base);
    expect(fp(rows, 1536, { column_id: 'id', column_to_embed: 'name' })).not.toBe(fp(rows, 1536, { column_id: 'id' }));
    expect(fp(rows, 1536, { column_to_embed: 'name' })).not.toBe(fp(rows, 1536, { column_id: 'name' }));
  });

  it('changes with dimensions', () => {
    expect(fp(docs(3), 1536)).not.toBe(fp(docs(3), 3072));
    expect(fp('text', 1536)).not.toBe(fp('text', 3072));
  });

  it('changes with the form even when the strings coincide', () => {
    expect(fp('hello')).not.toBe(fp([{ data: 'hello' }]));
  });

  it('counts object key order (documented choice): {a,b} ≠ {b,a}', () => {
    expect(fp([{ a: 1, b: 2 }])).not.toBe(fp([{ b: 2, a: 1 }]));
    expect(fp([{ data: 'x', metadata: { a: 1, b: 2 } }])).not.toBe(fp([{ data: 'x', metadata: { b: 2, a: 1 } }]));
    // the order of a document's own keys does not matter: id/data/metadata are normalised
    expect(fp([{ id: '1', data: 'x', metadata: {} }])).toBe(fp([{ metadata: {}, data: 'x', id: '1' }]));
  });

  it('treats numeric and string document ids alike (they become the same returned id)', () => {
    expect(fp([{ id: 1, data: 'x' }])).toBe(fp([{ id: '1', data: 'x' }]));
    // a missing id defaults to the index
    expect(fp([{ data: 'x' }])).toBe(fp([{ id: '0', data: 'x' }]));
  });

  it('handles large content with long strings (buffer flushes)', () => {
    const big = Array.from({ length: 2000 }, (_, i) => ({
      id: String(i),
      data: 'Съешь же ещё '.repeat(20) + i,
      metadata: { k: 'v'.repeat(100) },
    }));
    const huge = [{ data: 'z'.repeat(200_000) }, { data: 'y' }];
    expect(fp(big)).toBe(fp(big.map((x) => ({ ...x }))));
    expect(fp(huge)).not.toBe(fp([{ data: 'z'.repeat(199_999) }, { data: 'zy' }]));
  });

  it('rejects values that are not JSON', () => {
    const content: ParsedContent = { form: 'documents', items: [{ id: '1', data: 'x', metadata: { f: () => 1 } }] };
    expect(() => fingerprintContent(content, 1536)).toThrow(TypeError);
  });
});
