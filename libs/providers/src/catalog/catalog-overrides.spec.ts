import { applyOverrides } from './catalog-overrides';
import { CatalogError, loadCatalog } from './model-catalog';

const base = loadCatalog();

describe('catalog overrides', () => {
  it('merges prices field by field and keeps the rest of the entry', () => {
    const c = applyOverrides(base, [{ key: 'gpt-4o-mini', enabled: true, pricing: { input_rub_per_1m: 30 } }]);
    const m = c.byKey.get('gpt-4o-mini')!;
    const before = base.find((x) => x.key === 'gpt-4o-mini')!;
    expect(m.pricing).toEqual({ ...before.pricing, input_rub_per_1m: 30 });
    expect(m.context_window).toBe(before.context_window);
    expect(c.overridden).toEqual(new Set(['gpt-4o-mini']));
  });

  it('a disabled model leaves the served catalog, other models’ fallbacks and its aliases', () => {
    const target = 'gpt-4o-mini';
    const c = applyOverrides(base, [
      { key: 'gpt-4o', enabled: true, fallbacks: [target, 'deepseek-chat'] },
      { key: target, enabled: false, aliases: ['gone'] },
    ]);
    expect(c.byKey.has(target)).toBe(false);
    expect(c.disabled.has(target)).toBe(true);
    expect(c.byKey.get('gpt-4o')!.fallbacks).toEqual(['deepseek-chat']);
    expect(c.aliases.has('gone')).toBe(false);
  });

  it('refuses negative or missing prices, unknown fallbacks and aliases that are model keys', () => {
    const bad = (o: object) => () => applyOverrides(base, [{ key: 'gpt-4o-mini', enabled: true, ...o }]);
    expect(bad({ pricing: { input_rub_per_1m: -1 } })).toThrow(CatalogError);
    expect(bad({ pricing: { output_rub_per_1m: null } })).toThrow(/must not be null/);
    expect(bad({ fallbacks: ['nope'] })).toThrow(/not in the catalog/);
    expect(bad({ aliases: ['gpt-4o'] })).toThrow(/key of a catalog model/);
    expect(bad({ currency: 'EUR' })).toThrow(/RUB or USD/);
    // a disabled model's draft prices are not checked
    expect(() =>
      applyOverrides(base, [{ key: 'gpt-4o-mini', enabled: false, pricing: { input_rub_per_1m: null } }]),
    ).not.toThrow();
  });

  it('skips overrides of models this replica does not have', () => {
    expect(applyOverrides(base, [{ key: 'elsewhere', enabled: false }]).overridden.size).toBe(0);
  });
});
