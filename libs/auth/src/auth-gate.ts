import type { NextFunction, Request, Response } from 'express';
import { ApiError, ensureRequestId, errorResponseFor, requestContextOf } from '@app/common';
import { AppConfig } from '@app/config';
import { secretsEqual } from './api-key.crypto';
import { ApiKeysService, Caller } from './api-keys.service';
import { authenticateKey, AuthThrottle, checkAdminToken } from './auth-throttle';
import { sessionOf } from './principal';

/** Routes that carry a body but need no credential (the admin API checks its own token here). */
const PUBLIC_WITH_BODY = [
  /^\/api\/v1\/hooks\//,
  /^\/api\/v1\/auth\/login$/,
  /^\/api\/v1\/invitations\/[^/]+\/accept$/,
  // the payment provider's notifications: only a payment id is read from them (docs/payments.md)
  /^\/api\/v1\/payments\/yookassa\/notifications$/,
];
const ADMIN = /^\/api\/v1\/admin(\/|$)/;
/** a signed-in session only */
const SESSION_ONLY = /^\/api\/v1\/auth\//;
/** a session or the operator token */
const PEOPLE_API = /^\/api\/v1\/(teams|audit-log)(\/|$)/;
/** team routes that also take the team's own API key (alerts): the operator token or a valid key */
const TEAM_KEY_API = /^\/api\/v1\/teams\/[^/]+\/alerts(\/|$)/;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Authenticates from the headers BEFORE any body byte is read: a request with a body and no valid
 * key (admin routes: no valid admin token) is refused at once with 401 and the connection closed,
 * so unauthenticated callers cannot make the server buffer or parse anything. Failed credentials
 * are counted per client address (AuthThrottle). The resolved caller is kept on the request
 * (ApiKeyGuard reuses it). Lookups are the cached ones of ApiKeysService.
 */
export function authBeforeBody(keys: ApiKeysService, config: AppConfig, throttle: AuthThrottle) {
  return (req: Request & { caller?: Caller }, res: Response, next: NextFunction): void => {
    const path = req.path;
    if (!BODY_METHODS.has(req.method) || PUBLIC_WITH_BODY.some((p) => p.test(path))) return next();
    const refused = (err: unknown) =>
      err instanceof ApiError && (err.status === 401 || err.status === 429) ? refuse(req, res, err) : next(err);
    // a live session (resolved from the cookie, CSRF checked, before this gate): the route's guard
    // decides what it may do
    if (sessionOf(req)) return next();
    if (SESSION_ONLY.test(path)) return refuse(req, res, ApiError.unauthorized('Not signed in.', 'not_authenticated'));
    if (TEAM_KEY_API.test(path) && !bearerIs(req, config.adminToken)) {
      authenticateKey(req, keys, throttle).then((caller) => {
        req.caller = caller;
        next();
      }, refused);
      return;
    }
    if (PEOPLE_API.test(path)) {
      const token = config.adminToken;
      if (!token) return refuse(req, res, ApiError.unauthorized('Not signed in.', 'not_authenticated'));
      checkAdminToken(req, token, throttle).then(
        () => next(),
        (err: unknown) =>
          refused(
            err instanceof ApiError && err.status === 401
              ? ApiError.unauthorized('Not signed in (or invalid operator token).', 'not_authenticated')
              : err,
          ),
      );
      return;
    }
    if (ADMIN.test(path)) {
      const token = config.adminToken;
      if (!token) return next(); // no token: the admin API answers 404 itself
      checkAdminToken(req, token, throttle).then(() => next(), refused);
      return;
    }
    authenticateKey(req, keys, throttle).then((caller) => {
      req.caller = caller;
      next();
    }, refused);
  };
}

/** True when the request's Authorization is `Bearer <token>` (constant-time compare; no token configured: false). */
export function bearerIs(req: Request, token: string | undefined): boolean {
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return Boolean(token && m && secretsEqual(m[1], token));
}

/** Answers `err` before the body is read and closes the connection (the body is never drained). */
export function refuseBeforeBody(req: Request, res: Response, err: ApiError): void {
  refuse(req, res, err);
}

function refuse(req: Request & { id?: unknown }, res: Response, err: ApiError): void {
  // the request observer gave the request its id and header already (when mounted)
  ensureRequestId(req, res);
  const ctx = requestContextOf(res);
  if (ctx) ctx.errorCode = err.code ?? err.type;
  // the body was never read: close the connection instead of draining it
  res.setHeader('connection', 'close');
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  const { status, body } = errorResponseFor(req.path, err, req.id === undefined ? undefined : String(req.id));
  res.status(status).json(body);
  res.on('finish', () => req.socket.destroySoon?.());
}
