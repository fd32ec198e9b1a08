import { randomBytes, randomUUID } from 'node:crypto';

export function newId(): string {
  return randomUUID();
}

/** Request ids: taken from the caller when they look sane, else generated. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  if (v && /^[A-Za-z0-9._:-]{1,128}$/.test(v)) return v;
  return `req_${randomBytes(12).toString('hex')}`;
}
