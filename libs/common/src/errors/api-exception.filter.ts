import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { errorBody } from './api-error';
import { toApiError } from './error-mapping';

/** The single global filter: every error leaves the service as {"error":{message,type,code,param}}. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    const { error, unexpected } = toApiError(exception);
    if (unexpected) {
      this.logger.error({ err: exception, requestId: req?.id, path: req?.originalUrl }, 'unhandled error');
    }
    if (res.headersSent) {
      // A stream already started: the stream writer is responsible for in-band errors; just end it.
      if (!res.writableEnded) res.end();
      return;
    }
    for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
    res.status(error.status).json(errorBody(error));
  }
}
