import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError } from './api-error';
import { errorResponseFor } from './anthropic-error';
import { toApiError } from './error-mapping';
import { requestContextOf } from '../metrics/request-context';

interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): unknown;
}

/** Methods the router serves on this path (a known path asked with another method → 405 + Allow). */
function allowedMethods(req: Request): string[] {
  const app = req.app as unknown as { router?: { stack: RouteLayer[] }; _router?: { stack: RouteLayer[] } } | undefined;
  const stack = app?.router?.stack ?? app?._router?.stack ?? [];
  const methods = new Set<string>();
  for (const layer of stack) {
    // routes registered for every method (a catch-all) say nothing about this path
    if (!layer.route || layer.route.methods._all || Object.keys(layer.route.methods).length > 8) continue;
    try {
      if (layer.match(req.path))
        for (const m of Object.keys(layer.route.methods)) if (m !== '_all') methods.add(m.toUpperCase());
    } catch {
      /* an odd path: not ours */
    }
  }
  methods.delete(req.method);
  return [...methods].sort();
}

/**
 * An error as it may be logged: database errors lose their SQL parameters (key hashes, names,
 * prompts may be among them) and driver payloads; everything else is logged as is.
 */
export function logSafeError(err: unknown): unknown {
  if (typeof err !== 'object' || err === null) return err;
  const e = err as {
    name?: string;
    message?: string;
    stack?: string;
    code?: unknown;
    parameters?: unknown;
    driverError?: unknown;
    query?: unknown;
  };
  if (e.parameters === undefined && e.driverError === undefined) return err;
  const driver = e.driverError as { code?: unknown; message?: string } | undefined;
  return {
    type: e.name,
    message: e.message,
    code: e.code ?? driver?.code,
    query: typeof e.query === 'string' ? e.query.slice(0, 500) : undefined,
    stack: e.stack,
  };
}

/**
 * The single global filter: every error leaves the service as {"error":{message,type,code,param}}
 * (on the Anthropic-compatible `/v1/messages` paths: {"type":"error","error":{type,message}}).
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    let { error, unexpected } = toApiError(exception);
    if (
      error.status === 404 &&
      error.message.startsWith('Unknown route:') &&
      req &&
      (exception as { methodHint?: boolean }).methodHint !== false
    ) {
      const allow = allowedMethods(req);
      if (allow.length > 0) {
        error = new ApiError(
          405,
          'invalid_request_error',
          `Method ${req.method} is not allowed on ${req.path}; allowed: ${allow.join(', ')}.`,
          'method_not_allowed',
          null,
          { Allow: allow.join(', ') },
        );
        unexpected = false;
      }
    }
    if (unexpected) {
      this.logger.error(
        { err: logSafeError(exception), requestId: req?.id, path: req?.originalUrl },
        'unhandled error',
      );
    } else if (error.logDetail) {
      this.logger.warn(
        { requestId: req?.id, path: req?.originalUrl, status: error.status, detail: error.logDetail },
        error.message,
      );
    }
    const observed = requestContextOf(res);
    if (observed) observed.errorCode = error.code ?? error.type;
    if (res.headersSent) {
      // A stream already started: the stream writer is responsible for in-band errors; just end it.
      if (!res.writableEnded) res.end();
      return;
    }
    for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
    // the Anthropic-compatible paths answer in Anthropic's error shape
    const { status, body } = errorResponseFor(req?.path, error, req?.id === undefined ? undefined : String(req.id));
    res.status(status).json(body);
  }
}
