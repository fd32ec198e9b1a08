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
    expect(ticks.map((v) => formatRub(v, 'ru')).filter((l) => l === '0,01\u00a0₽')).toHaveLength(2);
    expect(formatRubAxis(0.0105, 'ru')).toBe('0,0105\u00a0₽');
    expect(formatRubAxis(0.014, 'en')).toBe('RUB\u00a00.014');
  });

  it('writes round ticks without decimals', () => {
    expect(formatRubAxis(1500, 'ru')).toBe('1\u00a0500\u00a0₽');
    expect(formatRubAxis(0, 'en')).toBe('RUB\u00a00');
    expect(formatRubAxis(2.5, 'en')).toBe('RUB\u00a02.5');
  });
});
