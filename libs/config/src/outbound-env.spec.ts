import { ConfigError, parseEnv } from './env.schema';

describe('OUTBOUND_ALLOW_CIDRS and the alert variables', () => {
  it('allows nothing by default; alert defaults', () => {
    const c = parseEnv({});
    expect(c.outboundAllowCidrs).toEqual([]);
    expect(c.alerts).toEqual({
      evalIntervalMs: 30_000,
      deliveryMaxAttempts: 6,
      retryBaseMs: 5_000,
      telegramApiBase: 'https://api.telegram.org',
    });
  });

  it('reads comma-separated IPv4 and IPv6 networks; a bare address is a single host', () => {
    expect(parseEnv({ OUTBOUND_ALLOW_CIDRS: ' 10.20.0.0/16, fd00::/8 ,192.0.2.7' }).outboundAllowCidrs).toEqual([
      { address: '10.20.0.0', prefix: 16, family: 'ipv4' },
      { address: 'fd00::', prefix: 8, family: 'ipv6' },
      { address: '192.0.2.7', prefix: 32, family: 'ipv4' },
    ]);
  });

  it.each(['10.0.0.0/33', 'fd00::/129', 'example.com/8', '10.0.0.0/8/1', '10.0.0/8', '10.0.0.0/x'])(
    'refuses %s',
    (entry) => {
      expect(() => parseEnv({ OUTBOUND_ALLOW_CIDRS: entry })).toThrow(ConfigError);
      expect(() => parseEnv({ OUTBOUND_ALLOW_CIDRS: entry })).toThrow('OUTBOUND_ALLOW_CIDRS');
    },
  );

  it('validates the alert variables', () => {
    expect(() => parseEnv({ ALERTS_EVAL_INTERVAL_MS: '10' })).toThrow('ALERTS_EVAL_INTERVAL_MS');
    expect(() => parseEnv({ ALERT_DELIVERY_MAX_ATTEMPTS: '0' })).toThrow('ALERT_DELIVERY_MAX_ATTEMPTS');
    expect(() => parseEnv({ TELEGRAM_API_BASE: 'ftp://x' })).toThrow('TELEGRAM_API_BASE');
    expect(parseEnv({ TELEGRAM_API_BASE: 'http://127.0.0.1:9/' }).alerts.telegramApiBase).toBe('http://127.0.0.1:9');
  });
});
