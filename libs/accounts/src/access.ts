import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import { roleAtLeast, secretsEqual, SECURITY, SessionPrincipal, sessionOf, TeamRole } from '@app/auth';
import { TeamsService } from '@app/billing';

/** Who is asking on the people API: a signed-in user, or the operator token (ADMIN_TOKEN). */
export type Principal = { kind: 'session'; session: SessionPrincipal } | { kind: 'operator_token' };

const TEAM_ROLE = 'gw:team-role';
const NEEDS_SESSION = 'gw:needs-session';

function principalOf(req: Request, config: AppConfig): Principal | null {
  const session = sessionOf(req);
  if (session) return { kind: 'session', session };
  const token = config.adminToken;
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (token && m && secretsEqual(m[1], token)) return { kind: 'operator_token' };
  return null;
}

/** True for the operator token and for operators' sessions. */
export function isOperator(p: Principal): boolean {
  return p.kind === 'operator_token' || p.session.operator;
}

/**
 * The people API's guard: a session, or (unless the route needs a session) the operator token.
 * With @TeamAccess(role) the route's :team_id must exist and the session's role there must reach
 * `role` — 404 team_not_found for a team the user does not belong to (as for any other team's
 * resource), 403 insufficient_role for a member whose role is too weak. Operators reach every team.
 */
@Injectable()
export class PrincipalGuard implements CanActivate {
  constructor(
    private readonly config: AppConfig,
    private readonly reflector: Reflector,
    private readonly teams: TeamsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { principal?: Principal }>();
    const principal = principalOf(req, this.config);
    const targets = [context.getHandler(), context.getClass()];
    const needsSession = this.reflector.getAllAndOverride<boolean | undefined>(NEEDS_SESSION, targets);
    if (!principal || (needsSession && principal.kind !== 'session'))
      throw ApiError.unauthorized('Not signed in.', 'not_authenticated');
    req.principal = principal;
    const role = this.reflector.getAllAndOverride<TeamRole | undefined>(TEAM_ROLE, targets);
    if (!role) return true;
    const teamId = String(req.params.team_id ?? '');
    const notFound = ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found', 'team_id');
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(teamId)) throw notFound;
    if (!isOperator(principal)) {
      const mine = principal.kind === 'session' ? principal.session.roles[teamId] : undefined;
      if (!mine) throw notFound;
      if (!roleAtLeast(mine, role))
        throw ApiError.forbidden(`This needs the ${role} role in the team (yours: ${mine}).`, 'insufficient_role');
    }
    if (!(await this.teams.exists(teamId))) throw notFound;
    return true;
  }
}

const securityDocs = () =>
  applyDecorators(
    ApiSecurity(SECURITY.session),
    ApiSecurity(SECURITY.csrf),
    ApiResponse({ status: 401, description: 'Not signed in' }),
    ApiResponse({ status: 403, description: 'csrf_failed (cookie without x-csrf-token) or insufficient_role' }),
  );

/** A session or the operator token. */
export function PeopleAuth(): MethodDecorator & ClassDecorator {
  return applyDecorators(UseGuards(PrincipalGuard), securityDocs(), ApiSecurity(SECURITY.admin));
}

/** A signed-in session only. */
export function SessionAuth(): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(NEEDS_SESSION, true), UseGuards(PrincipalGuard), securityDocs());
}

/** The route acts on :team_id and needs at least `role` there (operators: always). */
export function TeamAccess(role: TeamRole): MethodDecorator {
  return applyDecorators(SetMetadata(TEAM_ROLE, role));
}

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const req = ctx.switchToHttp().getRequest<{ principal?: Principal }>();
  if (!req.principal) throw ApiError.unauthorized('Not signed in.', 'not_authenticated');
  return req.principal;
});

/** The session of a SessionAuth() route. */
export const CurrentSession = createParamDecorator((_: unknown, ctx: ExecutionContext): SessionPrincipal => {
  const session = sessionOf(ctx.switchToHttp().getRequest<Request>());
  if (!session) throw ApiError.unauthorized('Not signed in.', 'not_authenticated');
  return session;
});
