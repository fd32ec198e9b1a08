import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiKeyGuard, Caller, secretsEqual, sessionOf, TEAM_HEADER } from '@app/auth';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';

/** Whose records a request-log read may see: one team, or every team (operators; null). */
export interface RequestLogScope {
  teamId: string | null;
  /**
   * Whose stored bodies it may read: null = every record's (operators, the team's API keys, owners
   * and admins); a user id = only the records that user made: with a session, or with an API key
   * the user created (members, viewers).
   */
  bodiesOfUser: string | null;
}

interface ScopedRequest extends Request {
  caller?: Caller;
  requestLogScope?: RequestLogScope;
}

function queryTeam(req: Request): string | null {
  const t = req.query?.team_id;
  return typeof t === 'string' && t.trim() !== '' ? t.trim().toLowerCase() : null;
}

/**
 * The request log's readers: the operator (ADMIN_TOKEN, or an operator's session without a team
 * header) reads every team, or the team of `team_id`; anyone else goes through the API-key guard —
 * the team's API keys, or a session with at least the viewer role in the team it names. Stored
 * bodies are read by operators, the team's keys, owners and admins; members and viewers read the
 * bodies of their own calls only: made with their session or with a key they created (other
 * records answer without bodies).
 */
@Injectable()
export class RequestLogGuard implements CanActivate {
  constructor(
    private readonly config: AppConfig,
    private readonly keys: ApiKeyGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ScopedRequest>();
    const token = this.config.adminToken;
    const bearer = /^\s*Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const session = sessionOf(req);
    if (
      (token && bearer && secretsEqual(bearer[1], token)) ||
      (session?.operator && req.headers[TEAM_HEADER] === undefined)
    ) {
      req.requestLogScope = { teamId: queryTeam(req), bodiesOfUser: null };
      return true;
    }
    await this.keys.canActivate(context);
    if (!req.caller) throw ApiError.unauthorized();
    // a session below admin reads the bodies of its own calls only: other members' prompts stay theirs
    const userId = req.caller.userId;
    const role = userId && session ? session.roles[req.caller.teamId] : undefined;
    const seesAll = !userId || session?.operator === true || role === 'owner' || role === 'admin';
    req.requestLogScope = { teamId: req.caller.teamId, bodiesOfUser: seesAll ? null : userId };
    return true;
  }
}
