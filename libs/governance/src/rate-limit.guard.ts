import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { requestContextOf } from '@app/common';
import { LimitSubject, RateLimitService } from './rate-limit.service';

/** The caller as the auth guard leaves it on the request (structural: governance does not depend on auth). */
interface LimitedCaller {
  teamId: string;
  apiKeyId: string;
  limits?: { keyRpm: number | null; keyTpm: number | null; teamRpm: number | null; teamTpm: number | null };
}

/** The flag a request carries once it was counted against requests-per-minute (meter counts a request once). */
export const COUNTED_FLAG = 'rate-limit:counted';

export function limitSubject(caller: LimitedCaller): LimitSubject {
  const l = caller.limits;
  return {
    teamId: caller.teamId,
    apiKeyId: caller.apiKeyId,
    keyRpm: l?.keyRpm ?? null,
    keyTpm: l?.keyTpm ?? null,
    teamRpm: l?.teamRpm ?? null,
    teamTpm: l?.teamTpm ?? null,
  };
}

/**
 * For charged endpoints whose charge happens later, off the request (knowledge-base ingestion):
 * the request is counted against the requests-per-minute limits here (and refused with 429 when
 * over, or when the tokens-per-minute bucket is already overdrawn). Runs after the API-key guard.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limits: RateLimitService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { caller?: LimitedCaller }>();
    const res = context.switchToHttp().getResponse<Response>();
    if (!req.caller) return true;
    const flags = requestContextOf(res)?.flags;
    if (flags?.has(COUNTED_FLAG)) return true;
    flags?.add(COUNTED_FLAG);
    try {
      const { headers } = await this.limits.admit(limitSubject(req.caller), 0, true);
      for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    } catch (err) {
      const headers = (err as { headers?: Record<string, string> }).headers ?? {};
      for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
      throw err;
    }
    return true;
  }
}

/** Counts the request against the caller's rate limits (see RateLimitGuard). Put after the API-key auth. */
export function RateLimited(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(RateLimitGuard),
    ApiResponse({
      status: 429,
      description: 'Rate limit of the API key or team reached (Retry-After, x-ratelimit-* headers).',
    }),
  );
}
