export type SafeFetchErrorCode =
  | 'invalid_url'
  | 'forbidden_address'
  | 'too_many_redirects'
  | 'too_large'
  | 'timeout'
  | 'http_error'
  | 'unsupported_type'
  | 'network';

export interface SafeFetchErrorDetails {
  /** URL of the hop that failed (never contains credentials: such URLs are refused). */
  url?: string;
  /** Upstream HTTP status for `http_error`. */
  status?: number;
  /** Policy category for `forbidden_address` (e.g. `loopback`, `cloud metadata`). */
  reason?: string;
  /** The offending address, for logs only: do not echo it to API clients. */
  address?: string;
  /** Content type received, for `unsupported_type`. */
  contentType?: string;
  /** Byte limit that applied, for `too_large`. */
  maxBytes?: number;
  cause?: unknown;
}

/**
 * Suggested status for the gateway's own response when fetching a user-supplied URL failed:
 * 413 for `too_large`, 400 for problems with the URL or what it points at, 504/502 for
 * timeouts/network failures (which may be ours as much as the remote's).
 */
const SUGGESTED_STATUS: Record<SafeFetchErrorCode, number> = {
  invalid_url: 400,
  forbidden_address: 400,
  too_many_redirects: 400,
  http_error: 400,
  unsupported_type: 400,
  too_large: 413,
  timeout: 504,
  network: 502,
};

export class SafeFetchError extends Error {
  override readonly name = 'SafeFetchError';

  constructor(
    readonly code: SafeFetchErrorCode,
    message: string,
    readonly details: SafeFetchErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  /** See {@link SUGGESTED_STATUS}: 413 for `too_large`, 400 for URL/policy/upstream-content errors. */
  get suggestedHttpStatus(): number {
    return SUGGESTED_STATUS[this.code];
  }
}

export function isSafeFetchError(err: unknown): err is SafeFetchError {
  return err instanceof SafeFetchError;
}
