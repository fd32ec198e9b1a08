import type { NextFunction, Request, Response } from 'express';
import { parse } from 'cookie';
import { ApiError } from '@app/common';
import { CSRF_HEADER, refuseBeforeBody, RequestWithAccount, secretsEqual, SESSION_COOKIE } from '@app/auth';
import { AccountsService } from './accounts.service';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Sign-in never uses an existing session (a stale cookie must not stand in its way). */
const IGNORES_SESSION = /^\/api\/v1\/auth\/(login|oidc\/)/;
/** Routes a session cookie authenticates (the console API and the product API). */
const SESSION_ROUTES = /^\/(api|v1)/;

/**
 * Resolves the session cookie before anything else reads the request, and refuses a state-changing
 * request whose x-csrf-token header is missing or differs from the session's token (403
 * csrf_failed, before the body is read). A request carrying an API key or an Authorization header
 * is authenticated by that credential alone: its cookie is ignored, so API clients never need the
 * CSRF header. An unknown or expired cookie is ignored (the route then answers 401 itself). While
 * the session store cannot answer, a request with a cookie is answered 503 session_store_unavailable.
 */
export function sessionMiddleware(accounts: AccountsService) {
  return (req: RequestWithAccount, res: Response, next: NextFunction): void => {
    if (req.headers['api-key'] !== undefined || req.headers.authorization !== undefined) return next();
    if (IGNORES_SESSION.test(req.path)) return next();
    const raw = req.headers.cookie;
    if (!raw) return next();
    const token = parse(raw)[SESSION_COOKIE];
    if (!token) return next();
    accounts.principal(token).then(
      (found) => {
        if (!found) return next();
        if (!SAFE_METHODS.has(req.method)) {
          const sent = req.headers[CSRF_HEADER];
          if (typeof sent !== 'string' || !secretsEqual(sent, found.session.csrfToken))
            return refuseBeforeBody(
              req,
              res,
              ApiError.forbidden(
                `A request made with the session cookie that changes state must carry the ${CSRF_HEADER} header (the csrf_token of sign-in or GET /api/v1/auth/me).`,
                'csrf_failed',
              ),
            );
        }
        req.account = found.principal;
        next();
      },
      (err: unknown) => {
        // the session store cannot answer: an API or console-API request made with the cookie is
        // answered 503 (not "not signed in"); other routes (pages, health) go on without a session
        if (err instanceof ApiError && err.status === 503 && SESSION_ROUTES.test(req.path))
          return refuseBeforeBody(req, res, err);
        if (err instanceof ApiError && err.status === 503) return next();
        next(err);
      },
    );
  };
}

export function clientAddress(req: Request): string | null {
  return req.ip ?? null;
}
