import { analyzeWords, indexTerms, keywordTerms, stemWord } from './terms';

describe('search terms', () => {
  it('stems English words with the English stemmer and Cyrillic words with the Russian one', () => {
    expect(stemWord('running')).toBe('run');
    expect(stemWord('runs')).toBe('run');
    expect(stemWord('invoices')).toBe(stemWord('invoice'));
    expect(stemWord('документов')).toBe(stemWord('документ'));
    expect(stemWord('серверами')).toBe(stemWord('сервер'));
    expect(stemWord('42')).toBe('42');
    expect(stemWord('東京')).toBe('東京');
  });

  it('normalises before stemming (NFKC, case, ё → е) and marks stop words', () => {
    expect(analyzeWords('The ЁЛКИ ﬁles')).toEqual([
      { surface: 'the', stem: 'the', stop: true },
      { surface: 'елки', stem: stemWord('елка'), stop: false },
      { surface: 'files', stem: 'file', stop: false },
    ]);
  });

  it('index terms: the stems of a text without its stop words, in order', () => {
    expect(indexTerms('The servers are running; в документах и серверах')).toBe(
      `server run ${stemWord('документах')} ${stemWord('серверах')}`,
    );
    expect(indexTerms('the of and')).toBe('');
  });

  it('keyword terms: distinct stems, ≥ 2 characters, at most 32', () => {
    expect(keywordTerms('Running runs, a run x 7 of the RUN')).toEqual(['run']);
    expect(keywordTerms('the of и в')).toEqual([]);
    expect(keywordTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toHaveLength(32);
  });
});
