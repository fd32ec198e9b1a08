import type { Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { RequestContext } from '@app/common';
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
 * Decides at a response's first write — when its route, caller and body are known — whether to
 * watch it: a model call's first byte when it streams, and its bytes when the team stores bodies
 * (`full`). A team whose settings are not cached yet (the recorder reads them for the record) is
 * captured in case it is `full`; the recorder keeps the bytes only if it is. Only POST responses
 * are looked at (every model call is one); the first write puts the response's own write and end
 * back, so every other response pays one check.
 */
export function watchModelResponse(
  req: Request & { caller?: { teamId: string } },
  res: Response,
  ctx: RequestContext,
  settings: RequestLogSettings,
  limit: number,
): void {
  if (req.method !== 'POST') return;
  const target = res as unknown as { write: WriteFn; end: EndFn };
  const write = target.write;
  const end = target.end;
  let decided = false;
  const decide = (): void => {
    if (decided) return;
    decided = true;
    target.write = write;
    target.end = end;
    const route = (req.route as { path?: unknown } | undefined)?.path;
    if (typeof route !== 'string' || !isModelRoute(req.method, route)) return;
    const stream = (req.body as { stream?: unknown } | undefined)?.stream === true;
    const teamId = req.caller?.teamId;
    const known = teamId ? settings.peek(teamId) : undefined;
    const capture = teamId !== undefined && (known === undefined || known.level === 'full');
    watchResponse(res, ctx, stream, capture ? limit : null);
  };
  target.write = function (this: Response, chunk: unknown, ...rest: unknown[]) {
    decide();
    return target.write.call(this, chunk, ...rest);
  };
  target.end = function (this: Response, chunk?: unknown, ...rest: unknown[]) {
    decide();
    return target.end.call(this, chunk, ...rest);
  };
}
