import { PasswordHasher } from './password-hasher';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher();

  it('scrypt hashes with their parameters and a random salt; verify accepts the password only', async () => {
    const a = await hasher.hash('correct horse battery staple');
    const b = await hasher.hash('correct horse battery staple');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{86}$/);
    expect(a).not.toBe(b);
    expect(await hasher.verify('correct horse battery staple', a)).toBe(true);
    expect(await hasher.verify('correct horse battery stapl', a)).toBe(false);
    expect(await hasher.verify('anything', null)).toBe(false);
    expect(await hasher.verify('anything', 'not-a-hash')).toBe(false);
  });
});
