import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';
import type { ApiErrorType } from './api-error';

const ERROR_TYPES: ApiErrorType[] = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'insufficient_quota',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'requests',
  'tokens',
  'api_error',
  'upstream_error',
  'service_unavailable',
  'timeout_error',
];

export class ErrorDetailDto {
  @ApiProperty({ example: 'messages: must be a non-empty array' }) message: string;
  @ApiProperty({ enum: ERROR_TYPES, example: 'invalid_request_error' }) type: ApiErrorType;
  @ApiProperty({ type: String, nullable: true, description: 'Machine-readable reason', example: 'invalid_request' })
  code: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The request field at fault', example: 'messages' })
  param: string | null;
}

/** The body of every error answer, whatever the endpoint family. */
export class ErrorResponseDto {
  @ApiProperty({ type: ErrorDetailDto }) error: ErrorDetailDto;
}

/**
 * The answers of an operation that holds money and calls a provider: refused before any upstream call
 * when the balance, a key budget or a rate limit does not allow it; upstream failures after that.
 */
export function ApiChargedErrors(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiResponse({
      status: 402,
      type: ErrorResponseDto,
      description: 'The balance or the API key budget does not cover the worst-case cost',
    }),
    ApiResponse({
      status: 429,
      type: ErrorResponseDto,
      description: 'Rate limit of the API key or team reached (Retry-After, x-ratelimit-* headers)',
    }),
    ApiResponse({ status: 502, type: ErrorResponseDto, description: 'The provider failed' }),
    ApiResponse({ status: 503, type: ErrorResponseDto, description: 'The provider or the database is unavailable' }),
    ApiResponse({ status: 504, type: ErrorResponseDto, description: 'The provider did not answer in time' }),
  );
}
