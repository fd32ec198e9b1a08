import { exactCostMicro, microToRub, rubToMicro, tokenCostMicro } from './money';

describe('money', () => {
  it('converts RUB to integer micro-RUB exactly', () => {
    expect(rubToMicro(1)).toBe(1_000_000);
    expect(rubToMicro(0.1)).toBe(100_000);
    expect(rubToMicro('0.000001')).toBe(1);
    expect(rubToMicro('12.345678')).toBe(12_345_678);
    expect(rubToMicro(0.1 + 0.2)).toBe(300_000); // float noise is rounded to the micro
    expect(rubToMicro('-5.5')).toBe(-5_500_000);
    expect(() => rubToMicro('abc')).toThrow(RangeError);
    expect(() => rubToMicro(Number.NaN)).toThrow(RangeError);
  });

  it('converts micro-RUB back to RUB numbers', () => {
    expect(microToRub(1)).toBe(0.000001);
    expect(microToRub(12_345_678)).toBe(12.345678);
    expect(microToRub(0)).toBe(0);
  });

  it('prices tokens per million, rounded half-up once', () => {
    expect(tokenCostMicro(1_000_000, 200)).toBe(200_000_000); // 1M tokens at 200 RUB = 200 RUB
    expect(tokenCostMicro(1, 200)).toBe(200); // 0.0002 RUB
    expect(tokenCostMicro(3, 0.5)).toBe(2); // 1.5 µRUB → 2
    expect(tokenCostMicro(1, 0.4)).toBe(0); // 0.4 µRUB → 0
    expect(tokenCostMicro(0, 999)).toBe(0);
    expect(tokenCostMicro(123_456_789, 780)).toBe(96_296_295_420);
  });

  it('rounds a sum of parts once', () => {
    // 1 token at 0.4 RUB/1M three times: 3 × 0.4 µRUB = 1.2 µRUB → 1, whereas rounding each part gives 0
    expect(
      exactCostMicro([
        { tokens: 1, rubPer1M: 0.4 },
        { tokens: 1, rubPer1M: 0.4 },
        { tokens: 1, rubPer1M: 0.4 },
      ]).totalMicro,
    ).toBe(1);
  });
});
