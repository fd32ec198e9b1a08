import { ApiError } from '../errors/api-error';

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
 * 413 for `too_large`, otherwise 400 — the URL (or what it points at) is the client's input, and
 * an unreachable or slow host is reported like OpenAI does for image URLs (400).
 */
const SUGGESTED_STATUS: Record<SafeFetchErrorCode, 400 | 413> = {
  invalid_url: 400,
  forbidden_address: 400,
  too_many_redirects: 400,
  http_error: 400,
  unsupported_type: 400,
  timeout: 400,
  network: 400,
  too_large: 413,
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

  /** 413 for `too_large`, 400 for everything else (see {@link SUGGESTED_STATUS}). */
  get suggestedHttpStatus(): 400 | 413 {
    return SUGGESTED_STATUS[this.code];
  }
}

export function isSafeFetchError(err: unknown): err is SafeFetchError {
  return err instanceof SafeFetchError;
}

/**
 * Renders a fetch failure as the gateway's API error (OpenAI error shape): 413 `request_too_large`
 * for `too_large`, otherwise 400 `invalid_request_error` with code `file_url_<code>`.
 * The message is client-safe (it never contains resolved addresses).
 */
export function safeFetchErrorToApiError(err: SafeFetchError, param: string | null = null): ApiError {
  const message = `Could not fetch ${param ?? 'URL'}: ${err.message}`;
  if (err.code === 'too_large') return ApiError.tooLarge(message, param);
  return ApiError.badRequest(message, param, `file_url_${err.code}`);
}
