import { Injectable } from '@nestjs/common';
import { ApiError, microToRub, SharedCache, totalCost } from '@app/common';
import type { Caller } from '@app/auth';
import { CohereRerankRequestDto } from './dto/cohere-rerank.dto';
import { CohereRerankResponseDto } from './dto/cohere-rerank-response.dto';
import { CacheStatsDto, RERANK_LIMITS, RerankRequestDto, RerankResponseDto } from './dto/rerank.dto';
import { RerankItem } from './engine';
import { RerankService } from './rerank.service';

/**
 * The rerank endpoints' rules (defaults, Cohere document validation, response assembly and timing),
 * so the controllers only translate HTTP: /api/v1/rerank (REST), /v1/rerank (Cohere/Jina),
 * cache statistics.
 */
@Injectable()
export class RerankApiService {
  constructor(
    private readonly rerank: RerankService,
    private readonly sharedCache: SharedCache,
  ) {}

  async rest(caller: Caller, body: RerankRequestDto, requestId: string): Promise<RerankResponseDto> {
    const started = process.hrtime.bigint();
    const columns = { column_to_embed: body.column_to_embed ?? null, column_id: body.column_id ?? null };
    const size = body.model ?? 'small';
    const threshold = body.similarity_threshold ?? 0;
    const topK = body.top_k ?? 10;
    const caching = body.caching ?? true;
    const parsed = this.rerank.parseContent(body.content, columns);
    const out = await this.rerank.rerank(
      caller,
      { query: body.query, parsed, size, threshold, topK, caching, columns, endpoint: '/api/v1/rerank' },
      requestId,
    );
    return {
      query: body.query,
      results: out.ranked.results,
      total_documents: out.ranked.total_documents,
      filtered_documents: out.ranked.filtered_documents,
      returned_documents: out.ranked.returned_documents,
      model_info: { model: size, embedding_model: out.embeddingModel, dimensions: out.dimensions },
      cache_info: {
        from_cache: out.cacheHit,
        cache_hit: out.cacheHit,
        tokens_used: out.documentTokens,
        cached_tokens: out.cachedTokens,
        cache_enabled: caching,
        cache_status: out.cacheStatus,
      },
      usage: {
        query_tokens: out.queryTokens,
        document_tokens: out.documentTokens,
        total_tokens: out.queryTokens + out.documentTokens,
        cost_rub: microToRub(out.chargedMicro),
      },
      cost: totalCost(out.chargedMicro),
      parameters: {
        similarity_threshold: threshold,
        top_k: topK,
        model: size,
        column_to_embed: columns.column_to_embed,
        column_id: columns.column_id,
      },
      processing_time_seconds: Number((Number(process.hrtime.bigint() - started) / 1e9).toFixed(6)),
    };
  }

  /** Cohere / Jina: documents are strings or {text}; all are returned (no threshold), top_n caps them. */
  async cohere(caller: Caller, body: CohereRerankRequestDto, requestId: string): Promise<CohereRerankResponseDto> {
    if (body.documents.length > RERANK_LIMITS.maxItems)
      throw ApiError.tooLarge(`At most ${RERANK_LIMITS.maxItems} documents per request.`, 'documents');
    const items: RerankItem[] = body.documents.map((d, i) => {
      const text =
        typeof d === 'string'
          ? d
          : typeof d === 'object' && d !== null && typeof (d as { text?: unknown }).text === 'string'
            ? (d as { text: string }).text
            : null;
      if (text === null)
        throw ApiError.badRequest(
          `documents[${i}] must be a string or an object with a "text" string.`,
          `documents[${i}]`,
        );
      return { id: String(i), data: text, metadata: {} };
    });
    const size = /large/i.test(body.model ?? '') ? 'large' : 'small';
    const topK = Math.min(body.top_n ?? items.length, items.length);
    const out = await this.rerank.rerank(
      caller,
      {
        query: body.query,
        parsed: { form: 'documents', items },
        size,
        threshold: -1,
        topK,
        caching: true,
        columns: {},
        endpoint: '/v1/rerank',
      },
      requestId,
    );
    const total = out.queryTokens + out.documentTokens;
    return {
      id: requestId,
      model: body.model ?? size,
      results: out.ranked.results.map((r) => ({
        index: Number(r.id),
        relevance_score: r.similarity_score,
        ...(body.return_documents ? { document: { text: r.data } } : {}),
      })),
      meta: { api_version: { version: '1' }, billed_units: { search_units: 1, input_tokens: total } },
      usage: { total_tokens: total },
      // gateway extension, as on every other endpoint: what the ledger charged
      cost: totalCost(out.chargedMicro),
    };
  }

  async cacheStats(caller: Caller): Promise<CacheStatsDto> {
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
}
