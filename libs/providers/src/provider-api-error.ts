import { ApiError } from '@app/common';
import { isProviderAbortError } from './http/provider-http.client';
import { ModelEntry } from './catalog/model-catalog';
import { ProviderError } from './types';

/**
 * Provider failure → public error: provider 4xx → 400 with the provider's message; 429 → 429 with
 * Retry-After; credentials rejected, 5xx, reset, unparsable body or stream → 502; timeout → 504.
 * Anything else that is not already an ApiError becomes a 502 (never a 500).
 */
export function providerErrorToApiError(err: unknown, model: ModelEntry): ApiError {
  if (err instanceof ApiError) return err;
  if (isProviderAbortError(err)) return ApiError.badRequest('Request aborted by the client.', null, 'request_aborted');
  const who = `${model.provider} (${model.key})`;
  if (!(err instanceof ProviderError)) return ApiError.badGateway(`${who}: the upstream call failed.`);
  switch (err.kind) {
    case 'invalid_request':
      return new ApiError(400, 'invalid_request_error', `${who}: ${err.message}`, 'upstream_invalid_request', err.param ?? null);
    case 'rate_limited':
      return ApiError.rateLimited(`${who} is rate limiting requests: ${err.message}`, err.retryAfterSeconds ?? 1);
    case 'timeout':
      return ApiError.gatewayTimeout(`${who} did not answer in time.`);
    case 'auth':
      return ApiError.badGateway(`${who} rejected the gateway's credentials.`, 'upstream_auth_error');
    default:
      return ApiError.badGateway(`${who} failed: ${err.message}`).withLogDetail(err.detail);
  }
}
