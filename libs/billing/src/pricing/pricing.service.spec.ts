import { PricingService } from './pricing.service';

describe('PricingService', () => {
  const p = new PricingService();

  it('holds 10 % + 32 over an exact count', () => {
    expect(p.holdTokens(1000)).toBe(1132);
    expect(p.holdTokens(0)).toBe(32);
  });

  it('holds more where another tokenizer counts: Cyrillic costs a token per character at least', () => {
    const ru = 'Проверка резервирования. '.repeat(40);
    const nonAscii = [...ru].filter((c) => c.codePointAt(0)! > 0x7f).length;
    const counted = 300;
    expect(p.holdTokens(counted, { exact: false, text: ru })).toBe(
      Math.max(450, nonAscii + Math.ceil((ru.length - nonAscii) / 3)) + 32,
    );
    expect(p.holdTokens(counted, { exact: false, text: ru })).toBeGreaterThan(nonAscii);
    // plain English: 1.5 × the count wins
    expect(p.holdTokens(100, { exact: false, text: 'hello world '.repeat(10) })).toBe(182);
  });

  it('prices are tokens × RUB per 1M, rounded once to the µRUB', () => {
    expect(p.micro([{ tokens: 13, rubPer1M: 200 }])).toBe(2600);
    expect(
      p.micro([
        { tokens: 1, rubPer1M: 0.4 },
        { tokens: 1, rubPer1M: 0.4 },
      ]),
    ).toBe(1);
    expect(p.inputMicro({ input_rub_per_1m: 780 }, 1000)).toBe(780_000);
    expect(p.inputHoldMicro({ input_rub_per_1m: 200 }, 1000)).toBe(1132 * 200);
  });
});
