import { describe, expect, it } from 'vitest';
import i18n, { formatRub, formatRubAxis } from './index';

const NB = '\u00a0';

describe('RUB on a chart axis', () => {
  // the ticks a spend chart got for a day of ≈ 0.014 RUB: two-decimal amounts made two of them "0,01 ₽"
  const ticks = [0, 0.0035, 0.007, 0.0105, 0.014];

  it.each(['ru', 'en'])('keeps ticks a fraction of a kopeck apart distinct (%s)', (lang) => {
    const labels = ticks.map((v) => formatRubAxis(v, lang));
    expect(new Set(labels).size).toBe(ticks.length);
  });

  it.each([
    [0.0105, 'ru', `0,0105${NB}₽`],
    [0.014, 'en', `RUB${NB}0.014`],
    [1500, 'ru', `1${NB}500${NB}₽`],
    [0, 'en', `RUB${NB}0`],
    [2.5, 'en', `RUB${NB}2.5`],
  ])('%s in %s reads %s', (value, lang, label) => {
    expect(formatRubAxis(value, lang)).toBe(label);
  });
});

describe('RUB amounts: up to six decimals below one rouble, two from one rouble up', () => {
  it.each([
    [0.0138, 'en', undefined, `RUB${NB}0.0138`],
    [0.001584, 'ru', undefined, `0,001584${NB}₽`],
    [0.075, 'en', undefined, `RUB${NB}0.075`],
    [0.5, 'en', undefined, `RUB${NB}0.50`],
    [0, 'en', undefined, `RUB${NB}0.00`],
    [749.9862, 'ru', undefined, `749,99${NB}₽`],
    [1234.5, 'en', undefined, `RUB${NB}1,234.50`],
    [-0.000034, 'en', undefined, `-RUB${NB}0.000034`],
    [12.345678, 'en', 6, `RUB${NB}12.345678`],
  ])('%s in %s (digits %s) reads %s', (value, lang, digits, label) => {
    expect(formatRub(value, lang, digits)).toBe(label);
  });
});

describe('counted words agree with their number', () => {
  it.each([
    [1, 'en', '1 chunk'],
    [0, 'en', '0 chunks'],
    [2, 'en', '2 chunks'],
    [1, 'ru', '1 фрагмент'],
    [21, 'ru', '21 фрагмент'],
    [3, 'ru', '3 фрагмента'],
    [5, 'ru', '5 фрагментов'],
    [11, 'ru', '11 фрагментов'],
    [0, 'ru', '0 фрагментов'],
  ])('%s in %s: %s', (count, lng, text) => {
    expect(i18n.t('kb.chunkCount', { count, n: String(count), lng })).toBe(text);
  });
});
