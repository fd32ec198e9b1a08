/** Anthropic error bodies `{type:"error", error:{type, message}}` → ProviderError. */
import { ProviderError, ProviderErrorKind } from '../types';
import { fallbackErrorMessage, providerErrorFor } from '../http/upstream-errors';
import { asRecord, asString, parseJson } from '../http/wire-json';

export interface AnthropicErrorInfo {
  type: string | undefined;
  message: string;
}

export function readAnthropicError(raw: unknown): AnthropicErrorInfo | undefined {
  const root = asRecord(raw);
  const error = asRecord(root?.error);
  const message = asString(error?.message);
  if (message === undefined || message === '') return undefined;
  return { type: asString(error?.type), message };
}

/** Kind of an error that arrives inside a 200 stream (`event: error`), where only the type is known. */
export function anthropicErrorKind(type: string | undefined): ProviderErrorKind {
  switch (type) {
    case 'invalid_request_error':
    case 'not_found_error':
    case 'request_too_large':
      return 'invalid_request';
    case 'authentication_error':
    case 'permission_error':
      return 'auth';
    case 'rate_limit_error':
      return 'rate_limited';
    case 'timeout_error':
      return 'timeout';
    default:
      // overloaded_error, api_error and anything new: the provider failed
      return 'upstream';
  }
}

export function mapAnthropicError(
  status: number,
  body: string,
  headers: Record<string, string>,
  nowMs?: number,
): ProviderError {
  const parsed = parseJson(body);
  const info = parsed.ok ? readAnthropicError(parsed.value) : undefined;
  return providerErrorFor({ status, headers, nowMs, message: info?.message ?? fallbackErrorMessage(status, body) });
}

/** `event: error` payload → ProviderError (the HTTP status was already 200). */
export function mapAnthropicStreamError(payload: unknown): ProviderError {
  const info = readAnthropicError(payload);
  return new ProviderError(anthropicErrorKind(info?.type), info?.message ?? 'Upstream stream reported an error');
}
