import { ApiError } from './api-error';
import { anthropicErrorOf, errorResponseFor, isAnthropicPath } from './anthropic-error';

describe('Anthropic error shape', () => {
  it('applies to /v1/messages and its sub-paths only', () => {
    expect(isAnthropicPath('/v1/messages')).toBe(true);
    expect(isAnthropicPath('/v1/messages/count_tokens')).toBe(true);
    expect(isAnthropicPath('/v1/messagesx')).toBe(false);
    expect(isAnthropicPath('/v1/chat/completions')).toBe(false);
    expect(isAnthropicPath(undefined)).toBe(false);
  });

  it.each([
    [ApiError.badRequest('bad'), 400, 'invalid_request_error'],
    [ApiError.unauthorized(), 401, 'authentication_error'],
    [ApiError.insufficientQuota('poor'), 402, 'billing_error'],
    [ApiError.forbidden('no'), 403, 'permission_error'],
    [ApiError.notFound('gone'), 404, 'not_found_error'],
    [ApiError.tooLarge('big'), 413, 'request_too_large'],
    [ApiError.rateLimited('slow', 3), 429, 'rate_limit_error'],
    [new ApiError(415, 'invalid_request_error', 'type'), 415, 'invalid_request_error'],
    [new ApiError(500, 'api_error', 'oops'), 500, 'api_error'],
    [ApiError.badGateway('down'), 502, 'api_error'],
    [ApiError.badGateway('busy', 'upstream_overloaded'), 529, 'overloaded_error'],
    [ApiError.unavailable('no key'), 503, 'api_error'],
    [ApiError.gatewayTimeout('slow'), 504, 'timeout_error'],
  ])('%s → %i %s', (err, status, type) => {
    expect(anthropicErrorOf(err)).toEqual({ status, type });
  });

  it('renders {type: "error", error: {type, message}, request_id} on its paths and the gateway shape elsewhere', () => {
    const err = ApiError.notFound('The model x does not exist.', 'model_not_found', 'model');
    expect(errorResponseFor('/v1/messages', err, 'req_1')).toEqual({
      status: 404,
      body: {
        type: 'error',
        error: { type: 'not_found_error', message: 'The model x does not exist.' },
        request_id: 'req_1',
      },
    });
    expect(errorResponseFor('/v1/chat/completions', err, 'req_1')).toEqual({
      status: 404,
      body: {
        error: {
          message: 'The model x does not exist.',
          type: 'not_found_error',
          code: 'model_not_found',
          param: 'model',
        },
      },
    });
  });
});
