import { lookup as systemLookup } from 'node:dns/promises';
import type { Readable } from 'node:stream';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Provider } from '@nestjs/common';
import { Agent, buildConnector } from 'undici';
import {
  type ParsedHttpUrl,
  ipVersion,
  isForbiddenAddress,
  isForbiddenHostname,
  normalizeHostname,
  parseHttpUrl,
} from './ip-policy';
import { SafeFetchError } from './safe-fetch-error';

export { SafeFetchError, isSafeFetchError, safeFetchErrorToApiError } from './safe-fetch-error';
export type { SafeFetchErrorCode, SafeFetchErrorDetails } from './safe-fetch-error';

/** DI token for {@link SafeFetcherOptions}. Optional: without it the product defaults apply. */
export const SAFE_FETCHER_OPTIONS = Symbol('SAFE_FETCHER_OPTIONS');

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a hostname to ALL its addresses. Default: `dns.promises.lookup(host, { all: true })`. */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface SafeFetcherOptions {
  /** Override DNS resolution (tests). Default: the system resolver. */
  resolver?: HostResolver;
  /**
   * Exceptions to the address policy (tests, e.g. `ip => ip === '127.0.0.1'`). Default: none.
   * Cloud-metadata addresses and non-IP strings are refused regardless.
   */
  allowAddress?: (ip: string) => boolean;
  /** Redirects followed per fetch; the next one is refused. Default 3. */
  maxRedirects?: number;
  /** Total time budget per fetch when the call does not pass `timeoutMs`. Default 10 000 ms. */
  defaultTimeoutMs?: number;
  /** User-Agent sent upstream. */
  userAgent?: string;
}

export interface SafeFetchOptions {
  /** Hard cap on the body size in bytes; enforced while streaming. */
  maxBytes: number;
  /** Total budget for DNS + connect + all redirects + body. Default: `defaultTimeoutMs`. */
  timeoutMs?: number;
  /**
   * Allowed content types. An entry ending in `/` (or `/*`) is a prefix (`'image/'`), otherwise
   * the media type must match exactly (`'application/pdf'`). Omitted: any type. Empty: none.
   */
  accept?: readonly string[];
  /**
   * Request method, extra headers and body of the FIRST hop (scheduled API integrations). A redirect
   * is followed with a plain GET without them, so credentials never travel to the redirect target.
   */
  method?: 'GET' | 'POST';
  headers?: Readonly<Record<string, string>>;
  body?: string | Buffer;
}

export interface SafeFetchResult {
  bytes: Buffer;
  /** Content-Type as received (parameters kept), or the data: URL's media type. */
  contentType: string;
  /** URL after redirects (the input itself for data: URLs). */
  finalUrl: string;
}

const DEFAULT_MAX_REDIRECTS = 3;
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 2_147_483_647;
const DEFAULT_USER_AGENT = 'model-gateway-fetcher/1.0';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

const defaultResolver: HostResolver = async (hostname) => {
  const results = await systemLookup(hostname, { all: true });
  return results.map((r) => ({ address: r.address, family: r.family }));
};

const denyAll = (): boolean => false;

/**
 * Fetches user-supplied URLs (and decodes data: URLs) with SSRF protection:
 *
 *  - http/https only, no userinfo, GET only, no cookies/credentials forwarded;
 *  - the hostname is resolved up front and EVERY returned address must pass the policy
 *    ({@link isForbiddenAddress}); the connection is then pinned to those vetted addresses through a
 *    custom undici connector (the socket is opened to the IP literal, TLS SNI/certificate check
 *    still use the hostname), so a second DNS answer can never be used (no rebinding TOCTOU);
 *  - every redirect hop goes through the same checks before any connection; at most
 *    `maxRedirects` (3) are followed;
 *  - the body is capped while streaming (plus an early refusal on an oversize Content-Length);
 *  - one deadline covers resolution, connection, redirects and body.
 */
@Injectable()
export class SafeFetcher {
  private readonly resolver: HostResolver;
  private readonly allowAddress: (ip: string) => boolean;
  private readonly maxRedirects: number;
  private readonly defaultTimeoutMs: number;
  private readonly userAgent: string;

  constructor(@Optional() @Inject(SAFE_FETCHER_OPTIONS) options?: SafeFetcherOptions | null) {
    const o = options ?? {};
    this.resolver = o.resolver ?? defaultResolver;
    this.allowAddress = o.allowAddress ?? denyAll;
    this.maxRedirects = o.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    this.defaultTimeoutMs = o.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.userAgent = o.userAgent ?? DEFAULT_USER_AGENT;
    if (!Number.isInteger(this.maxRedirects) || this.maxRedirects < 0) {
      throw new RangeError('SafeFetcher: maxRedirects must be a non-negative integer');
    }
    assertTimeout(this.defaultTimeoutMs);
  }

  /** Factory for use outside Nest DI. */
  static create(options: SafeFetcherOptions = {}): SafeFetcher {
    return new SafeFetcher(options);
  }

  async fetch(url: string, opts: SafeFetchOptions): Promise<SafeFetchResult> {
    const { maxBytes, accept } = opts;
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
      throw new RangeError('SafeFetcher: maxBytes must be a positive integer');
    }
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    assertTimeout(timeoutMs);
    if (typeof url !== 'string') throw new SafeFetchError('invalid_url', 'URL must be a string');

    if (/^data:/i.test(trimC0(url))) return decodeDataUrl(url, maxBytes, accept);

    const deadline = new Deadline(timeoutMs);
    // Hostname -> vetted addresses. The connector below refuses any host not in here.
    const pins = new Map<string, readonly string[]>();
    const agent = new Agent({
      connect: pinnedConnector(pins, timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      maxResponseSize: maxBytes,
    });

    let hopUrl: string | undefined;
    try {
      let current = parseOrThrow(url);
      for (let redirects = 0; ;) {
        hopUrl = current.url.href;
        const addresses = await deadline.race(this.vet(current));
        pins.set(current.hostname, addresses);

        const first = redirects === 0;
        const response = await deadline.race(
          agent.request({
            origin: current.url.origin,
            path: current.url.pathname + current.url.search,
            method: first ? (opts.method ?? 'GET') : 'GET',
            headers: {
              ...(first ? opts.headers : undefined),
              accept: acceptHeader(accept),
              'accept-encoding': 'identity',
              'user-agent': this.userAgent,
            },
            ...(first && opts.body !== undefined ? { body: opts.body } : {}),
            signal: deadline.signal,
          }),
        );
        const { statusCode, headers, body } = response;
        // Destroying an unread undici body emits an error; never let that become an uncaught one.
        body.on('error', noop);

        if (REDIRECT_STATUSES.has(statusCode)) {
          body.destroy();
          const location = singleHeader(headers.location);
          if (location === undefined || location === '') {
            throw new SafeFetchError('http_error', `Redirect (${statusCode}) without a Location header`, {
              url: hopUrl,
              status: statusCode,
            });
          }
          if (redirects >= this.maxRedirects) {
            throw new SafeFetchError('too_many_redirects', `More than ${this.maxRedirects} redirects`, { url: hopUrl });
          }
          redirects++;
          current = parseOrThrow(location, current.url);
          continue;
        }

        if (statusCode < 200 || statusCode > 299 || statusCode === 204 || statusCode === 205 || statusCode === 206) {
          body.destroy();
          throw new SafeFetchError('http_error', `Upstream responded with HTTP ${statusCode}`, {
            url: hopUrl,
            status: statusCode,
          });
        }

        const contentType = singleHeader(headers['content-type'])?.trim() || DEFAULT_CONTENT_TYPE;
        if (!contentTypeAllowed(contentType, accept)) {
          body.destroy();
          throw new SafeFetchError('unsupported_type', `Content type ${mediaType(contentType)} is not accepted`, {
            url: hopUrl,
            contentType,
          });
        }
        const encoding = singleHeader(headers['content-encoding'])?.trim().toLowerCase();
        if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
          body.destroy();
          throw new SafeFetchError('unsupported_type', `Content encoding ${encoding} is not supported`, {
            url: hopUrl,
            contentType,
          });
        }
        const declared = singleHeader(headers['content-length']);
        if (declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared.trim()) > maxBytes) {
          body.destroy();
          throw tooLarge(maxBytes, hopUrl);
        }

        const bytes = await deadline.race(readCapped(body, maxBytes, hopUrl));
        return { bytes, contentType, finalUrl: hopUrl };
      }
    } catch (err) {
      throw classify(err, deadline, maxBytes, hopUrl);
    } finally {
      deadline.clear();
      agent.destroy().catch(noop);
    }
  }

  /**
   * The address policy without fetching, for URLs another party will fetch (a provider given an
   * image URL): http(s) only, no credentials, and the hostname resolved — every address must pass.
   * Throws SafeFetchError ('invalid_url' | 'forbidden_address' | 'network').
   */
  async assertPublicUrl(url: string): Promise<void> {
    if (typeof url !== 'string') throw new SafeFetchError('invalid_url', 'URL must be a string');
    await this.vet(parseOrThrow(url));
  }

  /**
   * The address policy for a URL this process will connect to itself over a protocol that streams
   * (MCP servers): the vetted addresses to pin the connection to (see {@link pinnedConnector}).
   * Throws SafeFetchError ('invalid_url' | 'forbidden_address' | 'network').
   */
  async vetUrl(url: string): Promise<{ hostname: string; addresses: readonly string[] }> {
    if (typeof url !== 'string') throw new SafeFetchError('invalid_url', 'URL must be a string');
    const target = parseOrThrow(url);
    return { hostname: target.hostname, addresses: await this.vet(target) };
  }

  /** Applies hostname and address policy; returns the vetted addresses to pin the connection to. */
  private async vet(target: ParsedHttpUrl): Promise<readonly string[]> {
    const url = target.url.href;
    const hostVerdict = isForbiddenHostname(target.hostname);
    if (hostVerdict.forbidden) {
      throw new SafeFetchError('forbidden_address', `Host is not allowed (${hostVerdict.reason ?? 'forbidden'})`, {
        url,
        reason: hostVerdict.reason,
      });
    }
    if (target.ipVersion !== 0) {
      this.assertAddressAllowed(target.hostname, url);
      return [target.hostname];
    }

    let resolved: readonly ResolvedAddress[];
    try {
      resolved = await this.resolver(target.hostname);
    } catch (cause) {
      throw new SafeFetchError('network', 'Could not resolve host', { url, cause });
    }
    if (!Array.isArray(resolved) || resolved.length === 0) {
      throw new SafeFetchError('network', 'Host did not resolve to any address', { url });
    }
    const addresses: string[] = [];
    // Every answer must pass: refusing only the bad ones would let an attacker mix answers.
    for (const entry of resolved) {
      const address = typeof entry?.address === 'string' ? entry.address : '';
      this.assertAddressAllowed(address, url);
      if (!addresses.includes(address)) addresses.push(address);
    }
    return addresses;
  }

  private assertAddressAllowed(address: string, url: string): void {
    const verdict = isForbiddenAddress(address);
    if (!verdict.forbidden) return;
    const reason = verdict.reason ?? 'forbidden';
    const overridable = ipVersion(address) !== 0 && !reason.includes('cloud metadata');
    if (overridable && this.allowAddress(address)) return;
    throw new SafeFetchError('forbidden_address', `URL points to a forbidden address (${reason})`, {
      url,
      reason,
      address,
    });
  }
}

/** Nest providers for modules that want the fetcher with explicit options. */
export function safeFetcherProviders(options: SafeFetcherOptions = {}): Provider[] {
  return [{ provide: SAFE_FETCHER_OPTIONS, useValue: options }, SafeFetcher];
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function noop(): void {
  /* swallow */
}

function assertTimeout(ms: number): void {
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMEOUT_MS) {
    throw new RangeError('SafeFetcher: timeout must be a positive number of milliseconds');
  }
}

function parseOrThrow(input: string, base?: URL): ParsedHttpUrl {
  const parsed = parseHttpUrl(input, base);
  if (!parsed.ok) throw new SafeFetchError('invalid_url', `Invalid URL: ${parsed.reason}`);
  return parsed.value;
}

function tooLarge(maxBytes: number, url?: string): SafeFetchError {
  return new SafeFetchError('too_large', `Content exceeds the ${maxBytes}-byte limit`, { url, maxBytes });
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : undefined;
  return value;
}

function mediaType(contentType: string): string {
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

function acceptHeader(accept: readonly string[] | undefined): string {
  if (accept === undefined || accept.length === 0) return '*/*';
  return accept
    .map((entry) => entry.trim())
    .map((entry) => (entry.endsWith('/') ? `${entry}*` : entry))
    .join(', ');
}

/** Reads at most `maxBytes`; destroys the stream (closing the socket) as soon as it is exceeded. */
async function readCapped(body: Readable, maxBytes: number, url: string): Promise<Buffer> {
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
function classify(err: unknown, deadline: Deadline, maxBytes: number, url: string | undefined): SafeFetchError {
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
class Deadline {
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

type ConnectArgs = Parameters<buildConnector.Callback>;

/**
 * undici connector that never resolves names itself: it connects to the vetted addresses for the
 * request's host (trying them in order), keeping the hostname for TLS SNI and certificate checks.
 * A host that was not vetted is refused.
 */
export function pinnedConnector(
  pins: ReadonlyMap<string, readonly string[]>,
  timeoutMs: number,
): buildConnector.connector {
  const base = buildConnector({ timeout: timeoutMs });
  return (options, callback) => {
    const addresses = pins.get(normalizeHostname(options.hostname));
    if (addresses === undefined || addresses.length === 0) {
      callback(new Error(`refusing to connect to unvetted host ${options.hostname}`), null);
      return;
    }
    const servername =
      options.protocol === 'https:' && ipVersion(options.hostname) === 0
        ? options.hostname.replace(/\.+$/, '')
        : undefined;
    let index = 0;
    const attempt = (): void => {
      const onConnect = (...args: ConnectArgs): void => {
        if (args[0] !== null && index + 1 < addresses.length) {
          index++;
          attempt();
          return;
        }
        callback(...args);
      };
      try {
        base({ ...options, hostname: addresses[index], ...(servername ? { servername } : {}) }, onConnect);
      } catch (err) {
        onConnect(err instanceof Error ? err : new Error(String(err)), null);
      }
    };
    attempt();
  };
}

// ---------------------------------------------------------------------------------------------
// data: URLs
// ---------------------------------------------------------------------------------------------

const MIME_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/;
const BASE64_BODY = /^[A-Za-z0-9+/]*$/;

/** Decodes a `data:` URL without any network access (RFC 2397 / WHATWG fetch "data: URL processor"). */
export function decodeDataUrl(input: string, maxBytes: number, accept?: readonly string[]): SafeFetchResult {
  const text = trimC0(input);
  const comma = text.indexOf(',');
  if (!/^data:/i.test(text) || comma === -1) {
    throw new SafeFetchError('invalid_url', 'Invalid data: URL');
  }
  let meta = text.slice(5, comma).trim();
  let isBase64 = false;
  const b64 = /;\s*base64\s*$/i.exec(meta);
  if (b64 !== null) {
    isBase64 = true;
    meta = meta.slice(0, b64.index).trim();
  }
  const essence = mediaType(meta);
  const contentType = MIME_TYPE.test(essence) ? meta : 'text/plain;charset=US-ASCII';
  if (!contentTypeAllowed(contentType, accept)) {
    throw new SafeFetchError('unsupported_type', `Content type ${mediaType(contentType)} is not accepted`, {
      contentType,
    });
  }

  const payload = text.slice(comma + 1);
  let bytes: Buffer;
  if (isBase64) {
    let data = payload.includes('%') ? percentDecode(payload).toString('latin1') : payload;
    data = data.replace(/[\t\n\f\r ]/g, '');
    if (data.length % 4 === 0) data = data.replace(/={1,2}$/, '');
    if (data.length % 4 === 1 || !BASE64_BODY.test(data)) {
      throw new SafeFetchError('invalid_url', 'Invalid base64 in data: URL');
    }
    const size = Math.floor((data.length * 3) / 4);
    if (size > maxBytes) throw tooLarge(maxBytes);
    bytes = Buffer.from(data, 'base64');
  } else {
    // Percent-decoding shrinks at most 3:1, so this bound is safe to check before decoding.
    if (Math.ceil(Buffer.byteLength(payload) / 3) > maxBytes) throw tooLarge(maxBytes);
    bytes = percentDecode(payload);
    if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  }
  return { bytes, contentType, finalUrl: input };
}

/** Strips leading/trailing C0 controls and spaces, as the URL parser does. */
function trimC0(input: string): string {
  let start = 0;
  let end = input.length;
  while (start < end && input.charCodeAt(start) <= 0x20) start++;
  while (end > start && input.charCodeAt(end - 1) <= 0x20) end--;
  return input.slice(start, end);
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

/** WHATWG percent-decode of the UTF-8 bytes of `input` (invalid escapes are kept literally). */
function percentDecode(input: string): Buffer {
  const src = Buffer.from(input, 'utf8');
  const out = Buffer.allocUnsafe(src.length);
  let n = 0;
  for (let i = 0; i < src.length; i++) {
    const byte = src[i];
    if (byte === 0x25 && i + 2 < src.length) {
      const hi = hexValue(src[i + 1]);
      const lo = hexValue(src[i + 2]);
      if (hi !== -1 && lo !== -1) {
        out[n++] = (hi << 4) | lo;
        i += 2;
        continue;
      }
    }
    out[n++] = byte;
  }
  return out.subarray(0, n);
}
