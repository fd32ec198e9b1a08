import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { ApiError, Clock, newId } from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeysService, roleAtLeast, TeamRole } from '@app/auth';
import { BillingService, TeamsService } from '@app/billing';
import { AccountsRepository, LastOwnerError } from './accounts.repository';
import { Actor } from './audit';
import { Principal, isOperator } from './access';
import {
  MemberDto,
  CreatedInvitationDto,
  InvitationDto,
  AcceptedInvitationDto,
  InvitationPreviewDto,
} from './dto/teams.dto';
import { PASSWORD_MAX, PASSWORD_MIN } from './dto/auth.dto';
import { InvitationEntity } from './entities/invitation.entity';
import { UserEntity } from './entities/user.entity';
import { PasswordHasher } from './password-hasher';
import { PasswordPolicy } from './password-policy';
import { InvitationMailer } from './invitation-mailer';

const iso = (t: number) => new Date(t).toISOString();
const hashToken = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

const invitationGone = () =>
  new ApiError(
    410,
    'invalid_request_error',
    'This invitation has expired, was revoked or was already used.',
    'invitation_invalid',
  );

/** The caller's role in a team (operators count as owners). */
export function roleIn(p: Principal, teamId: string): TeamRole | undefined {
  if (isOperator(p)) return 'owner';
  return p.kind === 'session' ? p.session.roles[teamId] : undefined;
}

/** Members and invitations of a team. */
@Injectable()
export class TeamPeopleService {
  constructor(
    private readonly repo: AccountsRepository,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly mailer: InvitationMailer,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly keys: ApiKeysService,
    private readonly billing: BillingService,
    private readonly teams: TeamsService,
  ) {}

  async members(teamId: string): Promise<MemberDto[]> {
    const rows = await this.repo.membersOfTeam(teamId);
    const users = new Map((await this.repo.findUsersByIds(rows.map((r) => r.userId))).map((u) => [u.id, u]));
    return rows
      .filter((r) => users.has(r.userId))
      .map((r) => {
        const u = users.get(r.userId) as UserEntity;
        return { user_id: u.id, email: u.email, name: u.name, role: r.role, joined_at: iso(r.createdAt) };
      });
  }

  /**
   * Changes a member's role. Admins manage viewer/member/admin; granting or taking away the owner
   * role needs an owner (that is how ownership is transferred). The last owner cannot be demoted.
   */
  async setRole(p: Principal, actor: Actor, teamId: string, userId: string, role: TeamRole): Promise<MemberDto> {
    const current = await this.repo.findMembership(teamId, userId);
    if (!current) throw ApiError.notFound(`User ${userId} is not a member of the team.`, 'member_not_found', 'user_id');
    if ((role === 'owner' || current.role === 'owner') && !roleAtLeast(roleIn(p, teamId), 'owner'))
      throw ApiError.forbidden('Only an owner can grant or take away the owner role.', 'insufficient_role');
    await this.guardLastOwner(() =>
      this.repo.setMembership(
        teamId,
        userId,
        role,
        (before) => ({
          actor,
          teamId,
          action: 'member.role_change',
          targetType: 'user',
          targetId: userId,
          before: { role: before?.role ?? null },
          after: { role },
        }),
        this.clock.now(),
      ),
    );
    const m = (await this.members(teamId)).find((x) => x.user_id === userId);
    if (!m) throw ApiError.notFound(`User ${userId} is not a member of the team.`, 'member_not_found', 'user_id');
    return m;
  }

  /**
   * Removes a member (admins; anyone may leave). Removing an owner needs an owner; the last owner
   * cannot leave. The API keys the member created in the team are revoked with the membership.
   */
  async remove(p: Principal, actor: Actor, teamId: string, userId: string): Promise<void> {
    const self = p.kind === 'session' && p.session.userId === userId;
    const mine = roleIn(p, teamId);
    if (!self && !roleAtLeast(mine, 'admin'))
      throw ApiError.forbidden('Removing another member needs the admin role.', 'insufficient_role');
    const current = await this.repo.findMembership(teamId, userId);
    if (!current) throw ApiError.notFound(`User ${userId} is not a member of the team.`, 'member_not_found', 'user_id');
    if (current.role === 'owner' && !self && !roleAtLeast(mine, 'owner'))
      throw ApiError.forbidden('Only an owner can remove an owner.', 'insufficient_role');
    const revoked: string[] = [];
    await this.guardLastOwner(() =>
      this.repo.setMembership(
        teamId,
        userId,
        null,
        (before) => ({
          actor,
          teamId,
          action: self ? 'member.leave' : 'member.remove',
          targetType: 'user',
          targetId: userId,
          before: { role: before?.role ?? null },
          after: null,
        }),
        this.clock.now(),
        revoked,
      ),
    );
    // the API keys the member created in the team were revoked with the membership
    await this.keys.forgetHashes(revoked);
  }

  /**
   * Deletes the team (owner or operator; the route's guard checks the role). Refused with 409 while
   * the team still holds money (`team_has_balance`) or an open hold (`team_has_holds`): money is
   * never silently dropped and an in-flight request is never left without its team.
   */
  async deleteTeam(actor: Actor, teamId: string): Promise<void> {
    // credit this replica took for the team in bulk and no request is using is not a request in progress
    await this.billing.returnFreeCredit(teamId);
    const outcome = await this.repo.deleteTeam(
      teamId,
      (before) => ({
        actor,
        teamId,
        action: 'team.delete',
        targetType: 'team',
        targetId: teamId,
        before: { name: before.name },
        after: null,
      }),
      this.clock.now(),
    );
    if (outcome === 'not_found') throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found', 'team_id');
    if (outcome === 'has_balance')
      throw new ApiError(
        409,
        'invalid_request_error',
        'The team still has a positive balance: spend or refund it before deleting the team.',
        'team_has_balance',
      );
    if (outcome === 'has_holds')
      throw new ApiError(
        409,
        'invalid_request_error',
        'The team has requests in progress (open holds): try again when they have finished.',
        'team_has_holds',
      );
    // the keys were revoked with the team: drop their cached lookups here and on every replica
    await this.keys.forgetTeam(teamId);
  }

  private async guardLastOwner<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof LastOwnerError)
        throw new ApiError(
          409,
          'invalid_request_error',
          'The team would have no owner left: make another member owner first.',
          'last_owner',
        );
      throw err;
    }
  }

  // ---- invitations ----

  async invite(
    actor: Actor,
    teamId: string,
    email: string,
    role: TeamRole,
    p: Principal,
  ): Promise<CreatedInvitationDto> {
    if (role === 'owner' && !roleAtLeast(roleIn(p, teamId), 'owner'))
      throw ApiError.forbidden('Only an owner can invite an owner.', 'insufficient_role');
    const token = `inv_${randomBytes(32).toString('base64url')}`;
    const now = this.clock.now();
    const inv: InvitationEntity = {
      id: newId(),
      teamId,
      email: email.toLowerCase(),
      role,
      tokenHash: hashToken(token),
      createdBy: actor.type === 'user' ? actor.id : null,
      createdAt: now,
      expiresAt: now + this.config.accounts.invitationTtlMs,
      acceptedAt: null,
      acceptedBy: null,
      revokedAt: null,
    };
    await this.repo.insertInvitation(inv, {
      actor,
      teamId,
      action: 'invitation.create',
      targetType: 'invitation',
      targetId: inv.id,
      after: { email: inv.email, role, expires_at: iso(inv.expiresAt) },
    });
    const url = `${this.config.publicBaseUrl ?? ''}/invitations/${token}`;
    await this.mailer.send(inv.email, url, role, inv.expiresAt);
    return { id: inv.id, token, url, expires_at: iso(inv.expiresAt) };
  }

  async invitations(teamId: string): Promise<InvitationDto[]> {
    const now = this.clock.now();
    return (await this.repo.listInvitations(teamId)).map((i) => ({
      id: i.id,
      email: i.email,
      role: i.role,
      status:
        i.acceptedAt !== null
          ? 'accepted'
          : i.revokedAt !== null
            ? 'revoked'
            : i.expiresAt <= now
              ? 'expired'
              : 'pending',
      created_at: iso(i.createdAt),
      expires_at: iso(i.expiresAt),
    }));
  }

  async revokeInvitation(actor: Actor, teamId: string, id: string): Promise<void> {
    const done = await this.repo.revokeInvitation(
      teamId,
      id,
      { actor, teamId, action: 'invitation.revoke', targetType: 'invitation', targetId: id },
      this.clock.now(),
    );
    if (!done) throw ApiError.notFound(`No pending invitation ${id}.`, 'invitation_not_found', 'id');
  }

  /**
   * What the invitation page shows before anything is typed: the team, who invited, the invited
   * e-mail and the password rule. 404 unknown; 410 invitation_invalid once used, revoked or expired.
   */
  async preview(token: string): Promise<InvitationPreviewDto> {
    const inv = await this.usableInvitation(token);
    const inviter = inv.createdBy ? await this.repo.findUserById(inv.createdBy) : null;
    return {
      team_name: (await this.teams.get(inv.teamId)).name,
      email: inv.email,
      role: inv.role,
      invited_by: inviter ? (inviter.name ? `${inviter.name} <${inviter.email}>` : inviter.email) : null,
      expires_at: iso(inv.expiresAt),
      account_exists: (await this.repo.findUserByEmail(inv.email)) !== null,
      password_min_length: PASSWORD_MIN,
      password_max_length: PASSWORD_MAX,
    };
  }

  private async usableInvitation(token: string): Promise<InvitationEntity> {
    const inv = await this.repo.findInvitationByHash(hashToken(token));
    if (!inv) throw ApiError.notFound('Unknown invitation.', 'invitation_not_found', 'token');
    if (inv.acceptedAt !== null || inv.revokedAt !== null || inv.expiresAt <= this.clock.now()) throw invitationGone();
    return inv;
  }

  /**
   * Accepts an invitation: a signed-in user joins with their account; otherwise a new user is
   * created from {name, password} with the invited e-mail. One use; expired, revoked or used
   * invitations answer 410 invitation_invalid. An existing user's e-mail must sign in first.
   * The invitation is bound to its e-mail: a signed-in account with another e-mail is refused (403
   * invitation_email_mismatch), except an operator's, whose acceptance the audit record marks as
   * an override (`email_override`, with both e-mails).
   */
  async accept(
    token: string,
    body: { name?: string; password?: string },
    session: { userId: string; email: string; operator: boolean } | null,
    actor: Actor,
  ): Promise<{ result: AcceptedInvitationDto; newUser: UserEntity | null }> {
    const inv = await this.usableInvitation(token);
    const now = this.clock.now();
    let userId: string;
    let newUser: UserEntity | null = null;
    let override: { invited: string; accepted_by: string } | null = null;
    if (session) {
      if (session.email.toLowerCase() !== inv.email) {
        if (!session.operator)
          throw ApiError.forbidden(
            'This invitation was sent to another e-mail address: sign in with the invited account to accept it.',
            'invitation_email_mismatch',
          );
        override = { invited: inv.email, accepted_by: session.email.toLowerCase() };
      }
      userId = session.userId;
    } else {
      if (await this.repo.findUserByEmail(inv.email))
        throw ApiError.unauthorized(
          'A user with this e-mail exists: sign in, then accept the invitation.',
          'not_authenticated',
        );
      if (!body.name || !body.password)
        throw ApiError.badRequest(
          'name and password are required to create your account.',
          body.name ? 'password' : 'name',
        );
      await this.policy.check(body.password, 'password', [inv.email, body.name]);
      newUser = {
        id: newId(),
        email: inv.email,
        name: body.name.trim(),
        passwordHash: await this.hasher.hash(body.password),
        operator: false,
        disabled: false,
        createdAt: now,
        lastLoginAt: null,
      };
      userId = newUser.id;
    }
    const ok = await this.repo.acceptInvitation(
      inv,
      userId,
      newUser,
      {
        actor: { ...actor, type: 'user', id: userId },
        teamId: inv.teamId,
        action: 'invitation.accept',
        targetType: 'invitation',
        targetId: inv.id,
        after: {
          user_id: userId,
          role: inv.role,
          new_user: newUser !== null,
          ...(override ? { email_override: override } : {}),
        },
      },
      now,
    );
    if (!ok) throw invitationGone();
    return { result: { team_id: inv.teamId, role: inv.role, user_id: userId }, newUser };
  }
}
