import { describe, expect, it } from 'vitest';
import i18n from './index';

const chunks = (count: number, lng: string) => i18n.t('kb.chunkCount', { count, n: String(count), lng });

describe('counted words agree with their number', () => {
  it('in English', () => {
    expect(chunks(1, 'en')).toBe('1 chunk');
    expect(chunks(0, 'en')).toBe('0 chunks');
    expect(chunks(2, 'en')).toBe('2 chunks');
  });

  it('in Russian (one, few, many)', () => {
    expect(chunks(1, 'ru')).toBe('1 фрагмент');
    expect(chunks(21, 'ru')).toBe('21 фрагмент');
    expect(chunks(3, 'ru')).toBe('3 фрагмента');
    expect(chunks(5, 'ru')).toBe('5 фрагментов');
    expect(chunks(11, 'ru')).toBe('11 фрагментов');
    expect(chunks(0, 'ru')).toBe('0 фрагментов');
  });
});
