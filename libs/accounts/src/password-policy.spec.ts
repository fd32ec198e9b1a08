import { PasswordPolicy } from './password-policy';
import { PasswordStrength } from './password-strength/password-strength';

describe('PasswordPolicy', () => {
  const strength = new PasswordStrength();
  const policy = new PasswordPolicy(strength);
  afterAll(() => strength.onApplicationShutdown());

  it.each([
    ['short', [], 'password_too_short'],
    ['x'.repeat(201), [], 'password_too_long'],
    ['Qwerty123456', [], 'password_common'],
    ['aaaaaaaaaaaa', [], 'password_weak'],
    ['abcdefghijkl', [], 'password_weak'],
    ['margaretthatcher1', ['margaretthatcher@example.com'], 'password_weak'],
  ])('refuses %j with %s', async (password, inputs, code) => {
    expect((await policy.refusal(password, inputs))?.code).toBe(code);
  });

  it('says why a weak password is refused', async () => {
    expect((await policy.refusal('aaaaaaaaaaaa'))?.message).toMatch(/Repeated characters/);
  });

  it.each(['correct horse battery staple', 'violet tractor midnight harbor', 'k7#Vq9!mPz2$Lw'])(
    'accepts %j',
    async (p) => {
      expect(await policy.refusal(p, ['someone@example.com'])).toBeNull();
    },
  );

  it('throws a 400 naming the field', async () => {
    await expect(policy.check('password1234', 'new_password')).rejects.toMatchObject({
      status: 400,
      code: 'password_common',
      param: 'new_password',
    });
  });

  it('checks run concurrently, each answered with its own result', async () => {
    const results = await Promise.all(
      ['Qwerty123456', 'violet tractor midnight harbor', 'aaaaaaaaaaaa', 'k7#Vq9!mPz2$Lw'].map((p) =>
        policy.refusal(p),
      ),
    );
    expect(results.map((r) => r?.code ?? null)).toEqual(['password_common', null, 'password_weak', null]);
  });
});

describe('PasswordStrength (the worker thread zxcvbn runs in)', () => {
  it('starts on the first check and stops once idle; the next check starts it again', async () => {
    const strength = new PasswordStrength();
    strength.idleMs = 50;
    expect(strength.running).toBe(false);
    expect(await strength.estimate('Qwerty123456', [])).toMatchObject({ common: true, score: 0 });
    expect(strength.running).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(strength.running).toBe(false);
    const again = await strength.estimate('violet tractor midnight harbor', []);
    expect(again.common).toBe(false);
    expect(again.score).toBeGreaterThanOrEqual(3);
    await strength.onApplicationShutdown();
    expect(strength.running).toBe(false);
  });

  it('a check waiting when the worker is stopped fails, and the next one gets a new worker', async () => {
    const strength = new PasswordStrength();
    const waiting = strength.estimate('violet tractor midnight harbor', []);
    await strength.onApplicationShutdown();
    await expect(waiting).rejects.toThrow(/stopped/);
    expect(await strength.estimate('aaaaaaaaaaaa', [])).toMatchObject({ common: false });
    await strength.onApplicationShutdown();
  });
});
