import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import type { DestinationStream } from 'pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppConfig } from '@app/config';
import { requestIdFrom } from '../ids';
import { serializeError } from './log-serializers';

/**
 * Where the logs go: null = stdout. Tests replace it (`overrideProvider(LOG_DESTINATION)`) with a
 * stream to read what the service logs.
 */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

/**
 * Structured JSON logs (pino). Every request gets an id — the caller's `x-request-id` when sane,
 * else a generated one — echoed in the `x-request-id` response header and bound to every log line
 * written while handling it (nestjs-pino keeps it in AsyncLocalStorage). Secrets, bodies and SQL
 * parameter values (see serializeError) are not logged. The one access-log line per request is
 * written by the RequestObserver (metrics), not by pino-http's auto-logging.
 */
@Module({})
export class LoggingModule {
  static forRoot(): DynamicModule {
    return {
      module: LoggingModule,
      global: true,
      providers: [{ provide: LOG_DESTINATION, useValue: null }],
      exports: [LOG_DESTINATION],
      imports: [
        LoggerModule.forRootAsync({
          inject: [AppConfig, LOG_DESTINATION],
          useFactory: (config: AppConfig, destination: DestinationStream | null) => ({ pinoHttp: destination ? [pinoHttpOptions(config), destination] : pinoHttpOptions(config) }),
        }),
      ],
    };
  }
}

/** The pino / pino-http options of the service (exported so tests can check what is logged). */
export function pinoHttpOptions(config: AppConfig): Options {
  return {
    level: config.logLevel,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const id = requestIdFrom(req.headers['x-request-id']);
      res.setHeader('x-request-id', id);
      return id;
    },
    customAttributeKeys: { reqId: 'request_id' },
    redact: { paths: ['req.headers.authorization', 'req.headers["api-key"]', 'req.headers["x-api-key"]', 'req.headers.cookie'], censor: '[redacted]' },
    serializers: {
      // the path only: query strings may carry signed-link signatures or whatever a client put there
      req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: withoutQuery(req.url) }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      err: serializeError,
    },
    // one access line per request, written by the RequestObserver (it sees requests refused before routing too)
    autoLogging: false,
  };
}

function withoutQuery(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}
