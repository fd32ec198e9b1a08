import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, ArrayMinSize, IsArray, IsBoolean, IsInt, IsOptional, IsString, Min } from 'class-validator';

/** POST /v1/rerank (and /v2/rerank) — Cohere/Jina-compatible. */
export class CohereRerankRequestDto {
  @ApiPropertyOptional({
    description:
      '"small" or "large"; any other name containing "large" uses large, anything else (or none: optional in Cohere v1) small',
    example: 'small',
  })
  @IsOptional()
  @IsString()
  model?: string;

  @ApiProperty({ example: 'What is the capital of the United States?' }) @IsString() query: string;

  @ApiProperty({
    description: 'Strings or {text} objects',
    type: 'array',
    items: { oneOf: [{ type: 'string' }, { type: 'object' }] },
    example: ['Carson City is the capital of Nevada.', 'Washington, D.C. is the capital of the United States.'],
  })
  @IsArray()
  @ArrayMinSize(1)
  @Allow()
  documents: unknown[];

  @ApiPropertyOptional({ description: 'Results to return (default: all)', example: 3 })
  @IsOptional()
  @IsInt()
  @Min(1)
  top_n?: number;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() return_documents?: boolean;
  @ApiPropertyOptional({ description: 'Accepted for compatibility; ignored', example: 10 })
  @IsOptional()
  @IsInt()
  max_chunks_per_doc?: number;
  @ApiPropertyOptional({ description: 'Accepted for compatibility; ignored', example: 4096 })
  @IsOptional()
  @IsInt()
  max_tokens_per_doc?: number;
  @ApiPropertyOptional({ description: 'Accepted for compatibility; ignored', type: [String], example: ['text'] })
  @IsOptional()
  @IsArray()
  rank_fields?: string[];
}
