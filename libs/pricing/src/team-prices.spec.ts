import { loadCatalog, type ModelEntry } from '@app/providers';
import { forTeam, inRub } from './team-prices';

const catalog = new Map(loadCatalog().map((m) => [m.key, m]));
const model = (key: string) => catalog.get(key)!;
const usd = (m: ModelEntry): ModelEntry => ({ ...m, currency: 'USD' });

describe('team prices', () => {
  it('a discount and a markup scale every price of the model, per-image tables too', () => {
    const mini = model('gpt-4o-mini');
    const p = forTeam(mini, { discount_percent: 20, markup_percent: 0, models: {} }).pricing;
    expect(p.input_rub_per_1m).toBeCloseTo(mini.pricing.input_rub_per_1m * 0.8, 6);
    expect(p.output_rub_per_1m).toBeCloseTo(mini.pricing.output_rub_per_1m * 0.8, 6);
    const dalle = model('dall-e-3');
    const scaled = forTeam(dalle, { discount_percent: 0, markup_percent: 10, models: {} });
    expect(scaled.image?.per_image_rub['1024x1024'].standard).toBeCloseTo(
      dalle.image!.per_image_rub['1024x1024'].standard * 1.1,
      6,
    );
  });

  it('the team’s own prices replace the catalog’s; the rest keeps the discount', () => {
    const mini = model('gpt-4o-mini');
    const p = forTeam(mini, {
      discount_percent: 50,
      markup_percent: 0,
      models: { 'gpt-4o-mini': { input_per_1m_rub: 10, output_per_1m_rub: 20 } },
    }).pricing;
    expect(p).toMatchObject({ input_rub_per_1m: 10, output_rub_per_1m: 20 });
    expect(p.cache_read_rub_per_1m).toBeCloseTo(mini.pricing.cache_read_rub_per_1m! / 2, 6);
    expect(forTeam(mini, undefined)).toBe(mini);
  });

  it('the team’s own fee per call replaces the catalog’s (0: none); left out, the catalog’s is scaled', () => {
    const mini = { ...model('gpt-4o-mini'), pricing: { ...model('gpt-4o-mini').pricing, request_rub: 0.5 } };
    const team = (own: { request_rub?: number }) =>
      forTeam(mini, { discount_percent: 20, markup_percent: 0, models: { 'gpt-4o-mini': own } }).pricing;
    expect(team({ request_rub: 0.2 }).request_rub).toBe(0.2);
    expect(team({ request_rub: 0 }).request_rub).toBe(0);
    expect(team({}).request_rub).toBeCloseTo(0.4, 6);
    // a team's own fee on a model the catalog charges none for
    const plain = model('gpt-4o-mini');
    expect(plain.pricing.request_rub ?? null).toBeNull();
    expect(
      forTeam(plain, { discount_percent: 0, markup_percent: 0, models: { 'gpt-4o-mini': { request_rub: 0.3 } } })
        .pricing.request_rub,
    ).toBe(0.3);
  });

  it('USD entries in RUB at the quote, stamped with the rate; RUB entries untouched', () => {
    const quote = { rate: '81.5345', date: '2026-11-28', markupPercent: 2.5 };
    const entry = { ...usd(model('gpt-4o')), pricing: { ...model('gpt-4o').pricing, input_rub_per_1m: 2.5 } };
    const rub = inRub(entry, quote);
    expect(rub.currency).toBe('RUB');
    expect(rub.pricing.input_rub_per_1m).toBe(209);
    expect(rub.fx).toEqual({ rate: 81.5345, date: '2026-11-28', markup_percent: 2.5 });
    const mini = model('gpt-4o-mini');
    expect(inRub(mini, quote)).toBe(mini);
  });
});
