import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ensureRequestId } from '../ids';

/**
 * The request being handled, for code that runs deep inside it and only needs the request: the
 * request's log lines (AppLogger) and the actor of the audit records (AuditContext). ONE
 * AsyncLocalStorage for all of them: every enabled store is copied into every promise and async
 * resource the request creates, so each store of its own would cost on every await.
 *
 * The store is a weak reference to the request, not the request: async resources made inside the
 * scope keep their store for as long as they live, and one of them is the keep-alive timer Node
 * arms on the socket when the response ends (`keepAliveTimeout`, 65 s in main.ts). A strong store would
 * keep each idle connection's last request — its body, response and everything attached — until
 * that connection's next request or its close. While the request is being handled the HTTP server
 * holds it, so code inside the request always finds it.
 */
const scope = new AsyncLocalStorage<WeakRef<IncomingMessage>>();

export const RequestScope = {
  /** The request whose handling this code runs in, or undefined (startup, background work, or a request already collected). */
  current(): IncomingMessage | undefined {
    return scope.getStore()?.deref();
  },
};

/**
 * The middleware that opens the request's scope. Mounted after the body is read (setupApp): a
 * stream's events run in the context that emitted them, not the request's, so a scope opened before
 * the body parser would be lost by the time the body is parsed. Gives the request its id when no
 * earlier middleware did (an app without the RequestObserver).
 */
export function bindRequestScope(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  ensureRequestId(req as IncomingMessage & { id?: unknown }, res);
  scope.run(new WeakRef(req), next);
}
