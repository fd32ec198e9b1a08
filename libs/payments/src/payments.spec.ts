import { parseEnv } from '@app/config';
import { nextCheckAt, RECONCILE_FOR_MS } from './payments.service';
import { CODE_ALPHABET, generateCode, hashCode, normaliseCode } from './redemption-codes.service';
import { rubString } from './yookassa-client';

describe('payments configuration', () => {
  it('is off without credentials and needs both of them', () => {
    expect(parseEnv({}).payments.yookassa).toBeUndefined();
    expect(() => parseEnv({ YOOKASSA_SHOP_ID: '1' })).toThrow(/set together/);
    const p = parseEnv({
      YOOKASSA_SHOP_ID: '501234',
      YOOKASSA_SECRET_KEY: 'live_x',
      YOOKASSA_NOTIFY_CIDRS: '185.71.76.0/27, 77.75.156.11, 2a02:5180::/32',
      PAYMENTS_CREDIT: 'income',
    }).payments;
    expect(p.yookassa).toMatchObject({ shopId: '501234', baseUrl: 'https://api.yookassa.ru/v3' });
    expect(p.notifyCidrs).toEqual([
      { address: '185.71.76.0', prefix: 27, family: 'ipv4' },
      { address: '77.75.156.11', prefix: 32, family: 'ipv4' },
      { address: '2a02:5180::', prefix: 32, family: 'ipv6' },
    ]);
    expect(p).toMatchObject({ minRub: 100, maxRub: 1_000_000, credit: 'income', reconcileMs: 30_000 });
    expect(() => parseEnv({ YOOKASSA_NOTIFY_CIDRS: '185.71.76.0/33' })).toThrow(/YOOKASSA_NOTIFY_CIDRS/);
    expect(() => parseEnv({ PAYMENTS_CREDIT: 'net' })).toThrow(/PAYMENTS_CREDIT/);
    expect(() => parseEnv({ PAYMENTS_MIN_RUB: '500', PAYMENTS_MAX_RUB: '100' })).toThrow(/PAYMENTS_MAX_RUB/);
  });
});

describe('reconciliation schedule', () => {
  const base = 30_000;
  it('polls at the base interval first, then backs off, and stops after 24 h', () => {
    expect(nextCheckAt(0, 1, 1_000, base)).toBe(31_000);
    expect(nextCheckAt(0, 10, 1_000, base)).toBe(31_000);
    expect(nextCheckAt(0, 11, 1_000, base)).toBe(61_000);
    expect(nextCheckAt(0, 12, 1_000, base)).toBe(121_000);
    expect(nextCheckAt(0, 40, 1_000, base)).toBe(1_000 + 30 * 60_000);
    expect(nextCheckAt(0, 40, RECONCILE_FOR_MS - 10, base)).toBe(RECONCILE_FOR_MS);
    expect(nextCheckAt(0, 41, RECONCILE_FOR_MS, base)).toBeNull();
  });
});

describe('redemption codes', () => {
  it('are RC- and 20 unambiguous characters, hashed in a normalised form', () => {
    const codes = new Set(Array.from({ length: 200 }, generateCode));
    expect(codes.size).toBe(200);
    for (const c of codes) expect(c).toMatch(new RegExp(`^RC-[${CODE_ALPHABET}]{20}$`));
    expect(CODE_ALPHABET).not.toMatch(/[01OIL]/);
    const code = [...codes][0];
    expect(normaliseCode(` ${code.toLowerCase()} `)).toBe(code);
    expect(hashCode(code.replace('RC-', 'rc'))).toBe(hashCode(code));
    expect(hashCode(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashCode(code)).not.toContain(code);
  });
});

describe('YooKassa amounts', () => {
  it('are decimal strings with two places', () => {
    expect(rubString(1_500_000_000)).toBe('1500.00');
    expect(rubString(100_050_000)).toBe('100.05');
    expect(rubString(10_000)).toBe('0.01');
  });
});
