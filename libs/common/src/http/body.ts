import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import bodyParser from 'body-parser';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError, errorBody } from '../errors/api-error';

/** Routes whose bodies may be large (images in chat, documents to rerank or embed, texts to index). */
const LARGE_BODY_ROUTES = [
  /^\/api\/v1\/chat$/,
  /^\/v1\/chat\/completions$/,
  /^\/v1\/responses$/,
  /^\/v1\/messages(\/count_tokens)?$/,
  /^\/(api\/)?v1\/embeddings$/,
  /^\/api\/v1\/rerank$/,
  /^\/v[12]\/rerank$/,
  /^\/(api\/)?v1\/images\/generations$/,
  /^\/api\/v1\/knowledge-bases\/[^/]+\/documents$/,
  /^\/api\/v1\/projects(\/|$)/,
];

/** Project webhook deliveries (`POST /api/v1/hooks/{integration_id}`): raw bytes, ≤ 256 KB per event. */
const WEBHOOK_ROUTE = /^\/api\/v1\/hooks\/[^/]+$/;
export const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

/** Every other body (admin, knowledge-base CRUD and search, files metadata, cache endpoints). */
export const SMALL_BODY_LIMIT_BYTES = 64 * 1024;

/** Deepest JSON nesting accepted; deeper bodies are refused before validation could recurse into them. */
export const MAX_JSON_DEPTH = 64;

/**
 * JSON bodies with a limit per route: `largeLimitBytes` (BODY_LIMIT_MB) for the routes above,
 * 64 KiB elsewhere. Runs after the auth gate, so only authenticated requests are read.
 */
export function jsonBodyParsers(largeLimitBytes: number): RequestHandler {
  const large = bodyParser.json({ limit: largeLimitBytes });
  const small = bodyParser.json({ limit: SMALL_BODY_LIMIT_BYTES });
  // webhook deliveries are verified over their exact bytes: kept raw (a Buffer), any content type
  const hook = bodyParser.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT_BYTES });
  return (req, res, next) => {
    if (WEBHOOK_ROUTE.test(req.path)) return hook(req, res, next);
    // a body that is neither JSON nor a multipart upload would be silently ignored: refuse it instead
    if (hasBody(req) && !req.is(['application/json', 'application/*+json', 'multipart/form-data'])) {
      return next(
        new ApiError(
          415,
          'invalid_request_error',
          `Unsupported content type "${req.headers['content-type'] ?? '(none)'}": send the body as JSON with "content-type: application/json" (file uploads: multipart/form-data).`,
          'unsupported_media_type',
        ),
      );
    }
    return (LARGE_BODY_ROUTES.some((p) => p.test(req.path)) ? large : small)(req, res, next);
  };
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Hostile input refused with 400 before any handler: JSON nested deeper than MAX_JSON_DEPTH
 * (validation would overflow the stack), NUL characters in any body string, query value or path
 * (Postgres text cannot hold them). The walk is iterative.
 */
export function rejectHostileInput(req: Request, _res: Response, next: NextFunction): void {
  // eslint-disable-next-line no-control-regex -- a NUL in the URL is exactly what is refused
  if (/%00|\u0000/.test(req.originalUrl))
    return next(ApiError.badRequest('The URL contains a NUL (\\u0000) character.', null, 'invalid_characters'));
  const problem = inspect(req.body, 'body') ?? inspect(req.query, 'query');
  next(problem ?? undefined);
}

function inspect(root: unknown, where: 'body' | 'query'): ApiError | null {
  if (Buffer.isBuffer(root)) return null; // raw bodies (webhooks) are checked by their handler
  if (root === null || typeof root !== 'object')
    return typeof root === 'string' && root.includes('\u0000') ? nul(where === 'body' ? null : where) : null;
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: root, depth: 1, path: '' }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return nul(path || null);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_JSON_DEPTH)
      return ApiError.badRequest(`The JSON ${where} nests deeper than ${MAX_JSON_DEPTH} levels.`, null, 'invalid_json');
    if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, depth: depth + 1, path: `${path}[${i}]` }));
    else
      for (const [k, x] of Object.entries(v)) {
        if (k.includes('\u0000')) return nul(path || null);
        stack.push({ v: x, depth: depth + 1, path: path ? `${path}.${k}` : k });
      }
  }
  return null;
}

function nul(param: string | null): ApiError {
  return ApiError.badRequest(
    `${param ?? 'The request'} contains a NUL (\\u0000) character, which is not accepted.`,
    param,
    'invalid_characters',
  );
}

/**
 * Node answers malformed requests itself (e.g. headers over 16 KB → a bare 431): answer them in the
 * error shape instead — 431 for oversized headers, 400 for the rest — and close the connection.
 */
export function answerClientErrorsAsJson(server: Server): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const e = tooLarge
      ? new ApiError(
          431,
          'invalid_request_error',
          'Request header fields too large (the limit is 16 KB in total).',
          'headers_too_large',
        )
      : ApiError.badRequest('Malformed HTTP request.', null, 'bad_request');
    const body = JSON.stringify(errorBody(e));
    socket.end(
      `HTTP/1.1 ${e.status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
