import { detectPii, ALL_ENTITY_TYPES } from './index';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadCorpus, score, TARGETS } = require('../../../../test/data-protection/corpus/score');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { generate } = require('../../../../test/data-protection/corpus/generate');

interface Row {
  type: string;
  precision: number;
  recall: number;
}

describe('labelled corpus (test/data-protection/corpus)', () => {
  const items = loadCorpus();
  const result = score(items, (text: string) => detectPii(text, { entities: [...ALL_ENTITY_TYPES] }));

  it('is the generator output, with at least 600 Russian and English snippets', () => {
    expect(items).toEqual(generate());
    expect(items.length).toBeGreaterThanOrEqual(600);
    const langs = new Set(items.map((i: { lang: string }) => i.lang));
    expect([...langs].sort()).toEqual(['en', 'ru']);
  });

  it.each(TARGETS.structured.types as string[])('%s: precision and recall at least 0.98', (type) => {
    const row = (result.rows as Row[]).find((r) => r.type === type);
    expect(row).toBeDefined();
    expect(row!.precision).toBeGreaterThanOrEqual(TARGETS.structured.precision);
    expect(row!.recall).toBeGreaterThanOrEqual(TARGETS.structured.recall);
  });

  it('person names: precision at least 0.90, recall at least 0.85', () => {
    expect(result.person.precision).toBeGreaterThanOrEqual(TARGETS.person.precision);
    expect(result.person.recall).toBeGreaterThanOrEqual(TARGETS.person.recall);
  });
});
