import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Min, ValidateIf } from 'class-validator';
import { CostBreakdownDto } from '@app/common';

/** POST /v1/embeddings (OpenAI) and POST /api/v1/embeddings (REST). */
export class EmbeddingsRequestDto {
  @ApiProperty({
    example: 'local-embedding-small',
    description: 'An embedding model key from GET /v1/models (local-embedding-small/-large work offline)',
  })
  @IsString()
  @IsNotEmpty()
  model: string;

  @ApiProperty({
    description:
      'A string, an array of up to 2048 strings, an array of token ids (cl100k_base) or an array of up to 2048 token-id arrays',
    oneOf: [
      { type: 'string' },
      { type: 'array', items: { type: 'string' } },
      { type: 'array', items: { type: 'integer' } },
      { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
    ],
    example: ['first text', 'second text'],
  })
  @Allow()
  input: unknown;

  @ApiPropertyOptional({
    enum: ['float', 'base64'],
    default: 'float',
    example: 'float',
    description: 'base64 = little-endian float32 bytes',
  })
  @IsOptional()
  @IsIn(['float', 'base64'])
  encoding_format?: 'float' | 'base64';

  @ApiPropertyOptional({
    description: "Output dimensions (≤ the model's native size, where the model allows)",
    example: 512,
  })
  // null is not "absent" here: it would reach the provider
  @ValidateIf((o: EmbeddingsRequestDto) => o.dimensions !== undefined)
  @IsInt()
  @Min(1)
  dimensions?: number;

  @ApiPropertyOptional({ example: 'user-42' }) @IsOptional() @IsString() user?: string;
}

export class EmbeddingItemDto {
  @ApiProperty({ example: 'embedding' }) object: 'embedding';
  @ApiProperty({ example: 0 }) index: number;
  @ApiProperty({
    oneOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string' }],
    description: 'floats, or base64 with encoding_format=base64',
  })
  embedding: number[] | string;
}

export class EmbeddingsUsageDto {
  @ApiProperty({ example: 8 }) prompt_tokens: number;
  @ApiProperty({ example: 8 }) total_tokens: number;
}

export class EmbeddingsResponseDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [EmbeddingItemDto] }) data: EmbeddingItemDto[];
  @ApiProperty({ example: 'text-embedding-3-small' }) model: string;
  @ApiProperty({ type: EmbeddingsUsageDto }) usage: EmbeddingsUsageDto;
  @ApiProperty({ type: CostBreakdownDto, description: 'Gateway extension' }) cost: CostBreakdownDto;
}
