import { ProviderError } from '../types';
import { readFixtureText } from '../http/testing/fixtures';
import { mapOpenAiError } from './openai.errors';

const body = (name: string) => readFixtureText(__dirname, name);

function fields(error: ProviderError) {
  return {
    kind: error.kind,
    message: error.message,
    upstreamStatus: error.upstreamStatus,
    retryAfterSeconds: error.retryAfterSeconds,
    param: error.param,
  };
}

describe('mapOpenAiError', () => {
  it('400 → invalid_request with the provider message and param', () => {
    expect(fields(mapOpenAiError(400, body('error-invalid-request.json'), {}))).toEqual({
      kind: 'invalid_request',
      message: "Invalid value for 'temperature': expected a decimal between 0 and 2, got 3.5.",
      upstreamStatus: 400,
      retryAfterSeconds: undefined,
      param: 'temperature',
    });
  });

  it('404 → invalid_request', () => {
    expect(fields(mapOpenAiError(404, body('error-model-not-found.json'), {}))).toEqual({
      kind: 'invalid_request',
      message: 'The model `gpt-5-turbo` does not exist or you do not have access to it.',
      upstreamStatus: 404,
      retryAfterSeconds: undefined,
      param: null,
    });
  });

  it('401 → auth', () => {
    expect(mapOpenAiError(401, body('error-auth.json'), {}).kind).toBe('auth');
    expect(mapOpenAiError(403, '{"error":{"message":"Country not supported"}}', {}).kind).toBe('auth');
  });

  it('429 → rate_limited with retry-after-ms (preferred) or retry-after seconds', () => {
    const limited = mapOpenAiError(429, body('error-rate-limit.json'), { 'retry-after-ms': '210', 'retry-after': '1' });
    expect(fields(limited)).toEqual({
      kind: 'rate_limited',
      message:
        'Rate limit reached for gpt-4o-mini in organization org-XXXX on tokens per min (TPM): Limit 200000, Used 199500, Requested 1200. Please try again in 210ms. Visit https://platform.openai.com/account/rate-limits to learn more.',
      upstreamStatus: 429,
      retryAfterSeconds: 1,
      param: null,
    });
    expect(mapOpenAiError(429, body('error-rate-limit.json'), { 'Retry-After': '20' }).retryAfterSeconds).toBe(20);
  });

  it('429 with an HTTP-date Retry-After', () => {
    const now = Date.parse('2025-08-01T12:00:00Z'); // the gateway's clock when the answer arrived
    expect(mapOpenAiError(429, '{}', { 'retry-after': 'Fri, 01 Aug 2025 12:00:30 GMT' }, now).retryAfterSeconds).toBe(
      30,
    );
  });

  it('408/504 → timeout, 5xx → upstream', () => {
    expect(mapOpenAiError(408, '', {}).kind).toBe('timeout');
    expect(mapOpenAiError(504, '', {}).kind).toBe('timeout');
    expect(
      fields(
        mapOpenAiError(
          500,
          '{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error"}}',
          {},
        ),
      ),
    ).toEqual({
      kind: 'upstream',
      message: 'The server had an error while processing your request. Sorry about that!',
      upstreamStatus: 500,
      retryAfterSeconds: undefined,
      param: null,
    });
  });

  it("reads vLLM's top-level error shape", () => {
    expect(mapOpenAiError(400, body('error-vllm.json'), {}).message).toBe(
      "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
    );
  });

  it('gives a sensible message for unparsable bodies', () => {
    expect(mapOpenAiError(502, '<html><body>Bad Gateway</body></html>', {}).message).toBe('Upstream returned HTTP 502');
    expect(mapOpenAiError(400, 'model is required', {}).message).toBe('Upstream returned HTTP 400: model is required');
    expect(mapOpenAiError(400, '', {}).message).toBe('Upstream returned HTTP 400');
  });
});
