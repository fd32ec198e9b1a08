import { extractApiKey } from './api-key.header';
import { displayPrefix, generateApiKey, hashApiKey, secretsEqual } from './api-key.crypto';

describe('extractApiKey', () => {
  it.each([
    [{ 'api-key': 'sk-abc' }, 'sk-abc'],
    [{ 'api-key': '  sk-abc  ' }, 'sk-abc'],
    [{ authorization: 'Bearer sk-abc' }, 'sk-abc'],
    [{ authorization: 'bearer sk-abc' }, 'sk-abc'],
    [{ authorization: 'api-key sk-abc' }, 'sk-abc'],
    [{ authorization: 'Api-Key sk-abc' }, 'sk-abc'],
    [{ 'api-key': 'sk-first', authorization: 'Bearer sk-second' }, 'sk-first'],
    [{ 'x-api-key': 'sk-anthropic-style' }, 'sk-anthropic-style'],
    [{ 'x-api-key': ' ', authorization: 'Bearer sk-abc' }, 'sk-abc'],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, null],
    [{ authorization: 'Bearer' }, null],
    [{ authorization: 'Bearer a b' }, null],
    [{ 'api-key': '' }, null],
    [{}, null],
  ])('%j → %s', (headers, expected) => {
    expect(extractApiKey(headers)).toBe(expected);
  });
});

describe('api key crypto', () => {
  it('generates prefixed keys with 32 bytes of entropy, all distinct', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
    for (const k of keys) {
      expect(k).toMatch(/^sk-[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(k.slice(3), 'base64url')).toHaveLength(32);
    }
  });

  it('hashes with SHA-256 (hex) and shows only a short prefix', () => {
    expect(hashApiKey('sk-test')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(displayPrefix('sk-ABCDEFGHIJKLMNOP')).toBe('sk-ABCDEFGH');
  });

  it('compares secrets in constant time regardless of length', () => {
    expect(secretsEqual('token-1234567890ab', 'token-1234567890ab')).toBe(true);
    expect(secretsEqual('token-1234567890ab', 'token-1234567890ac')).toBe(false);
    expect(secretsEqual('short', 'much-longer-value')).toBe(false);
  });
});
