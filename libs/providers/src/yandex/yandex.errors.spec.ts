import { errorFields, readFixtureText } from '../http/testing/fixtures';
import { mapYandexError, mapYandexStreamError } from './yandex.errors';

const body = (name: string) => readFixtureText(__dirname, name);

describe('mapYandexError', () => {
  it('401 UNAUTHENTICATED (API gateway shape) → auth', () => {
    expect(errorFields(mapYandexError(401, body('error-unauthenticated.json'), {}))).toEqual({
      kind: 'auth',
      message: "Unknown api key 'AQVN…'",
      upstreamStatus: 401,
      retryAfterSeconds: undefined,
      param: null,
    });
  });

  it('400 PERMISSION_DENIED on the folder → auth (the gateway credential, not the caller)', () => {
    expect(errorFields(mapYandexError(400, body('error-permission-denied.json'), {}))).toMatchObject({
      kind: 'auth',
      upstreamStatus: 400,
    });
  });

  it('400 INVALID_ARGUMENT (gRPC gateway shape) → invalid_request with the provider message', () => {
    expect(errorFields(mapYandexError(400, body('error-invalid-argument.json'), {}))).toMatchObject({
      kind: 'invalid_request',
      message: expect.stringContaining('number of input tokens must be no more than 32768') as unknown,
    });
  });

  it('429 with and without Retry-After → rate_limited', () => {
    expect(errorFields(mapYandexError(429, body('error-rate-limit.json'), { 'retry-after': '3' }))).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 3,
    });
    expect(errorFields(mapYandexError(429, body('error-rate-limit.json'), {}))).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: undefined,
    });
  });

  it('5xx → upstream; a body that is not Yandex JSON keeps a readable message', () => {
    expect(errorFields(mapYandexError(500, body('error-internal.json'), {}))).toMatchObject({
      kind: 'upstream',
      message: 'Internal error',
    });
    expect(errorFields(mapYandexError(503, '<html>busy</html>', {}))).toMatchObject({
      kind: 'upstream',
      message: 'Upstream returned HTTP 503',
    });
  });

  it('a stream error line takes its kind from the gRPC code', () => {
    expect(errorFields(mapYandexStreamError(JSON.parse(body('error-internal.json'))))).toMatchObject({
      kind: 'upstream',
      upstreamStatus: 500,
    });
  });
});
