import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { from, Observable, switchMap } from 'rxjs';
import { RequestContext, requestContextOf } from '@app/common';
import { AppConfig } from '@app/config';
import { isModelRoute } from './model-routes';
import { RequestLogSettings } from './request-log.settings';

/** What was written of one response (kept only when its team stores bodies). */
export interface CapturedResponse {
  chunks: Buffer[];
  bytes: number;
  truncated: boolean;
}

const CAPTURES = new WeakMap<object, CapturedResponse>();

/** The response bytes captured for the request log (only for teams at level `full`). */
export function capturedResponse(res: object): CapturedResponse | undefined {
  return CAPTURES.get(res);
}

type WriteFn = (chunk: unknown, ...rest: unknown[]) => boolean;
type EndFn = (chunk?: unknown, ...rest: unknown[]) => Response;

function toBuffer(chunk: unknown, encoding: unknown): Buffer | null {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return null;
}

/**
 * Watches what a model-call response writes: the time of its first byte when it streams (ttft),
 * and, when `capture` is set, its bytes up to `limit` (the stored body is redacted and cut later).
 */
export function watchResponse(res: Response, ctx: RequestContext, stream: boolean, capture: number | null): void {
  if (!stream && capture === null) return;
  const captured: CapturedResponse | null = capture === null ? null : { chunks: [], bytes: 0, truncated: false };
  if (captured) CAPTURES.set(res, captured);
  const keep = (chunk: unknown, encoding: unknown): void => {
    if (stream && ctx.ttftMs === null) ctx.ttftMs = Math.round(performance.now() - ctx.startedAt);
    if (!captured || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    if (captured.bytes >= capture!) {
      captured.truncated = true;
      return;
    }
    const buf = toBuffer(chunk, encoding);
    if (!buf) return;
    const room = capture! - captured.bytes;
    const part = buf.length > room ? Buffer.from(buf.subarray(0, room)) : Buffer.from(buf);
    if (buf.length > room) captured.truncated = true;
    captured.chunks.push(part);
    captured.bytes += part.length;
  };
  const write = res.write as unknown as WriteFn;
  const end = res.end as unknown as EndFn;
  (res as unknown as { write: WriteFn }).write = function (this: Response, chunk: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return write.call(this, chunk, ...rest);
  };
  (res as unknown as { end: EndFn }).end = function (this: Response, chunk?: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return end.call(this, chunk, ...rest);
  };
}

/**
 * Runs after the guards of a model-call route (the caller is known): reads the team's request-log
 * level (cached) and starts watching the response — its first byte when streamed, its bytes when the
 * team stores bodies. Every other route passes through untouched.
 */
@Injectable()
export class ResponseCaptureInterceptor implements NestInterceptor {
  constructor(
    private readonly settings: RequestLogSettings,
    private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http' || !this.config.requestLog.enabled) return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { caller?: { teamId: string } }>();
    const route = (req.route as { path?: unknown } | undefined)?.path;
    if (typeof route !== 'string' || !isModelRoute(req.method, route)) return next.handle();
    const res = http.getResponse<Response>();
    const ctx = requestContextOf(res);
    if (!ctx) return next.handle();
    const stream = (req.body as { stream?: unknown } | undefined)?.stream === true;
    const teamId = req.caller?.teamId;
    const limit = this.config.requestLog.bodyMaxBytes * 8;
    const known = teamId ? this.settings.peek(teamId) : undefined;
    if (!teamId || known) {
      watchResponse(res, ctx, stream, known?.level === 'full' ? limit : null);
      return next.handle();
    }
    return from(this.settings.get(teamId)).pipe(
      switchMap((s) => {
        watchResponse(res, ctx, stream, s.level === 'full' ? limit : null);
        return next.handle();
      }),
    );
  }
}
