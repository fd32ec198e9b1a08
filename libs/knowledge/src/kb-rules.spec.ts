import { keywordTerms, reciprocalRankFusion } from '@app/retrieval';
import {
  AUTO_CHUNKING,
  parseAttributeQuery,
  decodeChunking,
  encodeChunking,
  matchesFilter,
  parseAttributes,
  parseChunkingStrategy,
  parseFilter,
} from './kb-rules';

const param = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (err) {
    return (err as { param: string }).param;
  }
};

describe('chunking strategy', () => {
  it('auto is 800 / 400; static is validated (100–4096, overlap ≤ half)', () => {
    expect(parseChunkingStrategy(undefined)).toEqual(AUTO_CHUNKING);
    expect(parseChunkingStrategy({ type: 'auto' })).toEqual({ type: 'auto', maxTokens: 800, overlapTokens: 400 });
    expect(
      parseChunkingStrategy({ type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 50 } }),
    ).toEqual({ type: 'static', maxTokens: 100, overlapTokens: 50 });
    expect(
      param(() =>
        parseChunkingStrategy({ type: 'static', static: { max_chunk_size_tokens: 99, chunk_overlap_tokens: 0 } }),
      ),
    ).toBe('chunking_strategy.static.max_chunk_size_tokens');
    expect(
      param(() =>
        parseChunkingStrategy({ type: 'static', static: { max_chunk_size_tokens: 4097, chunk_overlap_tokens: 0 } }),
      ),
    ).toBe('chunking_strategy.static.max_chunk_size_tokens');
    expect(
      param(() =>
        parseChunkingStrategy({ type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 51 } }),
      ),
    ).toBe('chunking_strategy.static.chunk_overlap_tokens');
    expect(param(() => parseChunkingStrategy({ type: 'other' }))).toBe('chunking_strategy.type');
  });
  it('round-trips through its stored form', () => {
    const s = parseChunkingStrategy({
      type: 'static',
      static: { max_chunk_size_tokens: 512, chunk_overlap_tokens: 128 },
    });
    expect(decodeChunking(encodeChunking(s))).toEqual(s);
    expect(decodeChunking(encodeChunking(AUTO_CHUNKING))).toEqual(AUTO_CHUNKING);
  });
});

describe('attributes', () => {
  it('≤ 16 keys; strings ≤ 512; numbers and booleans unless strings only', () => {
    expect(parseAttributes({ a: 'x', b: 2, c: true }, 'attributes')).toEqual({ a: 'x', b: 2, c: true });
    expect(
      param(() =>
        parseAttributes(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])), 'attributes'),
      ),
    ).toBe('attributes');
    expect(param(() => parseAttributes({ a: 'x'.repeat(513) }, 'attributes'))).toBe('attributes.a');
    expect(param(() => parseAttributes({ a: 1 }, 'metadata', { stringsOnly: true }))).toBe('metadata.a');
    expect(param(() => parseAttributes({ a: { nested: 1 } }, 'attributes'))).toBe('attributes.a');
  });
});

describe('filters', () => {
  const attrs = { lang: 'en', year: 2024, draft: false, team: 'core' };
  it('comparisons on present keys; a missing key satisfies only ne / nin', () => {
    expect(matchesFilter(parseFilter({ type: 'eq', key: 'lang', value: 'en' }), attrs)).toBe(true);
    expect(matchesFilter(parseFilter({ type: 'ne', key: 'lang', value: 'en' }), attrs)).toBe(false);
    expect(matchesFilter(parseFilter({ type: 'gt', key: 'year', value: 2023 }), attrs)).toBe(true);
    expect(matchesFilter(parseFilter({ type: 'lte', key: 'year', value: 2023 }), attrs)).toBe(false);
    expect(matchesFilter(parseFilter({ type: 'gte', key: 'lang', value: 'de' }), attrs)).toBe(true);
    expect(matchesFilter(parseFilter({ type: 'lt', key: 'year', value: 'x' }), attrs)).toBe(false);
    expect(matchesFilter(parseFilter({ type: 'in', key: 'team', value: ['core', 'web'] }), attrs)).toBe(true);
    expect(matchesFilter(parseFilter({ type: 'nin', key: 'team', value: ['core'] }), attrs)).toBe(false);
    expect(matchesFilter(parseFilter({ type: 'eq', key: 'missing', value: 1 }), attrs)).toBe(false);
    expect(matchesFilter(parseFilter({ type: 'ne', key: 'missing', value: 1 }), attrs)).toBe(true);
    expect(matchesFilter(parseFilter({ type: 'nin', key: 'missing', value: [1] }), null)).toBe(true);
    expect(matchesFilter(parseFilter({ type: 'eq', key: 'draft', value: false }), attrs)).toBe(true);
  });
  it('compound and / or nest', () => {
    const f = parseFilter({
      type: 'or',
      filters: [
        { type: 'eq', key: 'lang', value: 'de' },
        {
          type: 'and',
          filters: [
            { type: 'eq', key: 'lang', value: 'en' },
            { type: 'gte', key: 'year', value: 2024 },
          ],
        },
      ],
    });
    expect(matchesFilter(f, attrs)).toBe(true);
    expect(matchesFilter(f, { ...attrs, year: 2020 })).toBe(false);
    expect(matchesFilter(null, null)).toBe(true);
  });
  it('rejects malformed filters naming the path', () => {
    expect(param(() => parseFilter({ type: 'eq', key: 'a' }))).toBe('filters.value');
    expect(param(() => parseFilter({ type: 'in', key: 'a', value: 'x' }))).toBe('filters.value');
    expect(param(() => parseFilter({ type: 'regex', key: 'a', value: 'x' }))).toBe('filters.type');
    expect(param(() => parseFilter({ type: 'and', filters: [{ type: 'eq', key: '', value: 1 }] }))).toBe(
      'filters.filters[0].key',
    );
    let deep: unknown = { type: 'eq', key: 'a', value: 1 };
    for (let i = 0; i < 10; i++) deep = { type: 'and', filters: [deep] };
    expect(param(() => parseFilter(deep))).toMatch(/^filters/);
  });
});

describe('reciprocal rank fusion', () => {
  it('sums 1/(k + rank) over the lists, best first', () => {
    const fused = reciprocalRankFusion([
      [1, 2, 3],
      [3, 1, 4],
    ]);
    expect(fused.map((f) => f.id)).toEqual([1, 3, 2, 4]);
    expect(fused[0].score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[3].score).toBeCloseTo(1 / 63, 12);
  });
  it('keyword terms: stems of words of ≥ 2 letters or digits, stop words left out, distinct', () => {
    expect(keywordTerms('Reset the Passwords, resetting! a 42 пароль паролей')).toEqual([
      'reset',
      'password',
      '42',
      'парол',
    ]);
  });
});

describe('document list attribute filters', () => {
  it('nested or flat attributes[key] parameters → the JSON texts a stored value may have', () => {
    expect(parseAttributeQuery({ attributes: { lang: 'en' }, 'attributes[year]': '2026', status: 'failed' })).toEqual({
      lang: ['"en"'],
      year: ['"2026"', '2026'],
    });
    expect(parseAttributeQuery({ 'attributes[pinned]': 'true', 'attributes[ratio]': '1.50' })).toEqual({
      pinned: ['"true"', 'true'],
      ratio: ['"1.50"', '1.5'],
    });
    expect(parseAttributeQuery({ limit: '5' })).toBeNull();
  });
  it('a repeated key, a quote in a key, a bare attributes value or more than 16 keys → 400 naming the parameter', () => {
    expect(() => parseAttributeQuery({ 'attributes[lang]': ['en', 'ru'] })).toThrow(
      expect.objectContaining({ status: 400, param: 'attributes[lang]' }),
    );
    expect(() => parseAttributeQuery({ 'attributes[a"b]': 'x' })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => parseAttributeQuery({ attributes: 'lang' })).toThrow(
      expect.objectContaining({ status: 400, param: 'attributes' }),
    );
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`attributes[k${i}]`, 'v']));
    expect(() => parseAttributeQuery(many)).toThrow(expect.objectContaining({ status: 400, param: 'attributes' }));
  });
});
