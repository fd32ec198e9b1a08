import { Tiktoken } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { trimIncompleteUtf8 } from './bpe';
import { TOKENS_PER_MESSAGE, TOKENS_REPLY_PRIMING, TokenCounter } from './token-counter';

/** Deterministic PRNG (mulberry32) so fuzz cases are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = [
  'a',
  'b',
  'e',
  'x',
  'Q',
  'Z',
  'th',
  'ing',
  ' ',
  ' ',
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\t',
  '0',
  '7',
  '42',
  '.',
  ',',
  '!',
  '?',
  "'s",
  "'",
  '"',
  '-',
  '—',
  '(',
  ')',
  '{',
  '}',
  '=',
  '_',
  '/',
  'к',
  'о',
  'т',
  'Ж',
  'ё',
  'ы',
  'щ',
  'и',
  'é',
  'ß',
  '中',
  '文',
  '😀',
  '👍🏽',
  '\u0301',
  '<|endoftext|>',
];

function randomText(rand: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  return out;
}

const SAMPLES = [
  '',
  'a',
  'Hello, world!',
  "The quick brown fox jumps over the lazy dog. It's 2024 and we're testing 12345678 tokens.",
  'Съешь же ещё этих мягких французских булок, да выпей чаю! Привет, как дела?',
  'function add(a: number, b: number): number {\n  return a + b;\n}\n\n\n',
  'emoji 😀👍🏽 and 中文字符 and العربية',
  'spaces      between    words\t\ttabs\n\n\nnew lines   ',
  'special <|endoftext|> and <|endofprompt|> tokens are ordinary text here',
  'x'.repeat(300),
  '='.repeat(700),
  ' '.repeat(1000) + 'end',
  'Ы'.repeat(400),
  'ab'.repeat(1500),
];

describe('TokenCounter', () => {
  const o200k = new TokenCounter();
  const cl100k = new TokenCounter('cl100k_base');
  let refO200k: Tiktoken;
  let refCl100k: Tiktoken;

  beforeAll(() => {
    refO200k = new Tiktoken(o200kBase);
    refCl100k = new Tiktoken(cl100kBase);
  });

  it('defaults to o200k_base', () => {
    expect(o200k.encoding).toBe('o200k_base');
    expect(cl100k.encoding).toBe('cl100k_base');
  });

  it('rejects an unknown encoding', () => {
    expect(() => new TokenCounter('p50k_base' as unknown as 'o200k_base')).toThrow(RangeError);
  });

  it.each(SAMPLES.map((s, i) => [i, s]))('sample %i: same tokens as js-tiktoken (both encodings)', (_i, text) => {
    expect(o200k.encode(text as string)).toEqual(refO200k.encode(text as string, [], []));
    expect(cl100k.encode(text as string)).toEqual(refCl100k.encode(text as string, [], []));
    expect(o200k.count(text as string)).toBe(refO200k.encode(text as string, [], []).length);
  });

  it('matches js-tiktoken on 300 random mixed-script texts', () => {
    const rand = prng(12345);
    for (let i = 0; i < 300; i++) {
      const text = randomText(rand, 1 + Math.floor(rand() * 120));
      expect(o200k.encode(text)).toEqual(refO200k.encode(text, [], []));
      expect(cl100k.encode(text)).toEqual(refCl100k.encode(text, [], []));
    }
  });

  it('matches js-tiktoken on long single pieces (heap merge path)', () => {
    const rand = prng(7);
    const punct = '!@#$%^&*()_+-=[]{};:,.<>/?|~';
    let longPunct = '';
    for (let i = 0; i < 600; i++) longPunct += punct[Math.floor(rand() * punct.length)];
    let longWord = '';
    const letters = 'abcdefghijklmnopqrstuvwxyzабвгдежзийклмнопрстуфхцчшщъыьэюя';
    for (let i = 0; i < 500; i++) longWord += letters[Math.floor(rand() * letters.length)];
    for (const text of [longPunct, longWord, 'a'.repeat(2500), 'ё'.repeat(700), '\n'.repeat(400)]) {
      expect(o200k.encode(text)).toEqual(refO200k.encode(text, [], []));
      expect(cl100k.encode(text)).toEqual(refCl100k.encode(text, [], []));
    }
  });

  it('counts special-token text as ordinary text instead of throwing', () => {
    expect(() => o200k.count('<|endoftext|>')).not.toThrow();
    expect(o200k.count('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('encodings differ where they should', () => {
    const text = 'Съешь же ещё этих мягких французских булок';
    expect(cl100k.count(text)).toBeGreaterThan(o200k.count(text));
  });

  it('decode(encode(x)) round-trips', () => {
    const rand = prng(99);
    for (const text of [...SAMPLES, randomText(rand, 200), randomText(rand, 500)]) {
      expect(o200k.decode(o200k.encode(text))).toBe(text);
      expect(cl100k.decode(cl100k.encode(text))).toBe(text);
    }
  });

  it('decode rejects unknown token ids and decodes special tokens', () => {
    expect(() => o200k.decode([999_999_999])).toThrow(RangeError);
    // ids between the special tokens, below 0 or not whole are unknown too
    for (const id of [200_005, -1, 1.5]) expect(() => o200k.decode([id])).toThrow(RangeError);
    expect(o200k.decode([199999])).toBe('<|endoftext|>');
  });

  describe('countChat', () => {
    it('adds 3 per message plus 3 for reply priming', () => {
      const messages = [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'Привет!' },
      ];
      const expected =
        TOKENS_REPLY_PRIMING +
        messages.reduce((sum, m) => sum + TOKENS_PER_MESSAGE + o200k.count(m.role) + o200k.count(m.content), 0);
      expect(o200k.countChat(messages)).toBe(expected);
      // concrete o200k figures: (3 + 1 "system" + 4 "You are helpful.") + (3 + 1 "user" + 3 "Привет!") + 3
      expect(o200k.countChat(messages)).toBe(18);
    });

    it('empty list costs only the priming tokens; null content counts 0; name adds 1 + its tokens', () => {
      expect(o200k.countChat([])).toBe(3);
      expect(o200k.countChat([{ role: 'assistant', content: null }])).toBe(3 + 1 + 3);
      expect(o200k.countChat([{ role: 'user', content: 'hi', name: 'bob' }])).toBe(
        3 + 1 + 1 + 1 + o200k.count('bob') + 3,
      );
    });
  });

  describe('truncate', () => {
    it('returns the text itself when it fits', () => {
      const text = 'Hello, world!';
      expect(o200k.truncate(text, o200k.count(text))).toBe(text);
      expect(o200k.truncate(text, 1000)).toBe(text);
    });

    it('returns a prefix with at most maxTokens tokens', () => {
      const text = SAMPLES[3] + ' ' + SAMPLES[4];
      for (const max of [1, 2, 5, 10, 17]) {
        const cut = o200k.truncate(text, max);
        expect(text.startsWith(cut)).toBe(true);
        expect(o200k.count(cut)).toBeLessThanOrEqual(max);
        expect(cut.length).toBeGreaterThan(0);
      }
      expect(o200k.truncate(text, 5)).toBe(o200k.decode(o200k.encode(text).slice(0, 5)));
    });

    it('never splits a multi-byte character', () => {
      const text = '😀😀😀 中文字符中文字符 ёжик в тумане';
      for (let max = 1; max <= o200k.count(text); max++) {
        const cut = o200k.truncate(text, max);
        expect(cut).not.toContain('\uFFFD');
        expect(text.startsWith(cut)).toBe(true);
        expect(o200k.count(cut)).toBeLessThanOrEqual(max);
      }
    });

    it('zero or negative budget gives the empty string', () => {
      expect(o200k.truncate('abc', 0)).toBe('');
      expect(o200k.truncate('abc', -5)).toBe('');
      expect(o200k.truncate('', 5)).toBe('');
    });
  });

  it('trimIncompleteUtf8 drops only an unfinished trailing sequence', () => {
    const euro = Buffer.from('a€', 'utf8'); // 61 e2 82 ac
    expect(trimIncompleteUtf8(euro).toString('utf8')).toBe('a€');
    expect(trimIncompleteUtf8(euro.subarray(0, 3)).toString('utf8')).toBe('a');
    expect(trimIncompleteUtf8(euro.subarray(0, 2)).toString('utf8')).toBe('a');
    expect(trimIncompleteUtf8(Buffer.from([0x82, 0xac])).length).toBe(0);
  });

  it('handles ~1 MB of text (realistic and pathological) without blowing up', () => {
    const paragraph =
      'The quick brown fox jumps over the lazy dog. Съешь же ещё этих мягких французских булок, да выпей чаю! 12345 function foo(x) { return x * 2; }\n';
    const realistic = paragraph.repeat(Math.ceil(1_000_000 / paragraph.length));
    const count = o200k.count(realistic);
    expect(count).toBe(o200k.count(paragraph) * Math.ceil(1_000_000 / paragraph.length));
    expect(o200k.truncate(realistic, 10)).toBe(o200k.decode(o200k.encode(realistic).slice(0, 10)));
    // one 1 MB piece: quadratic in js-tiktoken (would take hours), n log n here
    const pathological = 'a'.repeat(1_000_000);
    expect(o200k.count(pathological)).toBeGreaterThan(1000);
    expect(o200k.decode(o200k.encode(pathological))).toBe(pathological);
  });
});
