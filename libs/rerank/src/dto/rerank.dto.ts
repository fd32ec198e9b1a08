import { CostBreakdownDto } from '@app/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Max, Min } from 'class-validator';

export const RERANK_LIMITS = { maxItems: 10_000, maxTextBytes: 20 * 1024 * 1024, maxTopK: 1000 } as const;

/** POST /api/v1/rerank: a query and documents, text or table rows to order by similarity. */
export class RerankRequestDto {
  @ApiProperty({ description: 'Search query (non-empty)', example: 'how do I reset my password?' })
  @IsString()
  query: string;

  @ApiProperty({
    description:
      'Plain text (chunked: 1000-character windows every 800 characters), an array of documents {id, data, metadata}, or a table (array of flat row objects). At most 10,000 documents/chunks and 20 MB of text.',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }],
    example: [
      { id: 'doc-1', data: 'To reset your password open Settings → Security.', metadata: { lang: 'en' } },
      { id: 'doc-2', data: 'Invoices are sent on the first day of the month.', metadata: {} },
    ],
  })
  @Allow()
  content: unknown;

  @ApiPropertyOptional({
    enum: ['small', 'large'],
    default: 'small',
    description: 'small = 1536 dimensions, large = 3072',
  })
  @IsOptional()
  @IsIn(['small', 'large'])
  model?: 'small' | 'large';

  @ApiPropertyOptional({
    default: 0,
    minimum: 0,
    maximum: 1,
    description: 'Drop documents scoring below this cosine similarity',
  })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  similarity_threshold?: number;

  @ApiPropertyOptional({ default: 10, minimum: 1, maximum: RERANK_LIMITS.maxTopK })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(RERANK_LIMITS.maxTopK)
  top_k?: number;

  @ApiPropertyOptional({ default: true, description: 'Use the per-API-key embedding cache (12 h)' })
  @IsOptional()
  @IsBoolean()
  caching?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: null,
    description:
      'Tables only (content is an array of flat rows): column whose value is embedded and returned as data, e.g. "text"',
  })
  @IsOptional()
  @IsString()
  column_to_embed?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: null,
    description: 'Tables only: column holding row ids, e.g. "id"',
  })
  @IsOptional()
  @IsString()
  column_id?: string | null;
}

export class RerankResultDto {
  @ApiProperty({ example: 1 }) rank: number;
  @ApiProperty({ example: 'doc-1' }) id: string;
  @ApiProperty({ example: 'To reset your password open Settings → Security.' }) data: string;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { lang: 'en' } }) metadata: Record<
    string,
    unknown
  >;
  @ApiProperty({ example: 0.8734 }) similarity_score: number;
  @ApiProperty({ example: '87.3%' }) similarity_percentage: string;
}

export class RerankModelInfoDto {
  @ApiProperty({ example: 'small' }) model: string;
  @ApiProperty({
    description: 'Catalog key of the embedding model used (text-embedding-3-* or the local lexical embedder)',
    example: 'text-embedding-3-small',
  })
  embedding_model: string;
  @ApiProperty({ example: 1536 }) dimensions: number;
}

export class RerankCacheInfoDto {
  @ApiProperty({ example: false }) from_cache: boolean;
  @ApiProperty({ example: false }) cache_hit: boolean;
  @ApiProperty({ description: 'Document tokens embedded in this request (0 on a hit)', example: 154 })
  tokens_used: number;
  @ApiProperty({ description: 'Document tokens now held in the cache (miss) or saved by it (hit)', example: 154 })
  cached_tokens: number;
  @ApiProperty({ example: true }) cache_enabled: boolean;
  @ApiProperty({
    enum: ['hit', 'stored', 'disabled', 'unavailable'],
    description: 'Extension: what the cache did',
    example: 'stored',
  })
  cache_status: string;
}

export class RerankUsageDto {
  @ApiProperty({ example: 9 }) query_tokens: number;
  @ApiProperty({ description: 'Document tokens embedded in this request (0 on a cache hit)', example: 154 })
  document_tokens: number;
  @ApiProperty({ example: 163 }) total_tokens: number;
  @ApiProperty({ description: 'Charged to the balance', example: 0.0326 }) cost_rub: number;
}

export class RerankParametersDto {
  @ApiProperty({ example: 0 }) similarity_threshold: number;
  @ApiProperty({ example: 10 }) top_k: number;
  @ApiProperty({ example: 'small' }) model: string;
  @ApiProperty({ nullable: true, type: String, example: null }) column_to_embed: string | null;
  @ApiProperty({ nullable: true, type: String, example: null }) column_id: string | null;
}

/** POST /api/v1/rerank answer: the kept results best first, with usage, cost and cache info. */
export class RerankResponseDto {
  @ApiProperty({ example: 'how do I reset my password?' }) query: string;
  @ApiProperty({ type: [RerankResultDto] }) results: RerankResultDto[];
  @ApiProperty({ example: 2 }) total_documents: number;
  @ApiProperty({ example: 2 }) filtered_documents: number;
  @ApiProperty({ example: 2 }) returned_documents: number;
  @ApiProperty({ type: RerankModelInfoDto }) model_info: RerankModelInfoDto;
  @ApiProperty({ type: RerankCacheInfoDto }) cache_info: RerankCacheInfoDto;
  @ApiProperty({ type: RerankUsageDto }) usage: RerankUsageDto;
  @ApiProperty({ type: CostBreakdownDto, description: 'Gateway extension: what the ledger charged (= usage.cost_rub)' })
  cost: CostBreakdownDto;
  @ApiProperty({ type: RerankParametersDto }) parameters: RerankParametersDto;
  @ApiProperty({ example: 0.042 }) processing_time_seconds: number;
}

export class CacheStatsDto {
  @ApiProperty({ description: 'Live cache entries of the calling API key', example: 3 }) entries: number;
  @ApiProperty({ description: 'Bytes of embeddings held (float32)', example: 1843200 }) total_bytes: number;
  @ApiProperty({ example: 12 }) hits: number;
  @ApiProperty({ example: 3 }) misses: number;
  @ApiProperty({ description: 'hits / (hits + misses), 0 when there were none', example: 0.8 }) hit_rate: number;
  @ApiProperty({ description: 'Document tokens not re-embedded thanks to hits', example: 18200 }) tokens_saved: number;
  @ApiProperty({ description: 'RUB not charged thanks to hits', example: 3.64 }) rub_saved: number;
  @ApiProperty({ nullable: true, type: String, example: '2026-11-21T22:00:00.000Z' }) oldest_expiry: string | null;
  @ApiProperty({ nullable: true, type: String, example: '2026-11-21T23:30:00.000Z' }) newest_expiry: string | null;
  @ApiProperty({ description: 'Entry lifetime in seconds (RERANK_CACHE_TTL_SECONDS)', example: 43200 })
  ttl_seconds: number;
  @ApiProperty({ enum: ['redis', 'memory'], example: 'redis' }) backend: string;
}

export class CacheClearedDto {
  @ApiProperty({ example: 3 }) deleted: number;
}
