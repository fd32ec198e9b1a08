import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppConfig } from '@app/config';
import { requestIdFrom } from '../ids';
import { serializeError } from './log-serializers';

/**
 * Structured JSON logs (pino). Every request gets an id — the caller's `x-request-id` when sane,
 * else a generated one — echoed in the `x-request-id` response header and bound to every log line
 * written while handling it (nestjs-pino keeps it in AsyncLocalStorage). Secrets, bodies and SQL
 * parameter values (see serializeError) are not logged.
 */
@Module({})
export class LoggingModule {
  static forRoot(): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({ pinoHttp: pinoHttpOptions(config) }),
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
      req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      err: serializeError,
    },
    autoLogging: { ignore: (req: IncomingMessage) => req.url === '/health' || req.url === '/ready' },
  };
}
