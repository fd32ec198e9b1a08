import { usdItemPriceToRub, usdTokenPriceToRub } from './fx-convert';

describe('USD → RUB price conversion', () => {
  it('rounds token prices to whole µRUB per token (RUB per 1M tokens), half up', () => {
    // 2.5 × 81.5345 × 1.025 = 208.932…
    expect(usdTokenPriceToRub(2.5, '81.5345', 2.5)).toBe(209);
    // 0.5 × 81 = 40.5 exactly: half up (a float product would give 40.49999… for some inputs)
    expect(usdTokenPriceToRub(0.5, '81', 0)).toBe(41);
    // 10 × 90.1 × 1.025 = 923.525 exactly → 924
    expect(usdTokenPriceToRub(10, '90.1', 2.5)).toBe(924);
    expect(usdTokenPriceToRub(0.15, '90.1', 2.5)).toBe(14); // 13.852…
    expect(usdTokenPriceToRub(0, '90.1', 2.5)).toBe(0);
    // a cheap model: below half a µRUB per token is free, from half it is one
    expect(usdTokenPriceToRub(0.006, '81.5345', 0)).toBe(0); // 0.489…
    expect(usdTokenPriceToRub(0.0062, '81.5345', 0)).toBe(1); // 0.505…
  });

  it('rounds per-image prices to whole µRUB', () => {
    // 0.04 × 81.5345 × 1.03 = 3.35922140 → 3.359221
    expect(usdItemPriceToRub(0.04, '81.5345', 3)).toBe(3.359221);
    expect(usdItemPriceToRub(0.08, '90.1', 0)).toBe(7.208);
  });

  it('the markup is a percentage on top of the rate', () => {
    expect(usdTokenPriceToRub(1, '100', 0)).toBe(100);
    expect(usdTokenPriceToRub(1, '100', 10)).toBe(110);
    expect(usdTokenPriceToRub(1, '100', 2.75)).toBe(103); // 102.75 → 103
  });
});
