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
import { ApiHeader, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeysService, Caller } from './api-keys.service';
import { authenticateKey, AuthThrottle, checkAdminToken } from './auth-throttle';
import { roleAtLeast, SessionPrincipal, sessionOf, TEAM_HEADER, TeamRole } from './principal';

interface RequestWithCaller extends Request {
  caller?: Caller;
}

const SESSION_ROLE = 'gw:session-role';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Resolves the API key (any of the three header forms) and attaches the Caller to the request.
 * Routes marked with AllowSession() also accept a signed-in session: the team is the `x-team-id`
 * header (or `team_id` query parameter), and the session's role in it must reach the route's role
 * (reads: viewer, writes: member, unless the route names another). Operators reach every team.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly throttle: AuthThrottle,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<RequestWithCaller>();
    if (req.caller) return true; // resolved already by the auth gate (routes with a body)
    const session = sessionOf(req);
    const sessionRole = this.reflector.getAllAndOverride<TeamRole | 'read-write' | undefined>(SESSION_ROLE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (session && sessionRole) {
      const needed: TeamRole =
        sessionRole === 'read-write' ? (['GET', 'HEAD'].includes(req.method) ? 'viewer' : 'member') : sessionRole;
      const caller = sessionCaller(session, teamOfRequest(req), needed);
      // the team's stored rate limits apply to its members' sessions as to its keys
      const team = await this.keys.sessionSettings(caller.teamId);
      if (!team) throw ApiError.notFound(`Team ${caller.teamId} not found.`, 'team_not_found', TEAM_HEADER);
      req.caller = { ...caller, limits: team.limits, dataPolicy: team.dataPolicy };
      return true;
    }
    req.caller = await authenticateKey(req, this.keys, this.throttle);
    return true;
  }
}

function teamOfRequest(req: Request): string {
  const header = req.headers[TEAM_HEADER];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  const fromQuery = typeof req.query?.team_id === 'string' ? req.query.team_id : undefined;
  const team = (fromHeader ?? fromQuery ?? '').trim();
  if (!team)
    throw ApiError.badRequest(
      `A signed-in request must name its team in the ${TEAM_HEADER} header (or the team_id query parameter).`,
      TEAM_HEADER,
      'team_required',
    );
  if (!UUID.test(team)) throw ApiError.notFound(`Team ${team} not found.`, 'team_not_found', TEAM_HEADER);
  return team.toLowerCase();
}

/** The Caller a session acts as in `teamId`, or 404 (not a member) / 403 (role too weak). */
export function sessionCaller(session: SessionPrincipal, teamId: string, needed: TeamRole): Caller {
  const role = session.roles[teamId];
  if (!session.operator) {
    if (!role) throw ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found', TEAM_HEADER);
    if (!roleAtLeast(role, needed))
      throw ApiError.forbidden(`This needs the ${needed} role in the team (yours: ${role}).`, 'insufficient_role');
  }
  // charges made with a session (e.g. a knowledge-base search) are attributed to the user
  return { teamId, apiKeyId: session.userId, keyPrefix: 'session', userId: session.userId };
}

/**
 * Admin API: Bearer ADMIN_TOKEN (constant-time compare) or an operator's session. Unset ADMIN_TOKEN
 * and no operator session → the admin API answers 404.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly config: AppConfig,
    private readonly throttle: AuthThrottle,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const session = sessionOf(req);
    if (session?.operator) return true;
    const token = this.config.adminToken;
    // signed in, but not an operator (and no operator token offered): known, and not allowed
    if (session && token && !req.headers.authorization?.trim())
      throw ApiError.forbidden('The admin API is for operators.', 'operator_required');
    // disabled: every admin route is unknown, whatever the method (no 405 hinting at the methods it has)
    if (!token)
      throw Object.assign(ApiError.notFound(`Unknown route: ${req.method} ${req.path}`), { methodHint: false });
    await checkAdminToken(req, token, this.throttle);
    return true;
  }
}

/** The authenticated caller (set by ApiKeyGuard). */
export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const req = ctx.switchToHttp().getRequest<RequestWithCaller>();
  if (!req.caller) throw ApiError.unauthorized();
  return req.caller;
});

/** Swagger security scheme names (registered in main.ts). */
export const SECURITY = {
  apiKeyHeader: 'api-key',
  bearer: 'bearer',
  authorizationApiKey: 'authorization-api-key',
  /** the Anthropic SDKs' form (x-api-key: <API_KEY>) */
  xApiKey: 'x-api-key',
  admin: 'admin',
  session: 'session',
  csrf: 'csrf',
} as const;

/**
 * Lets a signed-in session reach an API-key route (see ApiKeyGuard): `role` is what the route
 * needs; without it reads need viewer and writes member. Documents the cookie, CSRF header and
 * x-team-id header in Swagger.
 */
export function AllowSession(role?: TeamRole): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(SESSION_ROLE, role ?? 'read-write'),
    ApiSecurity(SECURITY.session),
    ApiSecurity(SECURITY.csrf),
    ApiHeader({
      name: TEAM_HEADER,
      required: false,
      description:
        'With a session cookie: the team to act in (or the team_id query parameter). Ignored with an API key.',
    }),
  );
}

/** Guard + Swagger docs for endpoints authenticated with an API key. */
export function ApiKeyAuth(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(ApiKeyGuard),
    ApiSecurity(SECURITY.apiKeyHeader),
    ApiSecurity(SECURITY.bearer),
    ApiSecurity(SECURITY.authorizationApiKey),
    ApiResponse({ status: 401, description: 'Missing, unknown or revoked API key.' }),
  );
}

export function AdminAuth(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(AdminGuard),
    ApiSecurity(SECURITY.admin),
    ApiSecurity(SECURITY.session),
    ApiResponse({ status: 401, description: 'Invalid or missing admin token (or no operator session).' }),
    ApiResponse({ status: 403, description: 'Signed in without the operator role (operator_required).' }),
    ApiResponse({ status: 404, description: 'Admin API disabled (ADMIN_TOKEN unset).' }),
  );
}
