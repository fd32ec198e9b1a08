import type { NextFunction, Request, Response } from 'express';
import { ApiError, ensureRequestId, errorResponseFor, requestContextOf } from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeysService, Caller } from './api-keys.service';
import { authenticateKey, AuthThrottle, checkAdminToken } from './auth-throttle';

/** Routes that carry a body but are not API-key routes (the admin API checks its own token here). */
const PUBLIC_WITH_BODY = [/^\/api\/v1\/hooks\//];
const ADMIN = /^\/api\/v1\/admin(\/|$)/;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Authenticates from the headers BEFORE any body byte is read: a request with a body and no valid
 * key (admin routes: no valid admin token) is refused at once with 401 and the connection closed,
 * so unauthenticated callers cannot make the server buffer or parse anything. The resolved caller
 * is kept on the request (ApiKeyGuard reuses it). Lookups are the cached ones of ApiKeysService.
 */
export function authBeforeBody(keys: ApiKeysService, config: AppConfig, throttle: AuthThrottle) {
  return (req: Request & { caller?: Caller }, res: Response, next: NextFunction): void => {
    const path = req.path;
    if (!BODY_METHODS.has(req.method) || PUBLIC_WITH_BODY.some((p) => p.test(path))) return next();
    const refused = (err: unknown) =>
      err instanceof ApiError && (err.status === 401 || err.status === 429) ? refuse(req, res, err) : next(err);
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
