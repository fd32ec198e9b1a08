import { Inject, Injectable, Optional } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { HttpLogger } from 'pino-http';
import { PINO_HTTP } from '../http/logging.module';
import { ensureRequestId } from '../ids';
import { microToRub } from '../money/money';
import { MetricsService } from './metrics.service';
import { attachRequestContext, RequestContext, requestContextOf, RequestContexts } from './request-context';

/** Paths polled by machines: counted in the metrics, not written to the access log. */
const QUIET_PATHS = new Set(['/health', '/ready', '/metrics']);
/** Upstream trouble is expected operation (warn); any other 5xx is a fault of the gateway (error). */
const UPSTREAM_STATUSES = new Set([502, 503, 504]);

interface ObservedRequest extends Request {
  caller?: { teamId: string; keyPrefix: string };
}

/**
 * Told about every request when it ends (after the metrics), with its route template: the request
 * log keeps the model calls. It must return at once (no I/O on the request's path).
 */
export interface RequestRecorder {
  /** Told about every request as it starts (before its route, caller and body are known); returns at once. */
  watch?(req: Request, res: Response, ctx: RequestContext): void;
  record(req: Request, res: Response, ctx: RequestContext, route: string | null, totalMs: number): void;
}

interface RouteLayer {
  route?: { path?: unknown; methods: Record<string, boolean> };
  match(path: string): unknown;
}

/**
 * The first middleware of the app: gives the request its id (the caller's `x-request-id` when sane),
 * opens its RequestContext and, when the response is finished (or the client went away), records the
 * HTTP metrics and writes the ONE access-log line of the request:
 *   request_id, method, endpoint (route template), path, status, team_id, key_prefix, model,
 *   prompt_tokens, completion_tokens, cost_rub, upstream_ms, total_ms (+ error_code, aborted)
 * No headers, no query string, no body: keys, prompts and completions never reach it. Requests refused
 * before routing (401 before the body, 413, hostile input) are logged and counted like any other.
 */
const OBSERVER = Symbol('gateway.requestObserver');

/** One listener function for all requests ('finish' and 'close'): the response is `this`. */
function onEnd(this: Response & { [OBSERVER]?: RequestObserver }): void {
  this[OBSERVER]?.end(this);
}

/** Response header: the gateway's own time (ms) up to the moment the headers were sent. */
export const OVERHEAD_HEADER = 'x-gateway-overhead-ms';

const writeHead = ServerResponse.prototype.writeHead;

/**
 * The response's writeHead (every answer goes through it, implicit headers included): sets
 * `x-gateway-overhead-ms` — time since arrival minus the upstream runs — as the headers leave. For a
 * whole answer that is everything but the upstream call(s); for a stream, whose headers leave while
 * the upstream still runs, it is the part before the upstream call.
 */
function writeHeadWithOverhead(this: ServerResponse, ...args: unknown[]): ServerResponse {
  const ctx = requestContextOf(this);
  if (ctx && !this.headersSent) {
    const ms = ctx.overheadAt(performance.now());
    ctx.overheadMs = ms;
    this.setHeader(OVERHEAD_HEADER, ms.toFixed(2));
  }
  return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
}

@Injectable()
export class RequestObserver {
  private recorder: RequestRecorder | null = null;

  constructor(
    private readonly metrics: MetricsService,
    private readonly contexts: RequestContexts,
    /** the service's pino-http instance (LoggingModule); without it, metrics only */
    @Optional() @Inject(PINO_HTTP) private readonly http?: HttpLogger,
  ) {}

  /** The request log registers itself here when its module starts. */
  useRecorder(recorder: RequestRecorder | null): void {
    this.recorder = recorder;
  }

  middleware(): (req: Request, res: Response, next: NextFunction) => void {
    return (req: ObservedRequest, res: Response, next: NextFunction): void => {
      const id = ensureRequestId(req, res); // the first middleware: it gives the request its id
      const ctx = new RequestContext(id, performance.now(), res);
      attachRequestContext(res, ctx);
      (res as Response & { [OBSERVER]?: RequestObserver })[OBSERVER] = this;
      this.contexts.register(ctx);
      res.on('finish', onEnd);
      res.on('close', onEnd);
      res.writeHead = writeHeadWithOverhead as Response['writeHead'];
      this.recorder?.watch?.(req, res, ctx);
      next();
    };
  }

  /** The response finished, or the connection closed first (client gone): observed once. */
  end(res: Response): void {
    const ctx = requestContextOf(res);
    if (!ctx) return;
    res.removeListener('finish', onEnd);
    res.removeListener('close', onEnd);
    const totalMs = performance.now() - ctx.startedAt;
    this.contexts.unregister(ctx);
    // the client left while metered work runs (a stream being cut is charged after the abort):
    // observed once that work has charged, so the record and the log line carry what was charged
    const working = ctx.whenIdle();
    if (working) void working.then(() => this.observe(res, ctx, totalMs));
    else this.observe(res, ctx, totalMs);
  }

  private observe(res: Response, ctx: RequestContext, totalMs: number): void {
    const req = res.req as ObservedRequest;
    const route = routeTemplateOf(req);
    const status = res.statusCode;
    this.metrics.httpRequest({
      method: req.method,
      route: route ?? 'unmatched',
      status,
      totalSeconds: totalMs / 1000,
      upstreamSeconds: ctx.upstreamMs / 1000,
      hadUpstream: ctx.upstreamCalls > 0,
      overheadSeconds: ctx.overheadMs === null ? null : ctx.overheadMs / 1000,
    });
    this.recorder?.record(req, res, ctx, route, totalMs);
    if (QUIET_PATHS.has(req.path)) return;
    const log = this.http?.logger;
    const level = status >= 500 ? (UPSTREAM_STATUSES.has(status) ? 'warn' : 'error') : 'info';
    if (!log?.isLevelEnabled(level)) return;
    log[level](
      {
        request_id: ctx.requestId,
        method: req.method,
        endpoint: route,
        path: req.path,
        status,
        team_id: req.caller?.teamId ?? null,
        key_prefix: req.caller?.keyPrefix ?? null,
        model: ctx.model,
        prompt_tokens: ctx.promptTokens,
        completion_tokens: ctx.completionTokens,
        cost_rub: microToRub(ctx.costMicro),
        upstream_ms: round1(ctx.upstreamMs),
        total_ms: round1(totalMs),
        ...(ctx.errorCode !== null ? { error_code: ctx.errorCode } : {}),
        ...(res.writableFinished ? {} : { aborted: true }),
      },
      'request completed',
    );
  }
}

function round1(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/**
 * The route template that served the request (`/v1/files/:id`), never the raw path. Requests refused
 * before routing (401 before the body, 413) are matched against the router's routes; none → null.
 */
export function routeTemplateOf(req: Request): string | null {
  const routed = (req as { route?: { path?: unknown } }).route?.path;
  // Nest's catch-all (404 / 405 answers) is a route too: not a template of ours
  if (typeof routed === 'string' && !routed.includes('*')) return routed;
  const app = req.app as unknown as { router?: { stack: RouteLayer[] }; _router?: { stack: RouteLayer[] } } | undefined;
  const stack = app?.router?.stack ?? app?._router?.stack ?? [];
  const method = req.method.toLowerCase();
  for (const layer of stack) {
    const r = layer.route;
    if (!r || typeof r.path !== 'string' || r.path.includes('*') || r.methods._all) continue;
    if (!(r.methods[method] || (method === 'head' && r.methods.get))) continue;
    try {
      if (layer.match(req.path)) return r.path;
    } catch {
      /* an odd path: not this route */
    }
  }
  return null;
}
