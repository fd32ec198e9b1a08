import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { Clock, newId } from '@app/common';
import { AppConfig } from '@app/config';
import { AccountsRepository } from './accounts.repository';
import { Actor, AuditTrail } from './audit';
import { SessionEntity } from './entities/session.entity';
import { UserEntity } from './entities/user.entity';

export interface OpenedSession {
  /** the cookie value (shown to the browser only) */
  token: string;
  session: SessionEntity;
}

const TOUCH_EVERY_MS = 60_000;
const SWEEP_EVERY_MS = 3_600_000;

function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Server-side sessions in the database, or in Redis when REDIS_URL is configured (SessionStore). The cookie carries 32 random bytes; the database keeps
 * their SHA-256. A session ends when idle for SESSION_IDLE_TIMEOUT_MINUTES, at SESSION_MAX_AGE_HOURS
 * after sign-in, on sign-out, on revocation, when the user changes the password (the others) or is
 * disabled. last_seen_at is written at most once a minute per session.
 */
@Injectable()
export class SessionsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Sessions');
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repo: AccountsRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly trail: AuditTrail,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Expired and idle sessions, and audit records past AUDIT_RETENTION_DAYS, are deleted hourly. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    try {
      await this.repo.deleteStaleSessions(now, this.config.accounts.sessionIdleTimeoutMs);
      await this.trail.deleteBefore(now - this.config.accounts.auditRetentionMs);
    } catch (err) {
      this.logger.warn({ err }, 'session / audit retention sweep failed');
    }
  }

  /** A new session (new id and token on every sign-in), written with its audit record. */
  async open(user: UserEntity, via: string, actor: Actor): Promise<OpenedSession> {
    const now = this.clock.now();
    const token = randomBytes(32).toString('base64url');
    const session: SessionEntity = {
      id: newId(),
      tokenHash: hashToken(token),
      userId: user.id,
      csrfToken: randomBytes(24).toString('base64url'),
      via,
      ip: actor.ip,
      userAgent: actor.userAgent,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + this.config.accounts.sessionMaxAgeMs,
    };
    await this.repo.insertSession(session, {
      actor: { ...actor, type: 'user', id: user.id },
      teamId: null,
      action: 'auth.login',
      targetType: 'session',
      targetId: session.id,
      after: { via },
    });
    return { token, session };
  }

  /** The live session of a cookie value, or null (unknown, idle too long, past its lifetime). */
  async resolve(token: string): Promise<SessionEntity | null> {
    const s = await this.repo.findSessionByHash(hashToken(token));
    if (!s) return null;
    const now = this.clock.now();
    if (s.expiresAt <= now || s.lastSeenAt + this.config.accounts.sessionIdleTimeoutMs <= now) {
      await this.repo.deleteSession(s);
      return null;
    }
    if (now - s.lastSeenAt >= TOUCH_EVERY_MS) await this.repo.touchSession(s, now);
    return s;
  }

  list(userId: string): Promise<SessionEntity[]> {
    return this.repo.listSessions(userId);
  }
}
