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
      return new ApiError(
        400,
        'invalid_request_error',
        `${who}: ${err.message}`,
        'upstream_invalid_request',
        err.param ?? null,
      );
    case 'rate_limited':
      // the provider's text can name accounts or organisations: logged, not forwarded
      return ApiError.rateLimited(
        `${who} is rate limiting requests; retry later.`,
        err.retryAfterSeconds ?? 1,
      ).withLogDetail(err.detail ?? err.message);
    case 'timeout':
      return ApiError.gatewayTimeout(`${who} did not answer in time.`);
    case 'auth':
      return ApiError.badGateway(`${who} rejected the gateway's credentials.`, 'upstream_auth_error');
    default:
      // what the provider said (or where the connection went) is for the logs; the caller learns which provider failed
      // code upstream_overloaded: the provider said it is overloaded (Anthropic's 529) — still a 502 here
      return ApiError.badGateway(
        `${who} is unavailable: ${publicReason(err)}`,
        err.upstreamStatus === 529 ? 'upstream_overloaded' : 'upstream_error',
      ).withLogDetail(err.detail ?? err.message);
  }
}

/** A client-safe reason: the HTTP status the provider answered, or the kind of connection failure. */
function publicReason(err: ProviderError): string {
  if (err.upstreamStatus !== undefined) return `the provider answered HTTP ${err.upstreamStatus}.`;
  if (/could not be reached/.test(err.message))
    return err.message.replace(/^.*?(the provider could not be reached)/, '$1') + '.';
  return 'the provider failed to complete the request.';
}

/**
 * The metrics label of a failed upstream call: the ProviderError kind (timeout, rate_limited, auth,
 * upstream, invalid_request, …), 'unknown' for anything unexpected, null when it was not an upstream
 * failure (the caller aborted, or the gateway refused before calling).
 */
export function upstreamErrorKind(err: unknown): string | null {
  if (err instanceof ProviderError) return err.kind;
  if (err instanceof ApiError || isProviderAbortError(err)) return null;
  return 'unknown';
}
