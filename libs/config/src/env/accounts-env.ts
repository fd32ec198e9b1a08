import { bool, ConfigError, email, Env, int, str, url } from './readers';

/** Accounts: bootstrap operator, sessions, sign-in throttling, invitations, audit retention, mail, SSO. */

/** Users, sessions, sign-in throttling, invitations, audit log, SSO. */
export interface AccountsEnv {
  bootstrapOperatorEmail?: string;
  bootstrapOperatorPassword?: string;
  /** a session unused this long ends */
  sessionIdleTimeoutMs: number;
  /** a session ends this long after sign-in, however active */
  sessionMaxAgeMs: number;
  /** failed sign-ins per account / per client address within the window before 429 */
  loginMaxFailuresPerAccount: number;
  loginMaxFailuresPerIp: number;
  loginThrottleWindowMs: number;
  invitationTtlMs: number;
  auditRetentionMs: number;
  smtpUrl?: string;
  mailFrom?: string;
  oidc?: OidcEnv;
  /** password sign-in only for operators (OIDC_ONLY) */
  oidcOnly: boolean;
}

/** One OIDC_ROLE_MAPPING entry: members of `group` get `role` in `teamId`. */
export interface OidcRoleMapping {
  group: string;
  teamId: string;
  role: 'viewer' | 'member' | 'admin' | 'owner';
}

/** OpenID Connect sign-in (authorization code flow with PKCE). */
export interface OidcEnv {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
  scopes: string;
  autoProvision: boolean;
  groupsClaim: string;
  roleMapping: OidcRoleMapping[];
  /** where the browser goes after a successful SSO sign-in */
  postLoginUrl: string;
}

export const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** OIDC_ROLE_MAPPING: `group=team_id:role` entries separated by commas or semicolons. */
export function roleMapping(env: Env): OidcRoleMapping[] {
  const raw = str(env, 'OIDC_ROLE_MAPPING');
  if (raw === undefined) return [];
  return raw
    .split(/[;,]/)
    .map((e) => e.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^(.+)=([0-9a-fA-F-]{36}):(viewer|member|admin|owner)$/.exec(entry);
      if (!m)
        throw new ConfigError(
          `OIDC_ROLE_MAPPING entries are group=team_id:role (role: viewer, member, admin or owner), got "${entry}"`,
        );
      return { group: m[1].trim(), teamId: m[2].toLowerCase(), role: m[3] as OidcRoleMapping['role'] };
    });
}

export function oidc(env: Env): OidcEnv | undefined {
  if (url(env, 'OIDC_ISSUER', ['http:', 'https:']) === undefined) return undefined;
  // kept exactly as given: the discovery document's `issuer` must match it character for character
  const issuer = str(env, 'OIDC_ISSUER') as string;
  const parsed = new URL(issuer);
  // the issuer is operator configuration fetched directly: TLS required except on loopback (development, tests)
  if (parsed.protocol === 'http:' && !LOOPBACK_HOSTS.has(parsed.hostname))
    throw new ConfigError('OIDC_ISSUER must use https:// (http:// is accepted only on loopback addresses)');
  const clientId = str(env, 'OIDC_CLIENT_ID');
  const redirectUri = url(env, 'OIDC_REDIRECT_URI', ['http:', 'https:']);
  if (!clientId || !redirectUri)
    throw new ConfigError('OIDC_CLIENT_ID and OIDC_REDIRECT_URI must be set with OIDC_ISSUER');
  return {
    issuer,
    clientId,
    clientSecret: str(env, 'OIDC_CLIENT_SECRET'),
    redirectUri,
    scopes: str(env, 'OIDC_SCOPES') ?? 'openid email profile',
    autoProvision: bool(env, 'OIDC_AUTO_PROVISION', false),
    groupsClaim: str(env, 'OIDC_GROUPS_CLAIM') ?? 'groups',
    roleMapping: roleMapping(env),
    postLoginUrl: str(env, 'OIDC_POST_LOGIN_URL') ?? '/',
  };
}

export function accounts(env: Env): AccountsEnv {
  const bootstrapOperatorEmail = email(env, 'BOOTSTRAP_OPERATOR_EMAIL');
  const bootstrapOperatorPassword = str(env, 'BOOTSTRAP_OPERATOR_PASSWORD');
  if ((bootstrapOperatorEmail === undefined) !== (bootstrapOperatorPassword === undefined))
    throw new ConfigError('BOOTSTRAP_OPERATOR_EMAIL and BOOTSTRAP_OPERATOR_PASSWORD must be set together');
  if (bootstrapOperatorPassword !== undefined && bootstrapOperatorPassword.length < 12)
    throw new ConfigError('BOOTSTRAP_OPERATOR_PASSWORD must be at least 12 characters');
  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  const mailFrom = str(env, 'MAIL_FROM');
  if (smtpUrl && !mailFrom) throw new ConfigError('MAIL_FROM must be set when SMTP_URL is set');
  return {
    bootstrapOperatorEmail,
    bootstrapOperatorPassword,
    sessionIdleTimeoutMs: int(env, 'SESSION_IDLE_TIMEOUT_MINUTES', 720, 1, 525_600) * 60_000,
    sessionMaxAgeMs: int(env, 'SESSION_MAX_AGE_HOURS', 168, 1, 8_760) * 3_600_000,
    loginMaxFailuresPerAccount: int(env, 'LOGIN_MAX_FAILURES_PER_ACCOUNT', 10, 1, 1_000_000),
    loginMaxFailuresPerIp: int(env, 'LOGIN_MAX_FAILURES_PER_IP', 50, 1, 1_000_000),
    loginThrottleWindowMs: int(env, 'LOGIN_THROTTLE_WINDOW_MINUTES', 15, 1, 1_440) * 60_000,
    invitationTtlMs: int(env, 'INVITATION_TTL_HOURS', 168, 1, 8_760) * 3_600_000,
    auditRetentionMs: int(env, 'AUDIT_RETENTION_DAYS', 365, 1, 36_500) * 86_400_000,
    smtpUrl,
    mailFrom,
    oidc: oidc(env),
    oidcOnly: bool(env, 'OIDC_ONLY', false),
  };
}
