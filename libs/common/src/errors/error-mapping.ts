import { HttpException, HttpStatus } from '@nestjs/common';
import { ApiError, ApiErrorType } from './api-error';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './database-errors';

/**
 * Turns anything thrown while handling a request into an ApiError. Pure: the filter does the I/O.
 * Unknown errors become a generic 500 (the caller logs the original; nothing leaks to the client).
 */
export function toApiError(exception: unknown): { error: ApiError; unexpected: boolean } {
  if (exception instanceof ApiError) return { error: exception, unexpected: false };

  // body-parser errors (malformed JSON, too large, bad charset) carry `type` and `status`
  // (Nest maps http-errors raised by middleware into HttpExceptions; the original is the cause)
  const bp =
    bodyParserError(exception) ?? (exception instanceof HttpException ? bodyParserError(exception.cause) : null);
  if (bp) return { error: bp, unexpected: false };

  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    let message = exception.message;
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const m = (response as { message: unknown }).message;
      message = Array.isArray(m) ? m.join('; ') : String(m);
    }
    if (status === HttpStatus.PAYLOAD_TOO_LARGE && message === 'File too large') {
      // multer's LIMIT_FILE_SIZE (uploads are limited to the spec's 10 MB per file)
      return {
        error: ApiError.tooLarge('The uploaded file is larger than the limit of 10 MB per file.', 'file'),
        unexpected: false,
      };
    }
    if (status === HttpStatus.NOT_FOUND && /^Cannot (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /.test(message)) {
      message = `Unknown route: ${message.replace(/^Cannot /, '')}`;
    }
    return {
      error: new ApiError(status, typeForStatus(status), message, codeForStatus(status)),
      unexpected: status >= 500,
    };
  }
  if (isDatabaseUnavailable(exception)) {
    // logged by the filter as unexpected (operators must see it), answered as retryable
    return {
      error: new ApiError(
        503,
        'api_error',
        'The service cannot reach its database right now; retry shortly.',
        'service_unavailable',
        null,
        { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
      ),
      unexpected: true,
    };
  }
  return { error: new ApiError(500, 'api_error', 'Internal server error.', 'internal_error'), unexpected: true };
}

function bodyParserError(exception: unknown): ApiError | null {
  if (typeof exception !== 'object' || exception === null) return null;
  const e = exception as { type?: unknown; status?: unknown; limit?: unknown };
  if (typeof e.type !== 'string' || typeof e.status !== 'number') return null;
  switch (e.type) {
    case 'entity.parse.failed':
      return ApiError.badRequest('Malformed JSON in request body.', null, 'invalid_json');
    case 'entity.too.large':
      return ApiError.tooLarge(
        `Request body exceeds the limit of ${typeof e.limit === 'number' ? formatBytes(e.limit) : 'this endpoint'} for this endpoint.`,
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'invalid_request_error', 'Unsupported request body encoding.', 'unsupported_encoding');
    case 'request.aborted':
      return ApiError.badRequest('Request aborted by the client.', null, 'request_aborted');
    default:
      return e.status >= 400 && e.status < 500
        ? ApiError.badRequest('Unreadable request body.', null, 'invalid_body')
        : null;
  }
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MB` : `${Math.round(n / 1024)} KB`;
}

function typeForStatus(status: number): ApiErrorType {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 402:
      return 'insufficient_quota';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

function codeForStatus(status: number): string {
  switch (status) {
    case 401:
      return 'invalid_api_key';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_exceeded';
    default:
      return status >= 500 ? 'internal_error' : 'invalid_request';
  }
}
