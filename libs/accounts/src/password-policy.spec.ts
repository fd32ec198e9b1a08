import { PasswordPolicy } from './password-policy';

describe('PasswordPolicy', () => {
  const policy = new PasswordPolicy();

  it.each([
    ['short', [], 'password_too_short'],
    ['x'.repeat(201), [], 'password_too_long'],
    ['Qwerty123456', [], 'password_common'],
    ['aaaaaaaaaaaa', [], 'password_weak'],
    ['abcdefghijkl', [], 'password_weak'],
    ['margaretthatcher1', ['margaretthatcher@example.com'], 'password_weak'],
  ])('refuses %j with %s', (password, inputs, code) => {
    expect(policy.refusal(password, inputs)?.code).toBe(code);
  });

  it('says why a weak password is refused', () => {
    expect(policy.refusal('aaaaaaaaaaaa')?.message).toMatch(/Repeated characters/);
  });

  it.each(['correct horse battery staple', 'violet tractor midnight harbor', 'k7#Vq9!mPz2$Lw'])('accepts %j', (p) => {
    expect(policy.refusal(p, ['someone@example.com'])).toBeNull();
  });

  it('throws a 400 naming the field', () => {
    expect(() => policy.check('password1234', 'new_password')).toThrow(
      expect.objectContaining({ status: 400, code: 'password_common', param: 'new_password' }),
    );
  });
});
