import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The HTTP exchange a piece of work runs for, available to code that does not receive the request
 * (BillingService.meter sets rate-limit headers and reads the authenticated caller through it).
 * Installed first by setupApp; work started outside a request (background workers) has none.
 */
export interface RequestContextStore {
  readonly req: IncomingMessage & { caller?: unknown };
  readonly res: ServerResponse;
  /** per-request flags of the modules that use the context (e.g. "this request was counted") */
  readonly flags: Set<string>;
}

const storage = new AsyncLocalStorage<RequestContextStore>();

export const RequestContext = {
  current(): RequestContextStore | undefined {
    return storage.getStore();
  },
  /** Runs `fn` with the context (tests and non-Express callers). */
  run<T>(store: RequestContextStore, fn: () => T): T {
    return storage.run(store, fn);
  },
  /** Express middleware: everything after it (guards, handlers, services) sees the context. */
  middleware() {
    return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
      storage.run({ req, res, flags: new Set() }, next);
    };
  },
  /** Sets response headers unless they were already sent (a stream that started). */
  setHeaders(headers: Record<string, string>): void {
    const res = storage.getStore()?.res;
    if (!res || res.headersSent) return;
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  },
};
