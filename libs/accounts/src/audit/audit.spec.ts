import { redact } from './audit';

describe('redact', () => {
  it('replaces every secret-looking member at any depth and keeps the rest', () => {
    expect(
      redact({
        name: 'k',
        api_key: 'sk-abc',
        nested: { password: 'p', webhook_secret: 's', headers: { authorization: 'Bearer x' }, rpm_limit: 5 },
        list: [{ token: 't', role: 'member' }],
        key_hash: 'h',
        note: null,
      }),
    ).toEqual({
      name: 'k',
      api_key: '[redacted]',
      nested: {
        password: '[redacted]',
        webhook_secret: '[redacted]',
        headers: { authorization: '[redacted]' },
        rpm_limit: 5,
      },
      list: [{ token: '[redacted]', role: 'member' }],
      key_hash: '[redacted]',
      note: null,
    });
  });
});
