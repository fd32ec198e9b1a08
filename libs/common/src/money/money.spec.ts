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

  /** The BigInt reference: round(Σ tokens × µRUB-per-1M / 1e6), half-up. */
  const reference = (parts: { tokens: number; rubPer1M: number }[]): number => {
    let num = 0n;
    for (const p of parts)
      if (p.tokens > 0 && p.rubPer1M > 0) num += BigInt(p.tokens) * BigInt(rubToMicro(String(p.rubPer1M)));
    const q = num / 1_000_000n;
    return Number(num % 1_000_000n >= 500_000n ? q + 1n : q);
  };

  it('integer arithmetic below 2^53 gives the BigInt result: random prices, token counts and boundaries', () => {
    let seed = 42;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const prices = [0.000001, 0.4, 0.5, 1.5, 12.345678, 199.999999, 780, 4500.5, 1_000_000, 123_456.789012];
    for (let i = 0; i < 10_000; i++) {
      const n = 1 + Math.floor(rand() * 3);
      const parts = Array.from({ length: n }, () => ({
        tokens: Math.floor(rand() * 10 ** (1 + Math.floor(rand() * 9))),
        rubPer1M: rand() < 0.5 ? prices[Math.floor(rand() * prices.length)] : Math.round(rand() * 1e9) / 1e6,
      }));
      expect(exactCostMicro(parts).totalMicro).toBe(reference(parts));
      expect(tokenCostMicro(parts[0].tokens, parts[0].rubPer1M)).toBe(reference([parts[0]]));
    }
    // exactly half a µRUB rounds up; just below half rounds down
    expect(tokenCostMicro(1, 0.5)).toBe(1);
    expect(tokenCostMicro(999_999, 0.5)).toBe(reference([{ tokens: 999_999, rubPer1M: 0.5 }]));
    // a numerator just below 2^53 (float division may land on the integer above: the remainder corrects it)
    const big = { tokens: 9_007_199, rubPer1M: 999_999_999.999999 };
    expect(tokenCostMicro(big.tokens, big.rubPer1M)).toBe(reference([big]));
  });

  it('past 2^53 the BigInt path takes over; a total past the safe range is refused', () => {
    const parts = [
      { tokens: 4_000_000_000, rubPer1M: 2_000_000 },
      { tokens: 3, rubPer1M: 0.5 },
    ];
    // 8e21 + 1.5 → 8e15 µRUB + 2: exact only in BigInt (the float sum would lose the 2)
    expect(exactCostMicro(parts).totalMicro).toBe(reference(parts));
    expect(exactCostMicro(parts).totalMicro).toBe(8_000_000_000_000_002);
    expect(() => tokenCostMicro(10_000_000_000, 1_000_000)).toThrow(RangeError);
    // a fractional token count is refused, as the BigInt arithmetic always did — even when its product
    // with the price happens to be an integer (0.5 × 2,000,000 µRUB)
    expect(() => exactCostMicro([{ tokens: 0.5, rubPer1M: 2 }])).toThrow(RangeError);
    expect(() => tokenCostMicro(0.5, 2)).toThrow(RangeError);
  });
});
