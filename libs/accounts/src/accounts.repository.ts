import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { TEAM_ROLES, TeamRole } from '@app/auth';
import { RawSql, TransactionRunner } from '@app/database';
import { AuditRecord, AuditTrail } from './audit';
import { InvitationEntity } from './entities/invitation.entity';
import { MembershipEntity } from './entities/membership.entity';
import { SessionEntity } from './entities/session.entity';
import { UserEntity } from './entities/user.entity';
import { SessionStore } from './session-store';

/** A change that would leave a team without an owner. */
export class LastOwnerError extends Error {}

const ROLE_ORDER: readonly TeamRole[] = TEAM_ROLES;

/** The session to end does not exist (its transaction is rolled back). */
class NoSuchSession extends Error {}

/**
 * Users, sessions, memberships, invitations and the audit log. Every write that changes state takes
 * the audit record it must leave and writes both in one transaction: the record exists exactly when
 * the change does.
 */
@Injectable()
export class AccountsRepository {
  private readonly raw: RawSql;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly tx: TransactionRunner,
    private readonly trail: AuditTrail,
    private readonly sessions: SessionStore,
  ) {
    this.raw = new RawSql(ds);
  }

  private audit(m: EntityManager, r: AuditRecord, now: number): Promise<void> {
    return this.trail.writeIn(m, r, now);
  }

  /** An event that changes nothing else (a failed sign-in). */
  recordEvent(r: AuditRecord): Promise<void> {
    return this.trail.write(r);
  }

  // ---- users ----

  findUserByEmail(email: string): Promise<UserEntity | null> {
    return this.ds.getRepository(UserEntity).findOneBy({ email: email.toLowerCase() });
  }

  findUserById(id: string): Promise<UserEntity | null> {
    return this.ds.getRepository(UserEntity).findOneBy({ id });
  }

  findUsersByIds(ids: string[]): Promise<UserEntity[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.ds.getRepository(UserEntity).findBy({ id: In(ids) });
  }

  countUsers(): Promise<number> {
    return this.ds.getRepository(UserEntity).count();
  }

  listUsers(limit: number, after?: string): Promise<UserEntity[]> {
    const q = this.ds.getRepository(UserEntity).createQueryBuilder('u').orderBy('u.id', 'ASC').limit(limit);
    if (after) q.where('u.id > :after', { after });
    return q.getMany();
  }

  /** Inserts the user (and a membership) unless the e-mail is taken; false when it was. */
  async createUser(
    user: UserEntity,
    membership: { teamId: string; role: TeamRole } | null,
    audit: AuditRecord,
    now: number,
  ): Promise<boolean> {
    return this.tx.run(async (m) => {
      // a copy: on Postgres the insert merges the returned raw defaults (0/1, not booleans) into the values
      const r = await m
        .createQueryBuilder()
        .insert()
        .into(UserEntity)
        .values({ ...user })
        .orIgnore()
        .execute();
      const inserted = (r.identifiers?.length ?? 0) > 0 && (await m.findOneBy(UserEntity, { id: user.id })) !== null;
      if (!inserted) return false;
      if (membership)
        await m.insert(MembershipEntity, {
          teamId: membership.teamId,
          userId: user.id,
          role: membership.role,
          createdAt: now,
        });
      await this.audit(m, audit, now);
      return true;
    });
  }

  /**
   * Inserts a user with memberships in teams that exist (unknown team ids are skipped) and the audit
   * record; null when the e-mail was taken meanwhile.
   */
  async createUserWithMemberships(
    user: UserEntity,
    memberships: { teamId: string; role: TeamRole }[],
    audit: AuditRecord,
    now: number,
  ): Promise<UserEntity | null> {
    return this.tx.run(async (m) => {
      await m
        .createQueryBuilder()
        .insert()
        .into(UserEntity)
        .values({ ...user })
        .orIgnore()
        .execute();
      if (!(await m.findOneBy(UserEntity, { id: user.id }))) return null;
      for (const ms of memberships) {
        if (!(await this.raw.lockRow(this.raw.table('teams'), ms.teamId, m))) continue;
        if (await m.findOneBy(MembershipEntity, { teamId: ms.teamId, userId: user.id })) continue;
        await m.insert(MembershipEntity, { teamId: ms.teamId, userId: user.id, role: ms.role, createdAt: now });
      }
      await this.audit(m, audit, now);
      return user;
    });
  }

  /**
   * Changes a user. A disabled user is signed out everywhere and every API key they created (in any
   * team) is revoked in the same transaction, one `api_key.revoke` audit record each; the hashes of
   * the keys revoked are added to `revokedKeyHashes` (their cached lookups must be dropped).
   */
  async updateUser(
    id: string,
    patch: Partial<Pick<UserEntity, 'name' | 'operator' | 'disabled' | 'passwordHash'>>,
    audit: AuditRecord | null,
    now: number,
    revokedKeyHashes: string[] = [],
  ): Promise<UserEntity | null> {
    return this.tx.run(async (m) => {
      await m.update(UserEntity, { id }, patch);
      const user = await m.findOneBy(UserEntity, { id });
      if (!user) return null;
      if (audit) await this.audit(m, audit, now);
      if (patch.disabled === true) {
        await this.sessions.deleteAllOfUser(id, null, m);
        if (audit)
          revokedKeyHashes.push(...(await this.revokeKeysCreatedBy(m, id, null, audit.actor, 'user_disabled', now)));
      }
      return user;
    });
  }

  /**
   * Revokes the live API keys `userId` created (in `teamId`, or in every team), one audit record
   * each (`api_key.revoke` with the reason); the revoked keys' hashes.
   */
  private async revokeKeysCreatedBy(
    m: EntityManager,
    userId: string,
    teamId: string | null,
    actor: AuditRecord['actor'],
    reason: 'member_removed' | 'user_disabled',
    now: number,
  ): Promise<string[]> {
    const keys = this.raw.table('api_keys');
    const { rows } = await this.raw.exec(
      `SELECT id, team_id, key_hash FROM ${keys} WHERE created_by = $1 AND revoked_at IS NULL` +
        (teamId === null ? '' : ' AND team_id = $2'),
      teamId === null ? [userId] : [userId, teamId],
      m,
    );
    const hashes: string[] = [];
    for (const row of rows) {
      const r = await this.raw.exec(
        `UPDATE ${keys} SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id`,
        [row.id, now],
        m,
      );
      if (r.rows.length === 0) continue;
      hashes.push(String(row.key_hash));
      await this.audit(
        m,
        {
          actor,
          teamId: String(row.team_id),
          action: 'api_key.revoke',
          targetType: 'api_key',
          targetId: String(row.id),
          before: { revoked: false },
          after: { revoked: true, reason, created_by: userId },
        },
        now,
      );
    }
    return hashes;
  }

  /** New password; every other session of the user ends. */
  async setPassword(
    userId: string,
    hash: string,
    keepSessionId: string,
    audit: AuditRecord,
    now: number,
  ): Promise<void> {
    await this.tx.run(async (m) => {
      await m.update(UserEntity, { id: userId }, { passwordHash: hash });
      await this.audit(m, audit, now);
      await this.sessions.deleteAllOfUser(userId, keepSessionId, m);
    });
  }

  // ---- sessions ----
  // The session store is written last in each transaction: with the Redis store, a failed write
  // rolls back the audit record (and the sign-in time) with it.

  async insertSession(s: SessionEntity, audit: AuditRecord): Promise<void> {
    await this.tx.run(async (m) => {
      await m.update(UserEntity, { id: s.userId }, { lastLoginAt: s.createdAt });
      await this.audit(m, audit, s.createdAt);
      await this.sessions.insert(s, m);
    });
  }

  findSessionByHash(tokenHash: string): Promise<SessionEntity | null> {
    return this.sessions.findByHash(tokenHash);
  }

  touchSession(s: SessionEntity, now: number): Promise<void> {
    return this.sessions.touch(s, now);
  }

  deleteSession(s: SessionEntity): Promise<void> {
    return this.sessions.delete(s);
  }

  /** Ends one session of the user (with its audit record); false when the user has no such session. */
  async deleteUserSession(userId: string, id: string, audit: AuditRecord, now: number): Promise<boolean> {
    return this.tx
      .run(async (m) => {
        await this.audit(m, audit, now);
        if (await this.sessions.deleteOfUser(userId, id, m)) return true;
        throw new NoSuchSession(); // rolls the audit record back
      })
      .catch((err: unknown) => {
        if (err instanceof NoSuchSession) return false;
        throw err;
      });
  }

  listSessions(userId: string): Promise<SessionEntity[]> {
    return this.sessions.listOfUser(userId);
  }

  deleteStaleSessions(now: number, idleMs: number): Promise<number> {
    return this.sessions.deleteStale(now, idleMs);
  }

  // ---- memberships ----

  membershipsOfUser(userId: string): Promise<MembershipEntity[]> {
    return this.ds.getRepository(MembershipEntity).find({ where: { userId }, order: { createdAt: 'ASC' } });
  }

  membersOfTeam(teamId: string): Promise<MembershipEntity[]> {
    return this.ds.getRepository(MembershipEntity).find({ where: { teamId }, order: { createdAt: 'ASC' } });
  }

  findMembership(teamId: string, userId: string): Promise<MembershipEntity | null> {
    return this.ds.getRepository(MembershipEntity).findOneBy({ teamId, userId });
  }

  /**
   * Adds the member or changes their role (null removes them). The team row is locked first so
   * concurrent changes apply one after another; a change that would leave the team without an
   * owner throws LastOwnerError and changes nothing.
   */
  async setMembership(
    teamId: string,
    userId: string,
    role: TeamRole | null,
    audit: (before: MembershipEntity | null) => AuditRecord,
    now: number,
    revokedKeyHashes: string[] = [],
  ): Promise<MembershipEntity | null> {
    return this.tx.run(async (m) => {
      await this.raw.lockRow(this.raw.table('teams'), teamId, m);
      const before = await m.findOneBy(MembershipEntity, { teamId, userId });
      if (before?.role === 'owner' && role !== 'owner') {
        const owners = await m.countBy(MembershipEntity, { teamId, role: 'owner' });
        if (owners <= 1) throw new LastOwnerError();
      }
      if (role === null) {
        if (before) await m.delete(MembershipEntity, { teamId, userId });
      } else if (before) {
        await m.update(MembershipEntity, { teamId, userId }, { role });
      } else {
        await m.insert(MembershipEntity, { teamId, userId, role, createdAt: now });
      }
      const record = audit(before);
      await this.audit(m, record, now);
      // a member who leaves or is removed takes no spending power along: their keys of the team end
      if (role === null && before)
        revokedKeyHashes.push(
          ...(await this.revokeKeysCreatedBy(m, userId, teamId, record.actor, 'member_removed', now)),
        );
      return role === null ? null : m.findOneBy(MembershipEntity, { teamId, userId });
    });
  }

  /**
   * Grants the roles single sign-on maps the user's groups to: a missing membership is added, a
   * weaker one raised; a stronger role and memberships outside the mapping are left as they are.
   * Teams that do not exist (or were deleted) are skipped. One transaction, one audit record per
   * change (`member.add` / `member.role_change`, `via: oidc`).
   */
  async grantMappedRoles(
    userId: string,
    grants: { teamId: string; role: TeamRole }[],
    actor: AuditRecord['actor'],
    now: number,
  ): Promise<void> {
    if (grants.length === 0) return;
    await this.tx.run(async (m) => {
      const teams = this.raw.table('teams');
      for (const g of grants) {
        if (!(await this.raw.lockRow(teams, g.teamId, m))) continue;
        const live = await this.raw.exec(`SELECT id FROM ${teams} WHERE id = $1 AND deleted_at IS NULL`, [g.teamId], m);
        if (live.rows.length === 0) continue;
        const before = await m.findOneBy(MembershipEntity, { teamId: g.teamId, userId });
        if (before && ROLE_ORDER.indexOf(before.role) >= ROLE_ORDER.indexOf(g.role)) continue;
        if (before) await m.update(MembershipEntity, { teamId: g.teamId, userId }, { role: g.role });
        else await m.insert(MembershipEntity, { teamId: g.teamId, userId, role: g.role, createdAt: now });
        await this.audit(
          m,
          {
            actor,
            teamId: g.teamId,
            action: before ? 'member.role_change' : 'member.add',
            targetType: 'user',
            targetId: userId,
            before: before ? { role: before.role } : null,
            after: { role: g.role, via: 'oidc' },
          },
          now,
        );
      }
    });
  }

  /**
   * Deletes a team, all or nothing: the team row (locked first) must hold no money and no open
   * hold; then it is marked deleted, its keys revoked, its members removed and its pending
   * invitations revoked, with the audit record. The row itself stays for the ledger history.
   */
  async deleteTeam(
    teamId: string,
    audit: (before: { name: string }) => AuditRecord,
    now: number,
  ): Promise<'deleted' | 'not_found' | 'has_balance' | 'has_holds'> {
    return this.tx.run(async (m) => {
      const teams = this.raw.table('teams');
      await this.raw.lockRow(teams, teamId, m);
      const { rows } = await this.raw.exec(
        `SELECT name, balance_micro, reserved_micro FROM ${teams} WHERE id = $1 AND deleted_at IS NULL`,
        [teamId],
        m,
      );
      if (rows.length === 0) return 'not_found';
      // holds first: a request in progress always comes with a positive balance
      const open = await this.raw.exec(
        `SELECT id FROM ${this.raw.table('reservations')} WHERE team_id = $1 AND status = 'open'`,
        [teamId],
        m,
      );
      if (Number(rows[0].reserved_micro) > 0 || open.rows.length > 0) return 'has_holds';
      if (Number(rows[0].balance_micro) > 0) return 'has_balance';
      await this.raw.exec(`UPDATE ${teams} SET deleted_at = $2, updated_at = $2 WHERE id = $1`, [teamId, now], m);
      await this.raw.exec(
        `UPDATE ${this.raw.table('api_keys')} SET revoked_at = $2 WHERE team_id = $1 AND revoked_at IS NULL`,
        [teamId, now],
        m,
      );
      await m.delete(MembershipEntity, { teamId });
      await m
        .createQueryBuilder()
        .update(InvitationEntity)
        .set({ revokedAt: now })
        .where('team_id = :teamId AND revoked_at IS NULL AND accepted_at IS NULL', { teamId })
        .execute();
      await this.audit(m, audit({ name: String(rows[0].name) }), now);
      return 'deleted';
    });
  }

  // ---- invitations ----

  async insertInvitation(inv: InvitationEntity, audit: AuditRecord): Promise<void> {
    await this.tx.run(async (m) => {
      await m.insert(InvitationEntity, inv);
      await this.audit(m, audit, inv.createdAt);
    });
  }

  listInvitations(teamId: string): Promise<InvitationEntity[]> {
    return this.ds.getRepository(InvitationEntity).find({ where: { teamId }, order: { createdAt: 'DESC' } });
  }

  findInvitationByHash(tokenHash: string): Promise<InvitationEntity | null> {
    return this.ds.getRepository(InvitationEntity).findOneBy({ tokenHash });
  }

  /** Revokes a pending invitation of the team; null when there is none with that id. */
  async revokeInvitation(
    teamId: string,
    id: string,
    audit: AuditRecord,
    now: number,
  ): Promise<InvitationEntity | null> {
    return this.tx.run(async (m) => {
      const r = await m
        .createQueryBuilder()
        .update(InvitationEntity)
        .set({ revokedAt: now })
        .where('id = :id AND team_id = :teamId AND revoked_at IS NULL AND accepted_at IS NULL', { id, teamId })
        .execute();
      if (!r.affected) return null;
      await this.audit(m, audit, now);
      return m.findOneBy(InvitationEntity, { id });
    });
  }

  /**
   * Uses the invitation once: marks it accepted (only if still pending and unexpired), creates the
   * user when `newUser` is given, and adds the membership (an existing member keeps the stronger
   * role). False when the invitation was already used, revoked or expired meanwhile.
   */
  async acceptInvitation(
    inv: InvitationEntity,
    userId: string,
    newUser: UserEntity | null,
    audit: AuditRecord,
    now: number,
  ): Promise<boolean> {
    return this.tx.run(async (m) => {
      await this.raw.lockRow(this.raw.table('teams'), inv.teamId, m);
      const r = await m
        .createQueryBuilder()
        .update(InvitationEntity)
        .set({ acceptedAt: now, acceptedBy: userId })
        .where('id = :id AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > :now', { id: inv.id, now })
        .execute();
      if (!r.affected) return false;
      if (newUser) await m.insert(UserEntity, { ...newUser });
      const existing = await m.findOneBy(MembershipEntity, { teamId: inv.teamId, userId });
      if (!existing) await m.insert(MembershipEntity, { teamId: inv.teamId, userId, role: inv.role, createdAt: now });
      else if (ROLE_ORDER.indexOf(inv.role) > ROLE_ORDER.indexOf(existing.role))
        await m.update(MembershipEntity, { teamId: inv.teamId, userId }, { role: inv.role });
      await this.audit(m, audit, now);
      return true;
    });
  }
}
