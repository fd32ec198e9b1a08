import type { NextFunction, Request, Response } from 'express';
import { ApiError, ensureRequestId, errorResponseFor, requestContextOf } from '@app/common';
import { AppConfig } from '@app/config';
import { secretsEqual } from './api-key.crypto';
import { extractApiKey } from './api-key.header';
import { ApiKeysService, Caller } from './api-keys.service';

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
export function authBeforeBody(keys: ApiKeysService, config: AppConfig) {
  return (req: Request & { caller?: Caller }, res: Response, next: NextFunction): void => {
    const path = req.path;
    if (!BODY_METHODS.has(req.method) || PUBLIC_WITH_BODY.some((p) => p.test(path))) return next();
    if (ADMIN.test(path)) {
      const token = config.adminToken;
      const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      if (!token || (m && secretsEqual(m[1], token))) return next(); // no token: the admin API answers 404 itself
      return refuse(req, res, ApiError.unauthorized('Invalid or missing admin token.', 'invalid_admin_token'));
    }
    keys.authenticate(extractApiKey(req.headers)).then(
      (caller) => {
        req.caller = caller;
        next();
      },
      (err: unknown) => (err instanceof ApiError && err.status === 401 ? refuse(req, res, err) : next(err)),
    );
  };
}

function refuse(req: Request & { id?: unknown }, res: Response, err: ApiError): void {
  // the request observer gave the request its id and header already (when mounted)
  ensureRequestId(req, res);
  const ctx = requestContextOf(res);
  if (ctx) ctx.errorCode = err.code ?? err.type;
  // the body was never read: close the connection instead of draining it
  res.setHeader('connection', 'close');
  const { status, body } = errorResponseFor(req.path, err, req.id === undefined ? undefined : String(req.id));
  res.status(status).json(body);
  res.on('finish', () => req.socket.destroySoon?.());
}
