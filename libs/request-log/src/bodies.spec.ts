import { capBytes, redactValue, storedRequestBody, storedResponseBody } from './bodies';

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
