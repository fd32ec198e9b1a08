import { errorFields, readFixtureText } from '../http/testing/fixtures';
import { mapGeminiError, mapGeminiStreamError } from './gemini.errors';

const body = (name: string) => readFixtureText(__dirname, name);

describe('mapGeminiError', () => {
  it('400 INVALID_ARGUMENT → invalid_request with the provider message', () => {
    expect(errorFields(mapGeminiError(400, body('error-invalid-argument.json'), {}))).toEqual({
      kind: 'invalid_request',
      message: '* GenerateContentRequest.contents: contents is not specified',
      upstreamStatus: 400,
      retryAfterSeconds: undefined,
      param: null,
    });
  });

  it('404 → invalid_request', () => {
    expect(errorFields(mapGeminiError(404, body('error-model-not-found.json'), {}))).toMatchObject({
      kind: 'invalid_request',
      message:
        'models/gemini-1.0-ultra is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.',
    });
  });

  it('400 API_KEY_INVALID and 403 → auth', () => {
    expect(errorFields(mapGeminiError(400, body('error-api-key-invalid.json'), {}))).toMatchObject({
      kind: 'auth',
      message: 'API key not valid. Please pass a valid API key.',
    });
    expect(
      mapGeminiError(403, '{"error":{"code":403,"message":"Permission denied","status":"PERMISSION_DENIED"}}', {}).kind,
    ).toBe('auth');
  });

  it('429 → rate_limited with the RetryInfo delay, or Retry-After when sent', () => {
    expect(errorFields(mapGeminiError(429, body('error-resource-exhausted.json'), {}))).toMatchObject({
      kind: 'rate_limited',
      upstreamStatus: 429,
      retryAfterSeconds: 41,
    });
    expect(mapGeminiError(429, body('error-resource-exhausted.json'), { 'retry-after': '5' }).retryAfterSeconds).toBe(
      5,
    );
  });

  it('reads the array form used by stream endpoints; 503 → upstream', () => {
    expect(errorFields(mapGeminiError(503, body('error-stream-array.json'), {}))).toEqual({
      kind: 'upstream',
      message: 'The model is overloaded. Please try again later.',
      upstreamStatus: 503,
      retryAfterSeconds: undefined,
      param: null,
    });
  });

  it('504 → timeout; unparsable bodies still get a message', () => {
    expect(errorFields(mapGeminiError(504, 'upstream request timeout', {}))).toMatchObject({
      kind: 'timeout',
      message: 'Upstream returned HTTP 504: upstream request timeout',
    });
  });
});

describe('mapGeminiStreamError', () => {
  it('uses the embedded code for the kind', () => {
    expect(
      errorFields(
        mapGeminiStreamError({ error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } }),
      ),
    ).toEqual({
      kind: 'upstream',
      message: 'An internal error has occurred.',
      upstreamStatus: 500,
      retryAfterSeconds: undefined,
      param: undefined,
    });
  });
});
