import { lookup as systemLookup } from 'node:dns/promises';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Provider } from '@nestjs/common';
import { Agent } from 'undici';
import { decodeDataUrl, trimC0 } from './data-url';
import {
  acceptHeader,
  classify,
  contentTypeAllowed,
  Deadline,
  mediaType,
  noop,
  parseOrThrow,
  readCapped,
  singleHeader,
  tooLarge,
} from './fetch-support';
import { type ParsedHttpUrl, ipVersion, isForbiddenAddress, isForbiddenHostname } from './ip-policy';
import { pinnedConnector } from './pinned-connector';
import { SafeFetchError } from './safe-fetch-error';
import type {
  HostResolver,
  ResolvedAddress,
  SafeFetcherOptions,
  SafeFetchOptions,
  SafeFetchResult,
} from './safe-fetch-types';

export { SafeFetchError, isSafeFetchError, safeFetchErrorToApiError } from './safe-fetch-error';
export type { SafeFetchErrorCode, SafeFetchErrorDetails } from './safe-fetch-error';
export type * from './safe-fetch-types';
export { contentTypeAllowed } from './fetch-support';
export { decodeDataUrl } from './data-url';
export { pinnedConnector } from './pinned-connector';

/** DI token for {@link SafeFetcherOptions}. Optional: without it the product defaults apply. */
export const SAFE_FETCHER_OPTIONS = Symbol('SAFE_FETCHER_OPTIONS');

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

function assertTimeout(ms: number): void {
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMEOUT_MS) {
    throw new RangeError('SafeFetcher: timeout must be a positive number of milliseconds');
  }
}
