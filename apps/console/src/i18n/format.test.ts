import { describe, expect, it } from 'vitest';
import { formatRub, formatRubAxis } from './index';

describe('RUB on a chart axis', () => {
  // the ticks a spend chart got for a day of ≈ 0.014 RUB: two-decimal amounts made two of them "0,01 ₽"
  const ticks = [0, 0.0035, 0.007, 0.0105, 0.014];

  it('keeps ticks a fraction of a kopeck apart distinct, in both languages', () => {
    for (const lang of ['ru', 'en']) {
      const labels = ticks.map((v) => formatRubAxis(v, lang));
      expect(new Set(labels).size).toBe(ticks.length);
    }
    expect(formatRubAxis(0.0105, 'ru')).toBe('0,0105\u00a0₽');
    expect(formatRubAxis(0.014, 'en')).toBe('RUB\u00a00.014');
  });

  it('writes round ticks without decimals', () => {
    expect(formatRubAxis(1500, 'ru')).toBe('1\u00a0500\u00a0₽');
    expect(formatRubAxis(0, 'en')).toBe('RUB\u00a00');
    expect(formatRubAxis(2.5, 'en')).toBe('RUB\u00a02.5');
  });
});

describe('RUB amounts', () => {
  it('keep up to six decimals below one rouble and two from one rouble up', () => {
    expect(formatRub(0.0138, 'en')).toBe('RUB\u00a00.0138');
    expect(formatRub(0.001584, 'ru')).toBe('0,001584\u00a0₽');
    expect(formatRub(0.075, 'en')).toBe('RUB\u00a00.075');
    expect(formatRub(0.5, 'en')).toBe('RUB\u00a00.50');
    expect(formatRub(0, 'en')).toBe('RUB\u00a00.00');
    expect(formatRub(749.9862, 'ru')).toBe('749,99\u00a0₽');
    expect(formatRub(1234.5, 'en')).toBe('RUB\u00a01,234.50');
    expect(formatRub(-0.000034, 'en')).toBe('-RUB\u00a00.000034');
    expect(formatRub(12.345678, 'en', 6)).toBe('RUB\u00a012.345678');
  });
});
