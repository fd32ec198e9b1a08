/** The options and result shapes of {@link SafeFetcher} (see safe-fetcher.ts). */

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
