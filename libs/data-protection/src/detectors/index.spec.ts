import { ALL_ENTITY_TYPES, compileCustomPattern, DEFAULT_ENTITY_TYPES, detectPii } from './index';

describe('detectPii', () => {
  const text =
    'Иванов Иван Иванович, тел. +7 (916) 123-45-67, почта ivan@mail.ru, ИНН 7707083893, адрес: ул. Ленина, д. 5';

  it('returns sorted, non-overlapping matches whose value is the text at their span', () => {
    const found = detectPii(text, { entities: [...ALL_ENTITY_TYPES] });
    expect(found.map((m) => m.type)).toEqual(['person', 'phone', 'email', 'inn', 'address']);
    for (let i = 0; i < found.length; i++) {
      expect(text.slice(found[i].start, found[i].end)).toBe(found[i].value);
      if (i) expect(found[i].start).toBeGreaterThanOrEqual(found[i - 1].end);
    }
  });

  it('looks for every entity but addresses by default, and only for the entities asked for', () => {
    expect(DEFAULT_ENTITY_TYPES).not.toContain('address');
    expect(detectPii(text).map((m) => m.type)).toEqual(['person', 'phone', 'email', 'inn']);
    expect(detectPii(text, { entities: ['email', 'inn'] }).map((m) => m.type)).toEqual(['email', 'inn']);
    expect(detectPii(text, { entities: [] })).toEqual([]);
    expect(detectPii('')).toEqual([]);
  });

  it('never reports allow-listed values (case and surrounding spaces ignored)', () => {
    expect(detectPii(text, { allowList: [' IVAN@mail.ru ', 'Иванов Иван Иванович'] }).map((m) => m.type)).toEqual([
      'phone',
      'inn',
    ]);
  });

  it('keeps the better of two overlapping matches: a validated identifier over a custom pattern', () => {
    const digits = compileCustomPattern('long_number', String.raw`\d{10,}`);
    expect(detectPii('ИНН 7707083893', { customPatterns: [digits] })).toEqual([
      { type: 'inn', start: 4, end: 14, value: '7707083893' },
    ]);
    expect(detectPii('ref 12345678901234567890123', { customPatterns: [digits] })).toMatchObject([
      { type: 'custom', name: 'long_number' },
    ]);
  });

  it('keeps an OGRN that also passes Luhn as an OGRN, not a card', () => {
    // 5068744730203 is a valid OGRN and Luhn-valid with a Maestro-like prefix
    expect(detectPii('ОГРН 5068744730203').map((m) => m.type)).toEqual(['ogrn']);
  });
});
