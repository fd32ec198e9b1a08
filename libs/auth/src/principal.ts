import type { Request } from 'express';

/** Team roles, weakest first. */
export const TEAM_ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** True when `role` is at least `needed` (viewer < member < admin < owner). */
export function roleAtLeast(role: TeamRole | undefined, needed: TeamRole): boolean {
  return role !== undefined && TEAM_ROLES.indexOf(role) >= TEAM_ROLES.indexOf(needed);
}

/**
 * A signed-in person, resolved from the session cookie before the body is read (the session
 * middleware of the accounts module sets it; requests that carry an API key or an Authorization
 * header never get one: those credentials win over a cookie).
 */
export interface SessionPrincipal {
  userId: string;
  email: string;
  /** instance-wide administrator */
  operator: boolean;
  sessionId: string;
  /** team id → role */
  roles: Record<string, TeamRole>;
}

export interface RequestWithAccount extends Request {
  account?: SessionPrincipal;
}

/** The session of the request, if any. */
export function sessionOf(req: Request): SessionPrincipal | undefined {
  return (req as RequestWithAccount).account;
}

/** Name of the header that selects the team of a session request on the team-scoped product API. */
export const TEAM_HEADER = 'x-team-id';
/** Name of the session cookie and of the CSRF header (also the Swagger security scheme names). */
export const SESSION_COOKIE = 'gw_session';
export const CSRF_HEADER = 'x-csrf-token';
