import { newWebhookSecret, SecretBox, signWebhook, verifyWebhook } from '@app/common';

describe('Standard Webhooks verification', () => {
  const secret = newWebhookSecret();
  const body = Buffer.from('{"type":"ticket.created","id":42}');
  const now = 1_767_225_600;
  const headers = (over: Partial<{ id: string; timestamp: string; signature: string }> = {}) => {
    const id = over.id ?? 'msg_1';
    const timestamp = over.timestamp ?? String(now);
    return { id, timestamp, signature: over.signature ?? signWebhook(secret, id, timestamp, body) };
  };

  it('the secret is whsec_ + base64 of 32 bytes', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  });

  it('accepts a valid signature, also among several space-separated ones', () => {
    expect(verifyWebhook(secret, headers(), body, now)).toEqual({ ok: true });
    const good = signWebhook(secret, 'msg_1', now, body);
    expect(
      verifyWebhook(secret, headers({ signature: `v1,${Buffer.alloc(32).toString('base64')} ${good}` }), body, now),
    ).toEqual({ ok: true });
  });

  it('matches the Standard Webhooks reference vector', () => {
    // from the standard-webhooks spec test suite
    const ref = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const sig = signWebhook(ref, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('refuses a stale (or future) timestamp beyond 5 minutes', () => {
    expect(verifyWebhook(secret, headers({ timestamp: String(now - 301) }), body, now)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/5 minutes/),
    });
    expect(verifyWebhook(secret, headers({ timestamp: String(now + 301) }), body, now).ok).toBe(false);
    expect(verifyWebhook(secret, headers({ timestamp: String(now - 299) }), body, now).ok).toBe(true);
  });

  it('refuses a tampered body, id, or signature, and a wrong secret', () => {
    const h = headers();
    expect(verifyWebhook(secret, h, Buffer.from('{"type":"ticket.created","id":43}'), now).ok).toBe(false);
    expect(verifyWebhook(secret, { ...h, id: 'msg_2' }, body, now).ok).toBe(false);
    expect(verifyWebhook(secret, { ...h, signature: h.signature.slice(0, -4) + 'AAA=' }, body, now).ok).toBe(false);
    expect(verifyWebhook(newWebhookSecret(), h, body, now).ok).toBe(false);
    expect(verifyWebhook(secret, { ...h, signature: h.signature.replace('v1,', 'v2,') }, body, now).ok).toBe(false);
  });

  it('refuses missing headers', () => {
    expect(verifyWebhook(secret, { id: 'x', timestamp: String(now) }, body, now)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/required/),
    });
  });
});

describe('SecretBox (AES-256-GCM)', () => {
  const box = new SecretBox('k'.repeat(40));

  it('round-trips, with a fresh IV each time', () => {
    const plain = JSON.stringify({ authorization: 'Bearer s3cret-token' });
    const a = box.seal(plain);
    const b = box.seal(plain);
    expect(a).not.toBe(b);
    expect(a).not.toContain('s3cret');
    expect(box.open(a)).toBe(plain);
    expect(box.open(b)).toBe(plain);
  });

  it('fails on a wrong key or a tampered value instead of returning garbage', () => {
    const sealed = box.seal('secret');
    expect(() => new SecretBox('x'.repeat(40)).open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('AAAAAA', 'base64url').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => box.open('plain')).toThrow(/Not a sealed/);
  });
});
