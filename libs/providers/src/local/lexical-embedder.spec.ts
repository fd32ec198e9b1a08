import { createHash } from 'node:crypto';
import { benchLexicalEmbedder, benchSentences } from './lexical-embedder.bench';
import { cosineSimilarity, LexicalEmbedder, normalizeForLexicalMatch } from './lexical-embedder';

function norm(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

/** SHA-256 of the vector as little-endian float32s (endianness-independent). */
function digest(v: Float32Array): string {
  const bytes = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return createHash('sha256').update(bytes).digest('hex');
}

describe('LexicalEmbedder', () => {
  const embedder = new LexicalEmbedder();
  const cos = (a: string, b: string, dims = 1536): number =>
    cosineSimilarity(embedder.embed(a, dims), embedder.embed(b, dims));

  it.each([1, 7, 256, 1536, 3072])('returns exactly %i dimensions', (dims) => {
    const v = embedder.embed('hello world', dims);
    expect(v).toBeInstanceOf(Float32Array);
    expect(v.length).toBe(dims);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects dimensions %p', (dims) => {
    expect(() => embedder.embed('x', dims)).toThrow(RangeError);
    expect(() => embedder.embedMany(['x'], dims)).toThrow(RangeError);
  });

  it('is deterministic across calls and instances', () => {
    const text = 'Отчёт о выручке за третий квартал 2024 года: рост 15%.';
    const a = embedder.embed(text, 1536);
    embedder.embed('something else entirely, to dirty the scratch state', 1536);
    embedder.embed('other dims', 3072);
    const b = embedder.embed(text, 1536);
    const c = new LexicalEmbedder().embed(text, 1536);
    expect(Array.from(b)).toEqual(Array.from(a));
    expect(Array.from(c)).toEqual(Array.from(a));
  });

  it('matches golden digests (guards the on-disk/cached vector format against accidental change)', () => {
    // If you change the algorithm on purpose, update these and invalidate any stored vectors.
    expect(digest(embedder.embed('Привет, мир! Hello world 42', 64))).toBe(GOLDEN_64);
    expect(digest(embedder.embed('The quick brown fox jumps over the lazy dog.', 1536))).toBe(GOLDEN_1536);
  });

  it('produces unit vectors', () => {
    for (const text of [
      'a',
      'hello world',
      'Съешь же ещё этих мягких французских булок',
      'x '.repeat(500),
      benchSentences(1)[0],
    ]) {
      for (const dims of [1, 16, 1536, 3072]) {
        expect(norm(embedder.embed(text, dims))).toBeCloseTo(1, 5);
      }
    }
  });

  it('uses signed hashing (both signs occur)', () => {
    const v = embedder.embed('one two three four five six seven eight nine ten', 1536);
    expect(v.some((x) => x > 0)).toBe(true);
    expect(v.some((x) => x < 0)).toBe(true);
  });

  it.each(['', '   ', '!!! ... ??? —', '\n\t', '😀🎉'])(
    'text without words (%p) gives the zero vector and cosine 0',
    (text) => {
      const v = embedder.embed(text, 64);
      expect(v.every((x) => x === 0)).toBe(true);
      expect(cosineSimilarity(v, embedder.embed('hello', 64))).toBe(0);
      expect(cosineSimilarity(v, v)).toBe(0);
    },
  );

  it('identical texts have cosine 1; case, width (NFKC) and ё/е do not matter', () => {
    expect(cos('Hello world', 'Hello world')).toBeCloseTo(1, 6);
    expect(cos('HELLO WORLD', 'hello world')).toBeCloseTo(1, 6);
    expect(cos('ＨＥＬＬＯ ｗｏｒｌｄ', 'hello world')).toBeCloseTo(1, 6);
    expect(cos('Ёжик в тумане', 'ежик в тумане')).toBeCloseTo(1, 6);
    expect(cos('hello,   world!!!', 'hello world')).toBeCloseTo(1, 6);
  });

  it('scores overlapping texts above unrelated ones (English)', () => {
    const q = 'invoice payment from the customer';
    const related = 'The customer sent the invoice payment yesterday';
    const unrelated = 'Sunny weather is expected in the mountains tomorrow';
    expect(cos(q, related)).toBeGreaterThan(cos(q, unrelated) + 0.2);
  });

  it('works for Cyrillic, including inflected forms (character trigrams)', () => {
    const q = 'оплата счёта клиентом';
    const related = 'Клиент вчера оплатил счёт по договору';
    const unrelated = 'Погода в горах будет солнечной';
    expect(cos(q, related)).toBeGreaterThan(cos(q, unrelated) + 0.1);
    expect(cos('документы', 'документов')).toBeGreaterThan(0.3);
    expect(cos('документы', 'документов')).toBeGreaterThan(cos('документы', 'погода') + 0.3);
    expect(norm(embedder.embed('Привет', 256))).toBeCloseTo(1, 5);
  });

  it('word order matters a little (bigrams) but not a lot', () => {
    const c = cos('dog bites man', 'man bites dog');
    expect(c).toBeLessThan(0.999);
    expect(c).toBeGreaterThan(0.7);
  });

  it('stems words: "running" is close to "run", a Russian inflection to its lemma', () => {
    // the unigram and bigram features are stems, so only the character trigrams differ
    expect(cos('running', 'run')).toBeGreaterThan(0.6);
    expect(cos('running', 'run')).toBeGreaterThan(cos('running', 'rung') + 0.3);
    expect(cos('paying invoices', 'pay the invoice')).toBeGreaterThan(0.6);
    expect(cos('документов', 'документ')).toBeGreaterThan(0.6);
    expect(cos('серверами', 'сервер')).toBeGreaterThan(0.6);
    expect(cos('серверами', 'сервер')).toBeGreaterThan(cos('серверами', 'северный') + 0.3);
  });

  it('stop words give no features: a passage sharing only "the" and "of" is unrelated', () => {
    const q = 'the rotation of the encryption keys';
    expect(cos(q, 'The history of the city of Tbilisi')).toBe(0);
    expect(cos(q, 'Encryption keys are rotated every ninety days')).toBeGreaterThan(0.5);
    expect(cos('the of and', 'the of and')).toBeCloseTo(1, 6); // a text of stop words alone keeps them
    expect(cos('и в на', 'и в на')).toBeCloseTo(1, 6);
  });

  it('is lexical, not semantic: synonyms do not match', () => {
    expect(cos('car', 'automobile')).toBeLessThan(0.2);
  });

  it('embedMany equals embed on each text', () => {
    const texts = ['alpha beta', '', 'гамма дельта', 'alpha beta'];
    const many = embedder.embedMany(texts, 128);
    expect(many).toHaveLength(4);
    texts.forEach((t, i) => expect(Array.from(many[i])).toEqual(Array.from(embedder.embed(t, 128))));
    expect(embedder.embedMany([], 128)).toEqual([]);
  });

  it('handles long texts and many distinct features (table growth)', () => {
    const words: string[] = [];
    for (let i = 0; i < 5000; i++) words.push(`w${i}x`);
    const v = embedder.embed(words.join(' '), 3072);
    expect(norm(v)).toBeCloseTo(1, 4);
    expect(cosineSimilarity(v, embedder.embed(words.slice(0, 2500).join(' '), 3072))).toBeGreaterThan(0.5);
  });

  it('sublinear tf: repeating a word 100× does not drown the other words', () => {
    const c = cos('apple ' + 'banana '.repeat(100), 'apple');
    expect(c).toBeGreaterThan(0.1);
  });

  it('normalizeForLexicalMatch applies NFKC, lower case and ё → е', () => {
    expect(normalizeForLexicalMatch('ＡＢＣ Ёлка ﬁ')).toBe('abc елка fi');
  });

  describe('cosineSimilarity', () => {
    it('rejects vectors of different length', () => {
      expect(() => cosineSimilarity(new Float32Array(2), new Float32Array(3))).toThrow(RangeError);
    });
    it('computes cosine of unnormalised vectors and clamps to [-1, 1]', () => {
      expect(cosineSimilarity(Float32Array.from([1, 0]), Float32Array.from([2, 0]))).toBe(1);
      expect(cosineSimilarity(Float32Array.from([1, 0]), Float32Array.from([-3, 0]))).toBe(-1);
      expect(cosineSimilarity(Float32Array.from([1, 1]), Float32Array.from([1, 0]))).toBeCloseTo(Math.SQRT1_2, 6);
    });
  });

  it('bench helper runs (no timing assertion)', () => {
    const result = benchLexicalEmbedder(new LexicalEmbedder(), 200, 256);
    expect(result.sentences).toBe(200);
    expect(result.dimensions).toBe(256);
    expect(result.perSecond).toBeGreaterThan(0);
    expect(benchSentences(3)).toEqual(benchSentences(3));
  });
});

const GOLDEN_64 = 'd47af3e37cc8445103dbf1a2b3798e13198261d9f01da53a9ec2cf6e52ef9a0a';
const GOLDEN_1536 = 'c69d065aec997c362ca54f20ed6294eb9ec784c98d999ececf95c94715aeba21';
