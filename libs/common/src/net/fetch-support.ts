import type { Readable } from 'node:stream';
import { type ParsedHttpUrl, parseHttpUrl } from './ip-policy';
import { SafeFetchError } from './safe-fetch-error';

/** The pieces of a guarded fetch that hold no state: URL parsing, headers, content types, the capped body, errors, the deadline. */

export function noop(): void {
  /* swallow */
}

export function parseOrThrow(input: string, base?: URL): ParsedHttpUrl {
  const parsed = parseHttpUrl(input, base);
  if (!parsed.ok) throw new SafeFetchError('invalid_url', `Invalid URL: ${parsed.reason}`);
  return parsed.value;
}

export function tooLarge(maxBytes: number, url?: string): SafeFetchError {
  return new SafeFetchError('too_large', `Content exceeds the ${maxBytes}-byte limit`, { url, maxBytes });
}

export function singleHeader(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : undefined;
  return value;
}

export function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

/**
 * `accept` entries ending in `/` or `/*` match by prefix (`image/` matches `image/png`),
 * other entries must equal the media type (parameters ignored). `undefined` accepts everything.
 */
export function contentTypeAllowed(contentType: string, accept: readonly string[] | undefined): boolean {
  if (accept === undefined) return true;
  const essence = mediaType(contentType);
  return accept.some((entry) => {
    let pattern = entry.trim().toLowerCase();
    if (pattern.endsWith('/*')) pattern = pattern.slice(0, -1);
    if (pattern === '') return false;
    if (pattern === '*/') return true;
    return pattern.endsWith('/') ? essence.startsWith(pattern) && essence.length > pattern.length : essence === pattern;
  });
}

export function acceptHeader(accept: readonly string[] | undefined): string {
  if (accept === undefined || accept.length === 0) return '*/*';
  return accept
    .map((entry) => entry.trim())
    .map((entry) => (entry.endsWith('/') ? `${entry}*` : entry))
    .join(', ');
}

/** Reads at most `maxBytes`; destroys the stream (closing the socket) as soon as it is exceeded. */
export async function readCapped(body: Readable, maxBytes: number, url: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buf.length;
    if (total > maxBytes) {
      body.destroy();
      throw tooLarge(maxBytes, url);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks, total);
}

/** Maps anything thrown during a fetch onto {@link SafeFetchError}. */
export function classify(err: unknown, deadline: Deadline, maxBytes: number, url: string | undefined): SafeFetchError {
  if (err instanceof SafeFetchError) return err;
  if (deadline.expired) return deadline.error;
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return new SafeFetchError('timeout', 'Timed out fetching URL', { url, cause: err });
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return new SafeFetchError('too_large', `Content exceeds the ${maxBytes}-byte limit`, {
        url,
        maxBytes,
        cause: err,
      });
    default:
      return new SafeFetchError('network', `Could not fetch URL${code ? ` (${code})` : ''}`, { url, cause: err });
  }
}

/** One budget for the whole fetch: aborts in-flight undici work and rejects pending races. */
export class Deadline {
  expired = false;
  readonly error: SafeFetchError;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly expiry: Promise<never>;

  constructor(ms: number) {
    this.error = new SafeFetchError('timeout', `Timed out after ${ms} ms`);
    let fire: (err: SafeFetchError) => void = noop;
    this.expiry = new Promise<never>((_, reject) => {
      fire = reject;
    });
    this.expiry.catch(noop);
    this.timer = setTimeout(() => {
      this.expired = true;
      fire(this.error);
      this.controller.abort(this.error);
    }, ms);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.expiry]);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
