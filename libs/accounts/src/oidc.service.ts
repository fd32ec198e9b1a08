import { Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { ApiError, Clock, newId, SharedCache } from '@app/common';
import { AppConfig, OidcEnv } from '@app/config';
import { roleAtLeast, TeamRole } from '@app/auth';
import { AccountsRepository } from './accounts.repository';
import { Actor } from './audit';
import { UserEntity } from './entities/user.entity';
import { OpenedSession, SessionsService } from './sessions.service';

/** What the browser must bring back to the callback: kept server-side under a random id for 10 minutes. */
interface PendingLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
}

const PENDING_TTL_MS = 10 * 60_000;

/**
 * OpenID Connect sign-in with openid-client: authorization code flow with PKCE (S256), state and
 * nonce. The issuer's metadata is discovered once (directly: it is operator configuration, not a
 * user URL); plain http is allowed only for loopback issuers (checked when the configuration loads).
 * The pending state lives in the shared cache (Redis when configured) under a random id carried by a
 * short-lived HttpOnly cookie, so the callback may land on any replica.
 */
@Injectable()
export class OidcService {
  private readonly logger = new Logger('Oidc');
  private discovered: Promise<oidc.Configuration> | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly cache: SharedCache,
    private readonly repo: AccountsRepository,
    private readonly sessions: SessionsService,
    private readonly clock: Clock,
  ) {}

  private settings(): OidcEnv {
    const s = this.config.accounts.oidc;
    if (!s) throw ApiError.notFound('Single sign-on is not configured.', 'sso_not_configured');
    return s;
  }

  private client(s: OidcEnv): Promise<oidc.Configuration> {
    this.discovered ??= oidc
      .discovery(
        new URL(s.issuer),
        s.clientId,
        undefined,
        s.clientSecret ? oidc.ClientSecretPost(s.clientSecret) : oidc.None(),
        { execute: new URL(s.issuer).protocol === 'http:' ? [oidc.allowInsecureRequests] : [], timeout: 10 },
      )
      .catch((err: unknown) => {
        this.discovered = null;
        this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'OIDC discovery failed');
        throw ApiError.badGateway('The identity provider cannot be reached.', 'sso_unavailable');
      });
    return this.discovered;
  }

  /** The authorization URL to redirect to, and the id of the pending login (for the cookie). */
  async begin(): Promise<{ url: string; pendingId: string }> {
    const s = this.settings();
    const client = await this.client(s);
    const pending: PendingLogin = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
    };
    const pendingId = newId();
    if (!(await this.cache.set(this.key(pendingId), pending, PENDING_TTL_MS)))
      throw ApiError.unavailable('Sign-in cannot start right now; try again.', 'sso_unavailable');
    const url = oidc.buildAuthorizationUrl(client, {
      redirect_uri: s.redirectUri,
      scope: s.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pendingId };
  }

  /**
   * The callback: exchanges the code (checking state, nonce and PKCE), then links the verified
   * e-mail to a user — an existing one, or (OIDC_AUTO_PROVISION) a new one with the mapped team
   * roles — and opens a session. Any failure of the exchange is 400 sso_failed.
   */
  async complete(query: string, pendingId: string | undefined, actor: Actor): Promise<OpenedSession> {
    const s = this.settings();
    const client = await this.client(s);
    const pending = pendingId ? await this.cache.get<PendingLogin>(this.key(pendingId)) : undefined;
    if (pendingId) await this.cache.del(this.key(pendingId));
    if (!pending) throw ApiError.badRequest('This sign-in is unknown or has expired; start again.', null, 'sso_failed');
    const current = new URL(s.redirectUri);
    current.search = query;
    let claims: Record<string, unknown>;
    let accessToken: string;
    try {
      const tokens = await oidc.authorizationCodeGrant(client, current, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = { ...(tokens.claims() ?? {}) };
      accessToken = tokens.access_token;
    } catch (err) {
      throw ApiError.badRequest(
        `Single sign-on failed: ${err instanceof Error ? err.message : 'invalid response'}.`,
        null,
        'sso_failed',
      );
    }
    if (typeof claims.email !== 'string' || claims[s.groupsClaim] === undefined) {
      try {
        const info = await oidc.fetchUserInfo(client, accessToken, String(claims.sub));
        claims = {
          ...info,
          ...claims,
          email: claims.email ?? info.email,
          email_verified: claims.email_verified ?? info.email_verified,
        };
        if (claims[s.groupsClaim] === undefined) claims[s.groupsClaim] = info[s.groupsClaim];
      } catch {
        // the ID token's claims are all there is
      }
    }
    const user = await this.linkOrProvision(s, claims, actor);
    return this.sessions.open(user, 'oidc', actor);
  }

  private async linkOrProvision(s: OidcEnv, claims: Record<string, unknown>, actor: Actor): Promise<UserEntity> {
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : null;
    if (!email || claims.email_verified !== true)
      throw ApiError.forbidden('The identity provider did not vouch for an e-mail address.', 'sso_email_unverified');
    const groups = Array.isArray(claims[s.groupsClaim])
      ? (claims[s.groupsClaim] as unknown[]).filter((g): g is string => typeof g === 'string')
      : [];
    const roles = strongestPerTeam(s.roleMapping.filter((m) => groups.includes(m.group)));
    const existing = await this.repo.findUserByEmail(email);
    if (existing) {
      if (existing.disabled) throw ApiError.forbidden('This account is disabled.', 'account_disabled');
      // the mapping applies at every sign-in: groups gained add or raise memberships (never lowered)
      await this.repo.grantMappedRoles(existing.id, roles, { ...actor, type: 'system' }, this.clock.now());
      return existing;
    }
    if (!s.autoProvision)
      throw ApiError.forbidden('No account for this e-mail: ask a team admin for an invitation.', 'sso_no_account');
    const now = this.clock.now();
    const user: UserEntity = {
      id: newId(),
      email,
      name:
        typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : email.split('@')[0],
      passwordHash: null,
      operator: false,
      disabled: false,
      createdAt: now,
      lastLoginAt: null,
    };
    const created = await this.repo.createUserWithMemberships(
      user,
      roles.map((r) => ({ teamId: r.teamId, role: r.role })),
      {
        actor: { ...actor, type: 'system' },
        teamId: null,
        action: 'user.create',
        targetType: 'user',
        targetId: user.id,
        after: {
          email,
          name: user.name,
          via: 'oidc',
          memberships: roles.map((r) => ({ team_id: r.teamId, role: r.role })),
        },
      },
      now,
    );
    return created ?? ((await this.repo.findUserByEmail(email)) as UserEntity);
  }

  private key(id: string): string {
    return `oidc:pending:${id}`;
  }
}

/** One grant per team: the strongest role any of the user's groups maps to. */
function strongestPerTeam(grants: { teamId: string; role: TeamRole }[]): { teamId: string; role: TeamRole }[] {
  const best = new Map<string, TeamRole>();
  for (const g of grants) {
    const had = best.get(g.teamId);
    if (!had || roleAtLeast(g.role, had)) best.set(g.teamId, g.role);
  }
  return [...best].map(([teamId, role]) => ({ teamId, role }));
}
