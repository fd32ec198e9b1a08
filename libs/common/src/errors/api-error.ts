/**
 * The one error type services throw. The global filter renders it as the OpenAI error shape:
 *   {"error": {"message", "type", "code", "param"}}
 */
export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'insufficient_quota'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  /** OpenAI's 429 of a rate limit names the limit: requests or tokens per minute */
  | 'requests'
  | 'tokens'
  | 'api_error'
  | 'upstream_error'
  | 'service_unavailable'
  | 'timeout_error';

export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly type: ApiErrorType,
    message: string,
    public readonly code: string | null = null,
    public readonly param: string | null = null,
    /** extra response headers, e.g. Retry-After */
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Internal detail (upstream addresses, socket errors) logged with the error, never sent to the client. */
  logDetail?: string;

  withLogDetail(detail: string | undefined): this {
    if (detail) this.logDetail = detail;
    return this;
  }

  static badRequest(message: string, param: string | null = null, code: string | null = 'invalid_request'): ApiError {
    return new ApiError(400, 'invalid_request_error', message, code, param);
  }
  static unauthorized(message = 'Invalid or missing API key.', code = 'invalid_api_key'): ApiError {
    return new ApiError(401, 'authentication_error', message, code);
  }
  static forbidden(message: string, code = 'forbidden'): ApiError {
    return new ApiError(403, 'permission_error', message, code);
  }
  static insufficientQuota(message: string): ApiError {
    return new ApiError(402, 'insufficient_quota', message, 'insufficient_quota');
  }
  static notFound(message: string, code = 'not_found', param: string | null = null): ApiError {
    return new ApiError(404, 'not_found_error', message, code, param);
  }
  static tooLarge(message: string, param: string | null = null): ApiError {
    return new ApiError(413, 'request_too_large', message, 'request_too_large', param);
  }
  static rateLimited(message: string, retryAfterSeconds?: number): ApiError {
    const headers: Record<string, string> =
      retryAfterSeconds !== undefined ? { 'retry-after': String(Math.max(0, Math.ceil(retryAfterSeconds))) } : {};
    return new ApiError(429, 'rate_limit_error', message, 'rate_limit_exceeded', null, headers);
  }
  static badGateway(message: string, code = 'upstream_error'): ApiError {
    return new ApiError(502, 'upstream_error', message, code);
  }
  static unavailable(message: string, code = 'service_unavailable'): ApiError {
    return new ApiError(503, 'service_unavailable', message, code);
  }
  static gatewayTimeout(message: string): ApiError {
    return new ApiError(504, 'timeout_error', message, 'upstream_timeout');
  }
}

export interface ErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
}

export function errorBody(err: ApiError): ErrorBody {
  return { error: { message: err.message, type: err.type, code: err.code, param: err.param } };
}
