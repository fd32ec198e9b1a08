import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import {
  ApiKeysService,
  authenticateKey,
  AuthThrottle,
  Caller,
  bearerIs,
  roleAtLeast,
  SECURITY,
  sessionOf,
} from '@app/auth';
import { TeamsService } from '@app/billing';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The alerts API's guard: the route's :team_id must exist and be reached by a session with the
 * admin role there (operators: every team), the operator token, or an API key of that team.
 * Another team's id — or a key of another team — answers 404 as if it did not exist.
 */
@Injectable()
export class TeamAdminOrKeyGuard implements CanActivate {
  constructor(
    private readonly config: AppConfig,
    private readonly keys: ApiKeysService,
    private readonly throttle: AuthThrottle,
    private readonly teams: TeamsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { caller?: Caller }>();
    const teamId = String(req.params.team_id ?? '');
    const notFound = ApiError.notFound(`Team ${teamId} not found.`, 'team_not_found', 'team_id');
    const session = sessionOf(req);
    if (session) {
      const role = session.roles[teamId.toLowerCase()];
      if (!session.operator) {
        if (!role) throw notFound;
        if (!roleAtLeast(role, 'admin'))
          throw ApiError.forbidden(`This needs the admin role in the team (yours: ${role}).`, 'insufficient_role');
      }
    } else if (!bearerIs(req, this.config.adminToken)) {
      const caller = req.caller ?? (await authenticateKey(req, this.keys, this.throttle));
      req.caller = caller;
      if (caller.teamId !== teamId.toLowerCase()) throw notFound;
    }
    if (!UUID.test(teamId) || !(await this.teams.exists(teamId.toLowerCase()))) throw notFound;
    return true;
  }
}

/** Guard + Swagger docs: a team admin's session, the operator token, or the team's own API key. */
export function TeamAdminOrKeyAuth(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(TeamAdminOrKeyGuard),
    ApiSecurity(SECURITY.session),
    ApiSecurity(SECURITY.csrf),
    ApiSecurity(SECURITY.admin),
    ApiSecurity(SECURITY.apiKeyHeader),
    ApiSecurity(SECURITY.bearer),
    ApiResponse({ status: 401, description: 'No session, operator token or API key' }),
    ApiResponse({ status: 403, description: 'csrf_failed or insufficient_role (admin needed)' }),
  );
}
