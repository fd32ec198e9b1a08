import {
  allocateKopecks,
  formatRub,
  includedVatKopecks,
  microToKopecks,
  rubInWords,
  rubToKopecks,
  vatLabel,
} from './document-money';

describe('amount in words', () => {
  it.each([
    [0, 'Ноль рублей 00 копеек'],
    [100, 'Один рубль 00 копеек'],
    [2100, 'Двадцать один рубль 00 копеек'],
    [100_000_150, 'Один миллион один рубль 50 копеек'],
    [205, 'Два рубля 05 копеек'],
    [10_121, 'Сто один рубль 21 копейка'],
    [1, 'Ноль рублей 01 копейка'],
    [500_002, 'Пять тысяч рублей 02 копейки'],
    [112_500_000, 'Один миллион сто двадцать пять тысяч рублей 00 копеек'],
  ])('%i kopecks → %s', (kopecks, words) => {
    expect(rubInWords(kopecks)).toBe(words);
  });

  it('refuses negative and fractional kopecks', () => {
    expect(() => rubInWords(-1)).toThrow(RangeError);
    expect(() => rubInWords(1.5)).toThrow(RangeError);
  });
});

describe('VAT included in an amount', () => {
  it.each([
    // gross, rate, vat: gross × r / (100 + r), half-up to the kopeck
    [12_200, '22', 2_200],
    [100_000, '22', 18_033], // 1000.00 × 22/122 = 180.327… → 180.33
    [11_000, '10', 1_000],
    [100_000, '10', 9_091], // 1000.00 × 10/110 = 90.909… → 90.91
    [1, '22', 0], // 0.01 × 22/122 = 0.0018 → 0.00
    [3, '22', 1], // 0.03 × 22/122 = 0.0054 → 0.01
    [61, '22', 11], // 0.61 × 22/122 = 0.11 exactly
    [100_000, '0', 0],
    [100_000, 'none', 0],
  ] as const)('%i kopecks at %s → %i', (gross, rate, vat) => {
    expect(includedVatKopecks(gross, rate)).toBe(vat);
  });

  it('rounds a half kopeck up', () => {
    // 5.49 RUB at 22 %: 549 × 22 / 122 = 99.0 → 99; 0.305 kopeck cases: 183 × 22/122 = 33.0
    // 0.5 exactly: gross × 22 / 122 = k + 0.5  ⇔  gross × 44 = 122 × (2k + 1): gross = 61 × (2k+1) / 22 — never
    // an integer, so take 10 %: gross × 10 / 110 = k + 0.5 ⇔ gross = 11 × (2k + 1) / 2 — never either;
    // the half case cannot occur at these rates, so check the rounding direction around it instead
    expect(includedVatKopecks(17, '10')).toBe(2); // 1.545… → 2
    expect(includedVatKopecks(16, '10')).toBe(1); // 1.4545… → 1
  });

  it('labels the line', () => {
    expect(vatLabel('22')).toBe('В том числе НДС (22%):');
    expect(vatLabel('10')).toBe('В том числе НДС (10%):');
    expect(vatLabel('none')).toBe('Без НДС');
  });
});

describe('rounding and figures', () => {
  it('µRUB → kopecks half-up', () => {
    expect(microToKopecks(0)).toBe(0);
    expect(microToKopecks(4_999)).toBe(0);
    expect(microToKopecks(5_000)).toBe(1);
    expect(microToKopecks(1_234_565_000)).toBe(123_457);
    expect(microToKopecks(1_234_564_999)).toBe(123_456);
  });

  it('RUB with at most 2 decimals → kopecks', () => {
    expect(rubToKopecks(1_000_001.5)).toBe(100_000_150);
    expect(rubToKopecks(0.1 + 0.2)).toBe(30);
    expect(rubToKopecks(10.005)).toBeNull();
    expect(rubToKopecks(Number.NaN)).toBeNull();
  });

  it('formats with groups of three and a comma', () => {
    expect(formatRub(0)).toBe('0,00');
    expect(formatRub(100_000_150)).toBe('1 000 001,50');
    expect(formatRub(99)).toBe('0,99');
  });

  it('splits a total over lines that add up to it', () => {
    // three lines of 0.333333 RUB: the total 0.999999 → 1.00; the lines 0.33 + 0.33 + 0.34? no — the
    // largest remainders first, ties to the earlier line: 0.34, 0.33, 0.33
    const { totalKopecks, lines } = allocateKopecks([333_333, 333_333, 333_333]);
    expect(totalKopecks).toBe(100);
    expect(lines).toEqual([34, 33, 33]);
    const second = allocateKopecks([1_004_000, 2_007_000, 5_000]);
    expect(second.totalKopecks).toBe(302); // 3.016 RUB → 3.02
    expect(second.lines.reduce((a, b) => a + b, 0)).toBe(302);
    expect(second.lines).toEqual([100, 201, 1]);
  });
});
