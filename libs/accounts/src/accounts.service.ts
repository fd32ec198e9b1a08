import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ApiError, Clock, microToRub, newId } from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeysService, SessionPrincipal, TeamRole } from '@app/auth';
import { TeamsService } from '@app/billing';
import { AccountsRepository } from './accounts.repository';
import { Actor } from './audit';
import { AuthStateDto, CreatedUserDto, MembershipDto, SessionDto, UserDto, UserListDto } from './dto/auth.dto';
import { MyTeamDto } from './dto/teams.dto';
import { SessionEntity } from './entities/session.entity';
import { UserEntity } from './entities/user.entity';
import { LoginThrottleStore } from './login-throttle';
import { PasswordHasher } from './password-hasher';
import { PasswordPolicy } from './password-policy';
import { OpenedSession, SessionsService } from './sessions.service';

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

export function userView(u: UserEntity): UserDto {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    operator: u.operator,
    disabled: u.disabled,
    created_at: new Date(u.createdAt).toISOString(),
    last_login_at: iso(u.lastLoginAt),
  };
}

/** A readable random password (20 base64url characters, 120 bits). */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}

/** Users, password sign-in with throttling, the session principal, and the operator's user management. */
@Injectable()
export class AccountsService {
  constructor(
    private readonly repo: AccountsRepository,
    private readonly sessions: SessionsService,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly throttle: LoginThrottleStore,
    private readonly teams: TeamsService,
    private readonly keys: ApiKeysService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  // ---- sign-in ----

  /**
   * Password sign-in. Every attempt is counted per account (e-mail) and per client address across
   * replicas BEFORE the password is evaluated (one atomic increment each), so a burst of concurrent
   * attempts cannot outrun the limit: the attempt past LOGIN_MAX_FAILURES_PER_* within the window
   * answers 429 with Retry-After without the password being checked. A right password takes its
   * attempt back, so only failures stay counted (until the window ends). Unknown e-mail,
   * wrong password and disabled user get the same answer and cost the same work (a decoy hash is
   * verified for unknown e-mails).
   */
  async login(email: string, password: string, actor: Actor): Promise<{ state: AuthStateDto; opened: OpenedSession }> {
    const now = this.clock.now();
    const cfg = this.config.accounts;
    const accountKey = `a:${email}`;
    const ipKey = `ip:${actor.ip ?? 'unknown'}`;
    const counted = await this.throttle.hit([accountKey, ipKey], now);
    if (counted) {
      const [acc, ip] = counted;
      const waitMs = Math.max(
        acc.count > cfg.loginMaxFailuresPerAccount ? acc.resetMs : 0,
        ip.count > cfg.loginMaxFailuresPerIp ? ip.resetMs : 0,
      );
      if (waitMs > 0)
        throw ApiError.rateLimited(
          `Too many failed sign-in attempts. Try again in ${Math.ceil(waitMs / 1000)} s.`,
          Math.ceil(waitMs / 1000),
        );
    }

    const user = await this.repo.findUserByEmail(email);
    const ok = await this.hasher.verify(password, user?.passwordHash ?? null);
    if (!user || !ok || user.disabled) {
      await this.repo.recordEvent({
        actor: { ...actor, type: 'anonymous', id: email },
        teamId: null,
        action: 'auth.login_failed',
        targetType: 'user',
        targetId: user?.id ?? null,
      });
      throw ApiError.unauthorized('Invalid e-mail or password.', 'invalid_credentials');
    }
    // a right password takes its own attempt back; earlier failures stay counted (clearing them
    // would let a burst that arrives after the success be evaluated again)
    await Promise.all([this.throttle.unhit(accountKey, now), this.throttle.unhit(ipKey, now)]);
    if (cfg.oidcOnly && !user.operator)
      throw ApiError.forbidden(
        'Sign in with single sign-on; passwords are for operators only.',
        'password_login_disabled',
      );
    const opened = await this.sessions.open(user, 'password', actor);
    user.lastLoginAt = opened.session.createdAt;
    return { state: await this.state(user, opened.session), opened };
  }

  /** The session's user and teams (what login and /auth/me answer). */
  async state(user: UserEntity, session: SessionEntity): Promise<AuthStateDto> {
    return { user: userView(user), memberships: await this.memberships(user.id), csrf_token: session.csrfToken };
  }

  async memberships(userId: string): Promise<MembershipDto[]> {
    const out: MembershipDto[] = [];
    for (const m of await this.repo.membershipsOfUser(userId)) {
      const name = await this.teamName(m.teamId);
      if (name !== null) out.push({ team_id: m.teamId, team_name: name, role: m.role });
    }
    return out;
  }

  private async teamName(teamId: string): Promise<string | null> {
    return (await this.teams.exists(teamId)) ? (await this.teams.get(teamId)).name : null;
  }

  /** The principal of a live session whose user is enabled, or null. */
  async principal(token: string): Promise<{ principal: SessionPrincipal; session: SessionEntity } | null> {
    const session = await this.sessions.resolve(token);
    if (!session) return null;
    const user = await this.repo.findUserById(session.userId);
    if (!user || user.disabled) return null;
    const roles: Record<string, TeamRole> = {};
    for (const m of await this.repo.membershipsOfUser(user.id)) roles[m.teamId] = m.role;
    return {
      principal: { userId: user.id, email: user.email, operator: user.operator, sessionId: session.id, roles },
      session,
    };
  }

  async me(p: SessionPrincipal): Promise<AuthStateDto> {
    const { user, session } = await this.current(p);
    return this.state(user, session);
  }

  private async current(p: SessionPrincipal): Promise<{ user: UserEntity; session: SessionEntity }> {
    const user = await this.repo.findUserById(p.userId);
    const session = (await this.repo.listSessions(p.userId)).find((s) => s.id === p.sessionId);
    if (!user || !session) throw ApiError.unauthorized('Not signed in.', 'not_authenticated');
    return { user, session };
  }

  async logout(p: SessionPrincipal, actor: Actor): Promise<void> {
    await this.repo.deleteUserSession(
      p.userId,
      p.sessionId,
      { actor, teamId: null, action: 'auth.logout', targetType: 'session', targetId: p.sessionId },
      this.clock.now(),
    );
  }

  /** Changes the password after checking the current one; every other session of the user ends. */
  async changePassword(p: SessionPrincipal, current: string, next: string, actor: Actor): Promise<void> {
    const user = await this.repo.findUserById(p.userId);
    if (!user) throw ApiError.unauthorized('Not signed in.', 'not_authenticated');
    if (!(await this.hasher.verify(current, user.passwordHash)))
      throw ApiError.badRequest('The current password is wrong.', 'current_password', 'invalid_password');
    await this.policy.check(next, 'new_password', [user.email, user.name]);
    await this.repo.setPassword(
      user.id,
      await this.hasher.hash(next),
      p.sessionId,
      { actor, teamId: null, action: 'auth.password_change', targetType: 'user', targetId: user.id },
      this.clock.now(),
    );
  }

  async listSessions(p: SessionPrincipal): Promise<SessionDto[]> {
    return (await this.sessions.list(p.userId)).map((s) => ({
      id: s.id,
      current: s.id === p.sessionId,
      via: s.via,
      ip: s.ip,
      user_agent: s.userAgent,
      created_at: new Date(s.createdAt).toISOString(),
      last_seen_at: new Date(s.lastSeenAt).toISOString(),
      expires_at: new Date(s.expiresAt).toISOString(),
    }));
  }

  async revokeSession(p: SessionPrincipal, sessionId: string, actor: Actor): Promise<void> {
    const ok = await this.repo.deleteUserSession(
      p.userId,
      sessionId,
      { actor, teamId: null, action: 'auth.session_revoke', targetType: 'session', targetId: sessionId },
      this.clock.now(),
    );
    if (!ok) throw ApiError.notFound(`Session ${sessionId} not found.`, 'session_not_found', 'id');
  }

  // ---- users (operator) ----

  /**
   * Creates a user (optionally an operator, optionally a member of a team). A given password must
   * pass PasswordPolicy (400 with the reason); without one a password is generated and returned
   * once. 409 when the e-mail is taken.
   */
  async createUser(
    input: { email: string; name?: string; password?: string; operator?: boolean },
    actor: Actor,
    membership: { teamId: string; role: TeamRole } | null = null,
  ): Promise<CreatedUserDto> {
    const email = input.email.trim().toLowerCase();
    if (input.password !== undefined) await this.policy.check(input.password, 'password', [email, input.name ?? '']);
    const password = input.password ?? generatePassword();
    const now = this.clock.now();
    const user: UserEntity = {
      id: newId(),
      email,
      name: input.name?.trim() || email.split('@')[0],
      passwordHash: await this.hasher.hash(password),
      operator: input.operator === true,
      disabled: false,
      createdAt: now,
      lastLoginAt: null,
    };
    const created = await this.repo.createUser(
      user,
      membership,
      {
        actor,
        teamId: membership?.teamId ?? null,
        action: 'user.create',
        targetType: 'user',
        targetId: user.id,
        after: { email, name: user.name, operator: user.operator, membership },
      },
      now,
    );
    if (!created)
      throw new ApiError(409, 'invalid_request_error', `A user with e-mail ${email} exists.`, 'email_taken', 'email');
    return { ...userView(user), ...(input.password === undefined ? { password } : {}) };
  }

  async listUsers(limit: number, after?: string): Promise<UserListDto> {
    const rows = await this.repo.listUsers(limit + 1, after);
    const page = rows.slice(0, limit);
    return {
      object: 'list',
      data: page.map(userView),
      has_more: rows.length > limit,
      next_after: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  async getUser(id: string): Promise<UserDto> {
    const u = await this.repo.findUserById(id);
    if (!u) throw ApiError.notFound(`User ${id} not found.`, 'user_not_found', 'id');
    return userView(u);
  }

  async updateUser(
    id: string,
    patch: { name?: string; operator?: boolean; disabled?: boolean },
    actor: Actor,
  ): Promise<UserDto> {
    const before = await this.repo.findUserById(id);
    if (!before) throw ApiError.notFound(`User ${id} not found.`, 'user_not_found', 'id');
    const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    if (Object.keys(set).length === 0)
      throw ApiError.badRequest('Nothing to change: give name, operator or disabled.', null);
    const action =
      patch.operator !== undefined && patch.operator !== before.operator
        ? 'user.operator_change'
        : patch.disabled !== undefined && patch.disabled !== before.disabled
          ? patch.disabled
            ? 'user.disable'
            : 'user.enable'
          : 'user.update';
    const revoked: string[] = [];
    const after = await this.repo.updateUser(
      id,
      set,
      {
        actor,
        teamId: null,
        action,
        targetType: 'user',
        targetId: id,
        before: { name: before.name, operator: before.operator, disabled: before.disabled },
        after: set,
      },
      this.clock.now(),
      revoked,
    );
    // a disabled user's API keys were revoked with the change
    await this.keys.forgetHashes(revoked);
    if (!after) throw ApiError.notFound(`User ${id} not found.`, 'user_not_found', 'id');
    return userView(after);
  }

  /** The teams of a session (an operator also sees every team, as "operator" where not a member). */
  async myTeams(p: SessionPrincipal | null): Promise<MyTeamDto[]> {
    const out: MyTeamDto[] = [];
    if (p === null || p.operator) {
      let after: string | undefined;
      for (;;) {
        const page = await this.teams.list(500, after);
        for (const t of page.teams)
          out.push({
            id: t.id,
            name: t.name,
            role: p?.roles[t.id] ?? 'operator',
            balance_rub: microToRub(t.balanceMicro),
          });
        if (!page.hasMore) break;
        after = page.teams[page.teams.length - 1].id;
      }
      return out;
    }
    for (const [teamId, role] of Object.entries(p.roles)) {
      if (!(await this.teams.exists(teamId))) continue;
      const t = await this.teams.get(teamId);
      out.push({ id: t.id, name: t.name, role, balance_rub: microToRub(t.balanceMicro) });
    }
    return out;
  }
}
