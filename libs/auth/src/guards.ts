import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  UseGuards,
} from '@nestjs/common';
import { ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeysService, Caller } from './api-keys.service';
import { authenticateKey, AuthThrottle, checkAdminToken } from './auth-throttle';

interface RequestWithCaller extends Request {
  caller?: Caller;
}

/** Resolves the API key (any of the three header forms) and attaches the Caller to the request. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly throttle: AuthThrottle,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<RequestWithCaller>();
    // resolved already by the auth gate (routes with a body) — otherwise here
    req.caller ??= await authenticateKey(req, this.keys, this.throttle);
    return true;
  }
}

/** Admin API: Bearer ADMIN_TOKEN (constant-time compare). Unset ADMIN_TOKEN → the admin API answers 404. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly config: AppConfig,
    private readonly throttle: AuthThrottle,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const token = this.config.adminToken;
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
} as const;

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
    ApiResponse({ status: 401, description: 'Invalid or missing admin token.' }),
    ApiResponse({ status: 404, description: 'Admin API disabled (ADMIN_TOKEN unset).' }),
  );
}
