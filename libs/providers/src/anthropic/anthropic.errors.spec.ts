import { errorFields, readFixtureText } from '../http/testing/fixtures';
import { mapAnthropicError } from './anthropic.errors';

const body = (name: string) => readFixtureText(__dirname, name);

describe('mapAnthropicError', () => {
  it('400 → invalid_request with the provider message', () => {
    expect(errorFields(mapAnthropicError(400, body('error-invalid-request.json'), {}))).toEqual({
      kind: 'invalid_request',
      message:
        'messages.1: `tool_result` block(s) provided when previous message does not contain any `tool_use` blocks',
      upstreamStatus: 400,
      retryAfterSeconds: undefined,
      param: null,
    });
  });

  it('413 → invalid_request, 401 → auth', () => {
    expect(
      mapAnthropicError(
        413,
        '{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}',
        {},
      ).kind,
    ).toBe('invalid_request');
    expect(errorFields(mapAnthropicError(401, body('error-auth.json'), {}))).toMatchObject({
      kind: 'auth',
      message: 'invalid x-api-key',
      upstreamStatus: 401,
    });
  });

  it('429 → rate_limited with retry-after seconds', () => {
    expect(
      errorFields(
        mapAnthropicError(429, body('error-rate-limit.json'), {
          'retry-after': '17',
          'anthropic-ratelimit-input-tokens-remaining': '0',
        }),
      ),
    ).toMatchObject({
      kind: 'rate_limited',
      upstreamStatus: 429,
      retryAfterSeconds: 17,
    });
  });

  it('529 overloaded and 500 → upstream', () => {
    expect(errorFields(mapAnthropicError(529, body('error-overloaded.json'), {}))).toEqual({
      kind: 'upstream',
      message: 'Overloaded',
      upstreamStatus: 529,
      retryAfterSeconds: undefined,
      param: null,
    });
    expect(
      mapAnthropicError(500, '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}', {})
        .kind,
    ).toBe('upstream');
  });

  it('504 → timeout, and an unparsable body still has a message', () => {
    expect(errorFields(mapAnthropicError(504, '<html>gateway timeout</html>', {}))).toMatchObject({
      kind: 'timeout',
      message: 'Upstream returned HTTP 504',
    });
  });
});
