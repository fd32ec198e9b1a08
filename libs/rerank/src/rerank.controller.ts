import { Body, Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { microToRub, SharedCache } from '@app/common';
import { ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { CacheClearedDto, CacheStatsDto, RerankRequestDto, RerankResponseDto } from './dto/rerank.dto';
import { RerankService } from './rerank.service';

@ApiTags('Rerank')
@ApiKeyAuth()
@Controller('api/v1/rerank')
export class RerankController {
  constructor(
    private readonly rerank: RerankService,
    private readonly sharedCache: SharedCache,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Rerank documents, chunks of a text, or table rows by cosine similarity to a query (spec 2.3/2.4)' })
  @ApiBody({ type: RerankRequestDto })
  @ApiOkResponse({ type: RerankResponseDto })
  @ApiResponse({ status: 413, description: 'More than 10,000 documents/chunks or 20 MB of text' })
  async rerankDocuments(@CurrentCaller() caller: Caller, @Body() body: RerankRequestDto, @Req() req: Request): Promise<RerankResponseDto> {
    const started = process.hrtime.bigint();
    const columns = { column_to_embed: body.column_to_embed ?? null, column_id: body.column_id ?? null };
    const size = body.model ?? 'small';
    const threshold = body.similarity_threshold ?? 0;
    const topK = body.top_k ?? 10;
    const caching = body.caching ?? true;
    const parsed = this.rerank.parseContent(body.content, columns);
    const out = await this.rerank.rerank(caller, { query: body.query, parsed, size, threshold, topK, caching, columns, endpoint: '/api/v1/rerank' }, String(req.id));
    return {
      query: body.query,
      results: out.ranked.results,
      total_documents: out.ranked.total_documents,
      filtered_documents: out.ranked.filtered_documents,
      returned_documents: out.ranked.returned_documents,
      model_info: { model: size, embedding_model: out.embeddingModel, dimensions: out.dimensions },
      cache_info: { from_cache: out.cacheHit, cache_hit: out.cacheHit, tokens_used: out.documentTokens, cached_tokens: out.cachedTokens, cache_enabled: caching, cache_status: out.cacheStatus },
      usage: { query_tokens: out.queryTokens, document_tokens: out.documentTokens, total_tokens: out.queryTokens + out.documentTokens, cost_rub: microToRub(out.chargedMicro) },
      parameters: { similarity_threshold: threshold, top_k: topK, model: size, column_to_embed: columns.column_to_embed, column_id: columns.column_id },
      processing_time_seconds: Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(6)),
    };
  }

  @Get('cache-stats')
  @ApiOperation({ summary: "Statistics of the calling API key's rerank cache" })
  @ApiOkResponse({ type: CacheStatsDto })
  async cacheStats(@CurrentCaller() caller: Caller): Promise<CacheStatsDto> {
    const s = await this.rerank.stats(caller);
    return {
      entries: s.entries,
      total_bytes: s.totalBytes,
      hits: s.hits,
      misses: s.misses,
      hit_rate: s.hits + s.misses === 0 ? 0 : Number((s.hits / (s.hits + s.misses)).toFixed(4)),
      tokens_saved: s.tokensSaved,
      rub_saved: microToRub(s.rubSavedMicro),
      oldest_expiry: s.oldestExpiry === null ? null : new Date(s.oldestExpiry).toISOString(),
      newest_expiry: s.newestExpiry === null ? null : new Date(s.newestExpiry).toISOString(),
      ttl_seconds: this.rerank.cacheTtlSeconds,
      backend: this.sharedCache.backend,
    };
  }

  @Delete('cache')
  @HttpCode(200)
  @ApiOperation({ summary: "Clear the calling API key's rerank cache (other keys are untouched)" })
  @ApiOkResponse({ type: CacheClearedDto })
  async clearCache(@CurrentCaller() caller: Caller): Promise<CacheClearedDto> {
    return { deleted: await this.rerank.clear(caller) };
  }
}
