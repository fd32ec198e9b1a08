import { randomUUID } from 'node:crypto';

export function newId(): string {
  return randomUUID();
}

/** Request ids: taken from the caller when they look sane, else generated. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  if (v && /^[A-Za-z0-9._:-]{1,128}$/.test(v)) return v;
  // randomUUID draws from Node's pre-generated entropy pool: much cheaper per request than randomBytes
  return `req_${randomUUID().replace(/-/g, '')}`;
}
