import type { Request } from 'express';
import { sessionOf } from '@app/auth';

/** Who made a change: a signed-in user, the operator token, the CLI, the system itself, or nobody yet (a failed sign-in). */
export type ActorType = 'user' | 'operator_token' | 'api_key' | 'cli' | 'system' | 'anonymous';

export interface Actor {
  type: ActorType;
  /** user id (anonymous: the e-mail tried, if any) */
  id: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** One audit record to write with the change it describes. */
export interface AuditRecord {
  actor: Actor;
  teamId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  before?: unknown;
  after?: unknown;
}

const SECRET_KEY = /pass(word)?|secret|token|api_?key|hash|credential|authorization|cookie/i;

/**
 * A copy of `value` with every secret-looking member replaced by "[redacted]": passwords, tokens,
 * API keys, hashes, integration secrets. Applied to every audit diff before it is stored.
 */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined ? '[redacted]' : redact(v);
    return out;
  }
  return value;
}

/** The actor of an HTTP request: its session's user, or the operator token. */
export function actorOf(req: Request): Actor {
  const session = sessionOf(req);
  const ua = req.headers['user-agent'];
  return {
    type: session ? 'user' : 'operator_token',
    id: session?.userId ?? null,
    ip: req.ip ?? null,
    userAgent: typeof ua === 'string' ? ua.slice(0, 500) : null,
  };
}

/** The actor of a product-API request: the signed-in user, or the API key that made it. */
export function callerActor(req: Request, caller: { userId?: string; apiKeyId: string }): Actor {
  const base = actorOf(req);
  return caller.userId
    ? { ...base, type: 'user', id: caller.userId }
    : { ...base, type: 'api_key', id: caller.apiKeyId };
}

export const CLI_ACTOR: Actor = { type: 'cli', id: null, ip: null, userAgent: null };
export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, ip: null, userAgent: null };
