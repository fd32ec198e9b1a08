/**
 * The Anthropic-compatible paths (`/v1/messages…`) answer errors in Anthropic's shape,
 *   {"type":"error","error":{"type","message"},"request_id"?}
 * with the statuses Anthropic's SDKs expect; every other path keeps the OpenAI-style shape.
 */
import { ApiError, ErrorBody, errorBody } from './api-error';

const ANTHROPIC_PATH = /^\/v1\/messages(\/|$)/;

export function isAnthropicPath(path: string | undefined): boolean {
  return path !== undefined && ANTHROPIC_PATH.test(path);
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id?: string;
}

/** Status and Anthropic error type of a gateway error. */
export function anthropicErrorOf(err: ApiError): { status: number; type: string } {
  // an overloaded upstream is Anthropic's 529, which its clients retry
  if (err.code === 'upstream_overloaded') return { status: 529, type: 'overloaded_error' };
  switch (err.status) {
    case 400:
    case 405:
    case 409:
    case 415:
    case 422:
    case 431:
      return { status: err.status, type: 'invalid_request_error' };
    case 401:
      return { status: 401, type: 'authentication_error' };
    case 402:
      return { status: 402, type: 'billing_error' };
    case 403:
      return { status: 403, type: 'permission_error' };
    case 404:
      return { status: 404, type: 'not_found_error' };
    case 413:
      return { status: 413, type: 'request_too_large' };
    case 429:
      return { status: 429, type: 'rate_limit_error' };
    case 504:
      return { status: 504, type: 'timeout_error' };
    default:
      return {
        status: err.status >= 500 ? err.status : 400,
        type: err.status >= 500 ? 'api_error' : 'invalid_request_error',
      };
  }
}

export function anthropicErrorBody(err: ApiError, requestId?: string): AnthropicErrorBody {
  return {
    type: 'error',
    error: { type: anthropicErrorOf(err).type, message: err.message },
    ...(requestId ? { request_id: requestId } : {}),
  };
}

/** Status and body of an error answered on `path`: Anthropic's shape on its paths, the gateway's elsewhere. */
export function errorResponseFor(
  path: string | undefined,
  err: ApiError,
  requestId?: string,
): { status: number; body: ErrorBody | AnthropicErrorBody } {
  if (isAnthropicPath(path)) return { status: anthropicErrorOf(err).status, body: anthropicErrorBody(err, requestId) };
  return { status: err.status, body: errorBody(err) };
}
