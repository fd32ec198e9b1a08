import type { IncomingMessage } from 'node:http';
import { DynamicModule, Inject, Injectable, LoggerService, Module } from '@nestjs/common';
import { destination, type Logger as PinoLogger } from 'pino';
import { pinoHttp, type HttpLogger, type Options } from 'pino-http';
import { AppConfig } from '@app/config';
import { serializeError } from './log-serializers';
import { RequestScope } from './request-scope';

/** The pino-http instance of the application: its `.logger` is the root logger (its middleware is not mounted, see LoggingModule). */
export const PINO_HTTP = Symbol('PINO_HTTP');

/** The request's logger, made from the request (RequestScope) on the first line it writes. */
const REQUEST_LOGGER = Symbol('gateway.requestLogger');

interface LoggedRequest extends IncomingMessage {
  [REQUEST_LOGGER]?: PinoLogger;
}

type PinoLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * Nest's LoggerService on pino (installed with `app.useLogger`), so every `new Logger(ctx)` line is
 * structured JSON and, inside a request, carries its request id. Same mapping as nestjs-pino's
 * `Logger`: the trailing argument is the context; an object message is merged into the line (an
 * Error goes under `err`); further arguments are pino's message and interpolation values; Nest's
 * exception handlers' `error(message, stack)` becomes an `err` with that stack.
 */
@Injectable()
export class AppLogger implements LoggerService {
  constructor(@Inject(PINO_HTTP) private readonly http: HttpLogger) {}

  /**
   * The request's logger inside a request (a child of the root logger bound to the serialized
   * request, made on the request's first line: most requests write none), the root logger outside one.
   */
  get pino(): PinoLogger {
    const req = RequestScope.current() as LoggedRequest | undefined;
    if (!req) return this.http.logger;
    return (req[REQUEST_LOGGER] ??= this.http.logger.child({ req }));
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.call('trace', message, optionalParams);
  }
  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.call('debug', message, optionalParams);
  }
  log(message: unknown, ...optionalParams: unknown[]): void {
    this.call('info', message, optionalParams);
  }
  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.call('warn', message, optionalParams);
  }
  error(message: unknown, ...optionalParams: unknown[]): void {
    this.call('error', message, optionalParams);
  }
  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.call('fatal', message, optionalParams);
  }

  private call(level: PinoLevel, message: unknown, optionalParams: unknown[]): void {
    const fields: Record<string, unknown> = {};
    let params: unknown[] = [];
    if (optionalParams.length !== 0) {
      fields.context = optionalParams[optionalParams.length - 1];
      params = optionalParams.slice(0, -1);
    }
    const log = this.pino[level].bind(this.pino) as (obj: object, ...args: unknown[]) => void;
    if (typeof message === 'object' && message !== null) {
      if (message instanceof Error) fields.err = message;
      else Object.assign(fields, message);
      log(fields, ...params);
    } else if (
      level === 'error' &&
      typeof message === 'string' &&
      params.length === 1 &&
      typeof params[0] === 'string' &&
      /\n\s*at /.test(params[0])
    ) {
      const err = new Error(message);
      err.stack = params[0];
      fields.err = err;
      log(fields);
    } else {
      log(fields, message, ...params);
    }
  }
}

/**
 * Structured JSON logs (pino, through pino-http). Every request gets an id — the caller's
 * `x-request-id` when sane, else a generated one — echoed in the `x-request-id` response header and
 * bound to every log line written while handling it (the request is kept in the RequestScope, opened
 * by `bindRequestScope` in setupApp, and its logger made on its first line, see AppLogger). Secrets,
 * bodies and SQL parameter values (see serializeError) are not logged. The one access-log line per
 * request is the RequestObserver's (libs/common/src/metrics), written through this pino-http
 * instance's root logger. pino-http's own middleware is not mounted: it built two child loggers and
 * hooked the response of every request, for lines most requests never write.
 */
@Module({})
export class LoggingModule {
  static forRoot(): DynamicModule {
    return {
      module: LoggingModule,
      global: true,
      providers: [
        {
          provide: PINO_HTTP,
          inject: [AppConfig],
          useFactory: (config: AppConfig) => pinoHttp(pinoHttpOptions(config), stdoutDestination()),
        },
        AppLogger,
      ],
      exports: [PINO_HTTP, AppLogger],
    };
  }
}

/** Lines wait in the destination's buffer until this many bytes are pending (≈ 10 access lines)… */
export const LOG_BUFFER_BYTES = 4096;
/** …or until this many milliseconds have passed. */
export const LOG_FLUSH_MS = 100;

/**
 * Asynchronous, buffered stdout: lines collect in a user-space buffer and are handed to the kernel
 * by a background write once 4 KiB are pending or every 100 ms, instead of one write per line (each
 * costs the event loop a thread-pool round trip, ≈ 20 µs a request at everyday load). pino flushes
 * what is pending synchronously when the process exits (normal exit, process.exit, an uncaught
 * exception); only a SIGKILL can lose lines, those of the last 100 ms.
 */
function stdoutDestination(): ReturnType<typeof destination> {
  return destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS });
}

/**
 * The pino / pino-http options of the service (exported so tests can check what is logged). Only the
 * logger is used, not pino-http's middleware, so its request-id key and auto-logging are not set: the
 * one access line per request is the RequestObserver's (metrics), which also sees the requests refused
 * before any Nest middleware (401 before the body, 413, 415).
 */
export function pinoHttpOptions(config: AppConfig): Options {
  return {
    level: config.logLevel,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["api-key"]', 'req.headers["x-api-key"]', 'req.headers.cookie'],
      censor: '[redacted]',
    },
    serializers: {
      // the path only: query strings may carry signed-link signatures or whatever a client put there
      req: (req: { id: unknown; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: withoutQuery(req.url),
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      err: serializeError,
    },
  };
}

function withoutQuery(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}
