import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export function newId(): string {
  return randomUUID();
}

/**
 * The request's id: the one an earlier middleware gave it, or else (first to ask) the caller's
 * `x-request-id` when sane or a generated one — set on the request and echoed in the response's
 * `x-request-id` header.
 */
export function ensureRequestId(
  req: { id?: unknown; headers: IncomingHttpHeaders },
  res: { setHeader(name: string, value: string): unknown },
): string {
  if (typeof req.id === 'string' && req.id !== '') return req.id;
  const id = requestIdFrom(req.headers['x-request-id']);
  req.id = id;
  res.setHeader('x-request-id', id);
  return id;
}

/** Request ids: taken from the caller when they look sane, else generated. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  if (v && /^[A-Za-z0-9._:-]{1,128}$/.test(v)) return v;
  // randomUUID draws from Node's pre-generated entropy pool: much cheaper per request than randomBytes
  return `req_${randomUUID().replace(/-/g, '')}`;
}
