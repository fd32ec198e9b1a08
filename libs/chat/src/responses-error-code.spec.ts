import { responseErrorCode } from './responses.service';

describe('responseErrorCode (response.failed uses the spec ResponseErrorCode values)', () => {
  it('a rate limit is rate_limit_exceeded', () => {
    expect(
      responseErrorCode({ type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow', param: null }),
    ).toBe('rate_limit_exceeded');
  });

  it.each([
    ['upstream_error', 'api_error'],
    ['upstream_timeout', 'api_error'],
    ['internal_error', 'api_error'],
    ['insufficient_balance', 'insufficient_quota'],
  ] as const)('every other failure (%s) is server_error', (code, type) => {
    expect(responseErrorCode({ type, code, message: 'x', param: null } as never)).toBe('server_error');
  });
});
