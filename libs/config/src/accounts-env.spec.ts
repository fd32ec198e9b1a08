import { ConfigError, parseEnv } from './env.schema';

describe('accounts configuration', () => {
  it('defaults: 12 h idle, 7 days absolute, 10 / 50 failures per 15 min, 7-day invitations, 365-day audit, no SSO', () => {
    const a = parseEnv({}).accounts;
    expect(a).toMatchObject({
      sessionIdleTimeoutMs: 720 * 60_000,
      sessionMaxAgeMs: 168 * 3_600_000,
      loginMaxFailuresPerAccount: 10,
      loginMaxFailuresPerIp: 50,
      loginThrottleWindowMs: 15 * 60_000,
      invitationTtlMs: 7 * 86_400_000,
      auditRetentionMs: 365 * 86_400_000,
      oidc: undefined,
      oidcOnly: false,
    });
    expect(parseEnv({}).trustProxy).toBe(false);
  });

  it('bootstrap operator: both or neither, a 12+ character password, e-mail stored lower-case', () => {
    expect(() => parseEnv({ BOOTSTRAP_OPERATOR_EMAIL: 'a@b.test' })).toThrow(ConfigError);
    expect(() => parseEnv({ BOOTSTRAP_OPERATOR_EMAIL: 'a@b.test', BOOTSTRAP_OPERATOR_PASSWORD: 'short' })).toThrow(
      /at least 12/,
    );
    expect(
      parseEnv({ BOOTSTRAP_OPERATOR_EMAIL: 'Root@B.test', BOOTSTRAP_OPERATOR_PASSWORD: 'long enough pw' }).accounts
        .bootstrapOperatorEmail,
    ).toBe('root@b.test');
  });

  it('OIDC issuer: https, or http only on loopback; kept exactly as given; role mapping parsed', () => {
    const base = { OIDC_CLIENT_ID: 'gw', OIDC_REDIRECT_URI: 'https://gw.example.com/api/v1/auth/oidc/callback' };
    expect(() => parseEnv({ ...base, OIDC_ISSUER: 'http://sso.example.com/realms/a' })).toThrow(/https/);
    expect(parseEnv({ ...base, OIDC_ISSUER: 'http://127.0.0.1:8080' }).accounts.oidc?.issuer).toBe(
      'http://127.0.0.1:8080',
    );
    const team = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
    const o = parseEnv({
      ...base,
      OIDC_ISSUER: 'https://auth.example.com/application/o/gw/',
      OIDC_ROLE_MAPPING: `admins=${team}:admin; devs=${team}:member`,
    }).accounts.oidc!;
    expect(o.issuer).toBe('https://auth.example.com/application/o/gw/');
    expect(o.roleMapping).toEqual([
      { group: 'admins', teamId: team, role: 'admin' },
      { group: 'devs', teamId: team, role: 'member' },
    ]);
    expect(() => parseEnv({ ...base, OIDC_ISSUER: 'https://x.test', OIDC_ROLE_MAPPING: 'admins=nope' })).toThrow(
      /group=team_id:role/,
    );
    expect(() => parseEnv({ OIDC_ISSUER: 'https://x.test' })).toThrow(/OIDC_CLIENT_ID/);
  });

  it('SMTP_URL needs MAIL_FROM; TRUST_PROXY accepts booleans, hop counts and address lists', () => {
    expect(() => parseEnv({ SMTP_URL: 'smtp://mail.test:25' })).toThrow(/MAIL_FROM/);
    expect(parseEnv({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(parseEnv({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(parseEnv({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
    expect(() => parseEnv({ TRUST_PROXY: 'rm -rf' })).toThrow(ConfigError);
  });
});
