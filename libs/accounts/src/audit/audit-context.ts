import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request } from 'express';
import { RequestScope } from '@app/common';
import { sessionOf } from '@app/auth';
import { Actor, actorOf, callerActor, SYSTEM_ACTOR } from './audit';

const current = new AsyncLocalStorage<() => Actor>();

/**
 * Who the change being written is made by, for repositories that record their own changes (see
 * ChangeRecorder): the caller of the HTTP request being served, the CLI, or — outside both, e.g. a
 * background ingestion job — the system. The actor is read when the record is written, so the
 * credential resolved by the guards (an API key, a session scoped to a team) is known by then.
 */
export const AuditContext = {
  run<T>(actor: () => Actor, work: () => T): T {
    return current.run(actor, work);
  },
  actor(): Actor {
    const given = current.getStore();
    if (given) return given();
    // inside an HTTP request: its caller (the RequestScope is the pipeline's one AsyncLocalStorage)
    const req = RequestScope.current();
    return req ? requestActor(req as Request) : SYSTEM_ACTOR;
  },
};

/** The actor of an HTTP request: the session's user, the API key, the operator token, or nobody (anonymous). */
export function requestActor(req: Request): Actor {
  const caller = (req as Request & { caller?: { userId?: string; apiKeyId: string } }).caller;
  if (caller) return callerActor(req, caller);
  const actor = actorOf(req);
  if (sessionOf(req) || req.headers.authorization !== undefined) return actor;
  return { ...actor, type: 'anonymous' };
}
