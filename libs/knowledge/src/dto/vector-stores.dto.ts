import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { PageQueryDto } from '@app/common';

export { PageQueryDto };
import { FILTERS_QUERY_DESCRIPTION, FILTERS_QUERY_EXAMPLE } from './knowledge-bases.dto';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

const CHUNKING_EXAMPLE = { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } };

export class VectorStoreFilesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['in_progress', 'completed', 'failed', 'cancelled'] })
  @IsOptional()
  @IsIn(['in_progress', 'completed', 'failed', 'cancelled'])
  filter?: 'in_progress' | 'completed' | 'failed' | 'cancelled';

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'attributes[key]=value (for example attributes[lang]=en): only files whose attributes hold that value under that key (a string, or a number / boolean written out); several keys must all match',
  })
  @Allow()
  attributes?: unknown;

  @ApiPropertyOptional({ type: String, description: FILTERS_QUERY_DESCRIPTION, example: FILTERS_QUERY_EXAMPLE })
  @Allow()
  filters?: unknown;
}

export class CreateVectorStoreDto {
  @ApiPropertyOptional({ example: 'Support handbook' }) @IsOptional() @IsString() @MaxLength(256) name?: string;
  @ApiPropertyOptional({ example: 'Policies and how-tos' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;
  @ApiPropertyOptional({ nullable: true, description: 'Up to 16 string pairs', example: { team: 'support' } })
  @Allow()
  metadata?: unknown;
  @ApiPropertyOptional({ type: [String], description: 'Files to add at once', example: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  file_ids?: string[];
  @ApiPropertyOptional({ description: 'auto (800/400 tokens) or static', example: { type: 'auto' } })
  @Allow()
  chunking_strategy?: unknown;
  @ApiPropertyOptional({
    description:
      'Gateway extension: the embedding model (default text-embedding-3-small with an OpenAI key, else local-embedding-small)',
    example: 'local-embedding-small',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  embedding_model?: string;
  @ApiPropertyOptional({
    nullable: true,
    description:
      'The store expires after `days` without activity (adding documents, searching, updating); an expired store answers 400 vector_store_expired to further use',
    example: { anchor: 'last_active_at', days: 30 },
  })
  @Allow()
  expires_after?: unknown;
}

export class UpdateVectorStoreDto {
  @ApiPropertyOptional({ type: String, example: 'Support handbook v2', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  name?: string | null;
  @ApiPropertyOptional({ example: { team: 'support' }, nullable: true }) @Allow() metadata?: unknown;
  @ApiPropertyOptional({
    example: { anchor: 'last_active_at', days: 30 },
    nullable: true,
    description: 'null: the store no longer expires',
  })
  @Allow()
  expires_after?: unknown;
}

export class ExpiresAfterDto {
  @ApiProperty({ example: 'last_active_at' }) anchor: 'last_active_at';
  @ApiProperty({ example: 30 }) days: number;
}

export class FileCountsDto {
  @ApiProperty({ example: 0 }) in_progress: number;
  @ApiProperty({ example: 3 }) completed: number;
  @ApiProperty({ example: 0 }) failed: number;
  @ApiProperty({ example: 0 }) cancelled: number;
  @ApiProperty({ example: 3 }) total: number;
}

/** The expiration policy of a vector store (OpenAI's shape). */
export class VectorStoreExpiryDto {
  @ApiProperty({ enum: ['last_active_at'], example: 'last_active_at' }) anchor: 'last_active_at';
  @ApiProperty({ description: 'Days after the anchor time', example: 7 }) days: number;
}

export class VectorStoreDto {
  @ApiProperty({ example: 'vs_1a2b3c4d5e6f7a8b9c0d1e2f' }) id: string;
  @ApiProperty({ example: 'vector_store' }) object: 'vector_store';
  @ApiProperty({ example: 1767225600 }) created_at: number;
  @ApiProperty({ nullable: true, type: String, example: 'Support handbook' }) name: string | null;
  @ApiProperty({ nullable: true, type: String, example: null }) description: string | null;
  @ApiProperty({ example: 123456 }) usage_bytes: number;
  @ApiProperty({ type: FileCountsDto }) file_counts: FileCountsDto;
  @ApiProperty({ enum: ['expired', 'in_progress', 'completed'], example: 'completed' })
  status: 'expired' | 'in_progress' | 'completed';
  @ApiPropertyOptional({
    type: ExpiresAfterDto,
    description: 'Present when the store expires after a period without activity',
  })
  expires_after?: ExpiresAfterDto;
  @ApiProperty({ nullable: true, type: Number, example: null }) expires_at: number | null;
  @ApiProperty({ example: 1767225600 }) last_active_at: number;
  @ApiProperty({ nullable: true, type: Object, example: { team: 'support' } }) metadata: Record<string, string> | null;
}

export class VectorStoreListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [VectorStoreDto] }) data: VectorStoreDto[];
  @ApiProperty({ nullable: true, type: String }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String }) last_id: string | null;
  @ApiProperty({ example: false }) has_more: boolean;
}

export class DeletedDto {
  @ApiProperty({ example: 'vs_1a2b3c4d5e6f7a8b9c0d1e2f' }) id: string;
  @ApiProperty({ example: 'vector_store.deleted' }) object: string;
  @ApiProperty({ example: true }) deleted: boolean;
}

export class CreateVectorStoreFileDto {
  @ApiProperty({ example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' }) @IsString() @MaxLength(64) file_id: string;
  @ApiPropertyOptional({
    nullable: true,
    description: 'Up to 16 keys; string, number or boolean values (search filters use them)',
    example: { lang: 'en' },
  })
  @Allow()
  attributes?: unknown;
  @ApiPropertyOptional({ example: CHUNKING_EXAMPLE }) @Allow() chunking_strategy?: unknown;
}

export class UpdateVectorStoreFileDto {
  @ApiProperty({ example: { lang: 'en' }, nullable: true }) @Allow() attributes: unknown;
}

export class LastErrorDto {
  @ApiProperty({ example: 'no_text_layer' }) code: string;
  @ApiProperty({ example: 'The PDF has no text layer (a scan?)' }) message: string;
}

export class VectorStoreFileDto {
  @ApiProperty({ example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' }) id: string;
  @ApiProperty({ example: 'vector_store.file' }) object: 'vector_store.file';
  @ApiProperty({ example: 20480 }) usage_bytes: number;
  @ApiProperty({ example: 1767225600 }) created_at: number;
  @ApiProperty({ example: 'vs_1a2b3c4d5e6f7a8b9c0d1e2f' }) vector_store_id: string;
  @ApiProperty({ enum: ['in_progress', 'completed', 'failed', 'cancelled'], example: 'completed' }) status: string;
  @ApiProperty({ type: LastErrorDto, nullable: true }) last_error: LastErrorDto | null;
  @ApiProperty({ example: CHUNKING_EXAMPLE }) chunking_strategy: unknown;
  @ApiProperty({ nullable: true, type: Object, example: { lang: 'en' } }) attributes: Record<string, unknown> | null;
}

export class VectorStoreFileListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [VectorStoreFileDto] }) data: VectorStoreFileDto[];
  @ApiProperty({ nullable: true, type: String }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String }) last_id: string | null;
  @ApiProperty({ example: false }) has_more: boolean;
}

export class BatchFileDto {
  @ApiProperty({ example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' }) @IsString() @MaxLength(64) file_id: string;
  @ApiPropertyOptional({ nullable: true }) @Allow() attributes?: unknown;
  @ApiPropertyOptional() @Allow() chunking_strategy?: unknown;
}

export class CreateFileBatchDto {
  @ApiPropertyOptional({ type: [String], example: ['file-6f1c2a9b0d3e4f5a6b7c8d9e'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  file_ids?: string[];
  @ApiPropertyOptional({ type: [BatchFileDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => BatchFileDto)
  files?: BatchFileDto[];
  @ApiPropertyOptional({ nullable: true }) @Allow() attributes?: unknown;
  @ApiPropertyOptional() @Allow() chunking_strategy?: unknown;
}

export class FileBatchDto {
  @ApiProperty({ example: 'vsfb_1a2b3c4d5e6f7a8b9c0d1e2f' }) id: string;
  @ApiProperty({ example: 'vector_store.files_batch' }) object: 'vector_store.files_batch';
  @ApiProperty({ example: 1767225600 }) created_at: number;
  @ApiProperty({ example: 'vs_1a2b3c4d5e6f7a8b9c0d1e2f' }) vector_store_id: string;
  @ApiProperty({ enum: ['in_progress', 'completed', 'failed', 'cancelled'], example: 'completed' }) status: string;
  @ApiProperty({ type: FileCountsDto }) file_counts: FileCountsDto;
}

export class RankingOptionsDto {
  @ApiPropertyOptional({ example: 'auto' }) @IsOptional() @IsString() @MaxLength(64) ranker?: string;
  @ApiPropertyOptional({ example: 0.2, description: '0–1, applied to the final (cosine) score' })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  score_threshold?: number;
}

export class VectorStoreSearchDto {
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    example: 'How do I reset my password?',
  })
  @Allow()
  query: unknown;
  @ApiPropertyOptional({ example: 10, default: 10 }) @IsOptional() @IsInt() @Min(1) @Max(50) max_num_results?: number;
  @ApiPropertyOptional({
    description: 'Comparison {type: eq|ne|gt|gte|lt|lte|in|nin, key, value} or compound {type: and|or, filters}',
    example: { type: 'eq', key: 'lang', value: 'en' },
  })
  @Allow()
  filters?: unknown;
  @ApiPropertyOptional({ type: RankingOptionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => RankingOptionsDto)
  ranking_options?: RankingOptionsDto;
  @ApiPropertyOptional({ type: Boolean, description: 'Accepted; queries are not rewritten', example: false })
  @Allow()
  rewrite_query?: unknown;
}

export class SearchContentDto {
  @ApiProperty({ example: 'text' }) type: 'text';
  @ApiProperty({ example: 'To reset your password open Settings → Security.' }) text: string;
}

export class SearchResultDto {
  @ApiProperty({ example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' }) file_id: string;
  @ApiProperty({ example: 'handbook.pdf' }) filename: string;
  @ApiProperty({ example: 0.83 }) score: number;
  @ApiProperty({ nullable: true, type: Object, example: { lang: 'en' } }) attributes: Record<string, unknown> | null;
  @ApiProperty({ type: [SearchContentDto] }) content: SearchContentDto[];
}

export class SearchPageDto {
  @ApiProperty({ example: 'vector_store.search_results.page' }) object: 'vector_store.search_results.page';
  @ApiProperty({ type: [String], example: ['How do I reset my password?'], description: 'The query, as a list' })
  search_query: string[];
  @ApiProperty({ type: [SearchResultDto] }) data: SearchResultDto[];
  @ApiProperty({ example: false }) has_more: boolean;
  @ApiProperty({ nullable: true, type: String, example: null }) next_page: string | null;
}
