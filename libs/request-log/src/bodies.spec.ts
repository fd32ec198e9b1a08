import { capBytes, redactValue, storedRequestBody, storedResponseBody, textRedacted, TOO_DEEP } from './bodies';

describe('request-log bodies', () => {
  it('redacts credential fields and credentials inside text, keeps token counts', () => {
    const out = redactValue({
      api_key: 'anything',
      password: 'hunter2',
      max_tokens: 100,
      usage: { input_tokens: 3 },
      headers: { Authorization: 'Bearer abc' },
      messages: [{ content: 'use sk-ant-api03-abcdefghijklmnopqrstuvwx and Bearer abcdefghij123456' }],
      url: 'https://user:pass@example.com/x',
    });
    expect(out).toEqual({
      api_key: '[REDACTED]',
      password: '[REDACTED]',
      max_tokens: 100,
      usage: { input_tokens: 3 },
      headers: { Authorization: '[REDACTED]' },
      messages: [{ content: 'use [REDACTED] and Bearer [REDACTED]' }],
      url: 'https://[REDACTED]@example.com/x',
    });
  });

  it('stores images and files as references, never bytes', () => {
    const b64 = 'A'.repeat(4000);
    const out = JSON.stringify(
      redactValue({
        image_url: { url: `data:image/jpeg;base64,${b64}` },
        data: [{ b64_json: b64 }],
        file_id: 'file-1',
      }),
    );
    expect(out).not.toContain('AAAA');
    expect(out).toContain('[image/jpeg: 3000 bytes omitted]');
    expect(out).toContain('file-1');
  });

  it('caps at the byte limit without splitting a character, and says so', () => {
    expect(capBytes('abc', 10)).toEqual({ text: 'abc', truncated: false });
    const cut = capBytes('ж'.repeat(10), 5);
    expect(cut).toEqual({ text: 'жж', truncated: true });
    expect(storedRequestBody({ text: 'x'.repeat(100) }, 20)).toEqual({ text: '{"text":"xxxxxxxxxxx', truncated: true });
    expect(storedRequestBody({}, 20)).toBeNull();
  });

  it('a response: JSON redacted by field, SSE as text, a capture cut short marked truncated', () => {
    expect(storedResponseBody('{"secret":"x","a":1}', false, 100)).toEqual({
      text: '{"secret":"[REDACTED]","a":1}',
      truncated: false,
    });
    expect(storedResponseBody('data: {"t":"sk-abcdefghijklmnopqrstu"}\n\n', false, 100)?.text).toBe(
      'data: {"t":"[REDACTED]"}\n\n',
    );
    expect(storedResponseBody('{"a":', true, 100)).toEqual({ text: '{"a":', truncated: true });
  });
});

/** Fake credentials in their real formats (testing/secret-shapes.json): none may be stored. */
interface Corpus {
  text: { name: string; text: string; secret: string }[];
  fields: { name: string; body: Record<string, unknown> | null; secret: string }[];
  keep: { name: string; body: Record<string, unknown>; kept: string[] }[];
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const corpus = require('./testing/secret-shapes.json') as Corpus;

function nested(depth: number, leaf: Record<string, unknown>): Record<string, unknown> {
  let v: Record<string, unknown> = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : { list: [v] };
  return v;
}

describe('request-log redaction: the corpus of secret shapes', () => {
  it.each(corpus.text.map((c) => [c.name, c] as const))('text: %s', (_name, c) => {
    const asField = storedRequestBody({ messages: [{ role: 'user', content: c.text }] }, 1 << 20)!.text;
    const asStream = storedResponseBody(`data: ${JSON.stringify({ delta: c.text })}\n\n`, true, 1 << 20)!.text;
    for (const stored of [asField, asStream, textRedacted(c.text)]) {
      expect(stored).not.toContain(c.secret);
      expect(stored).toContain('[REDACTED]');
    }
  });

  it.each(corpus.fields.map((c) => [c.name, c] as const))('field: %s', (name, c) => {
    const depth = /depth (\d+)/.exec(name);
    const body = c.body ?? nested(Number(depth![1]), { password: c.secret });
    const stored = storedRequestBody(body, 1 << 20)!.text;
    expect(stored).not.toContain(c.secret);
    const response = storedResponseBody(JSON.stringify(body), false, 1 << 20)!.text;
    expect(response).not.toContain(c.secret);
  });

  it.each(corpus.keep.map((c) => [c.name, c] as const))('kept: %s', (_name, c) => {
    const stored = storedRequestBody(c.body, 1 << 20)!.text;
    for (const k of c.kept) expect(stored).toContain(k);
    expect(stored).not.toContain('[REDACTED]');
  });

  it('what is nested deeper than the cap is dropped, what is above it kept', () => {
    const stored = JSON.parse(storedRequestBody(nested(40, { note: 'deep' }), 1 << 20)!.text) as unknown;
    expect(JSON.stringify(stored)).not.toContain('deep"');
    expect(JSON.stringify(stored)).toContain(TOO_DEEP);
    expect(JSON.stringify(redactValue(nested(10, { note: 'shallow' })))).toContain('shallow');
  });

  it('stays linear on long hostile text', () => {
    const hostile = `${'a'.repeat(200_000)} ${'x-'.repeat(100_000)} ${'postgres://'.repeat(10_000)}`;
    const started = Date.now();
    textRedacted(hostile);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
