import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

const RETENTIONS = ['in-memory', '24h'] as const;
export type PromptCacheRetentionValue = (typeof RETENTIONS)[number];

/**
 * OpenAI's `prompt_cache_retention` on chat completions and responses: a caching hint, validated
 * against its enum and accepted; it changes nothing in the answer or the price.
 */
export function PromptCacheRetention(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      enum: RETENTIONS,
      nullable: true,
      example: null,
      description: 'A prompt-caching hint: accepted; it changes nothing in the answer or the price',
    }),
    IsOptional(),
    IsIn(RETENTIONS),
  );
}
