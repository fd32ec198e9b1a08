import { Injectable, Logger, Optional } from '@nestjs/common';
import { DataProtection } from '@app/data-protection';
import { ApiError, MetricsService } from '@app/common';
import { assertModelAllowed, modelAllowed, type Caller } from '@app/auth';
import { BillingService, RequestHold, rerankChargeMicro, rerankHoldMicro } from '@app/billing';
import { ModelCatalogService, ModelEntry, policyAllowsModel } from '@app/providers';
import {
  ContentFormError,
  fingerprintContent,
  ParsedContent,
  parseRerankContent,
  rankResults,
  RankedResults,
  TableColumnOptions,
} from './engine';
import { EmbeddingsService } from '@app/embeddings';
import { RerankCacheStore } from './rerank-cache.store';
import { RERANK_LIMITS } from './dto/rerank.dto';

export type RerankSize = 'small' | 'large';

/** Spec section 8: rerank price per 1M tokens. */
export const RERANK_DIMENSIONS: Record<RerankSize, number> = { small: 1536, large: 3072 };
/** Remote embedding models by size; the local lexical embedder when the provider has no credentials. */
const REMOTE_MODEL: Record<RerankSize, string> = { small: 'text-embedding-3-small', large: 'text-embedding-3-large' };
const LOCAL_MODEL: Record<RerankSize, string> = { small: 'local-embedding-small', large: 'local-embedding-large' };

export interface RerankInput {
  query: string;
  parsed: ParsedContent;
  size: RerankSize;
  threshold: number;
  topK: number;
  caching: boolean;
  columns: TableColumnOptions;
  endpoint: string;
  /** the request's hold this rerank's hold is taken out of (a RAG chat), instead of the balance */
  within?: RequestHold;
}

export interface RerankOutcome {
  ranked: RankedResults;
  embeddingModel: string;
  dimensions: number;
  cacheHit: boolean;
  cacheStatus: 'hit' | 'stored' | 'disabled' | 'unavailable';
  queryTokens: number;
  /** document tokens embedded by this request (0 on a hit) */
  documentTokens: number;
  /** document tokens held by (miss) or saved by (hit) the cache */
  cachedTokens: number;
  chargedMicro: number;
}

/**
 * Rerank engine shared by /api/v1/rerank and /v1/rerank: parse → fingerprint → cache lookup →
 * reserve → embed query (+ documents on a miss, batched) → cosine rank → settle → cache fill.
 * Billing: miss = (query + document tokens) × price; hit = query tokens × price.
 */
@Injectable()
export class RerankService {
  private readonly logger = new Logger('Rerank');

  constructor(
    private readonly catalog: ModelCatalogService,
    private readonly embeddings: EmbeddingsService,
    private readonly cache: RerankCacheStore,
    private readonly billing: BillingService,
    private readonly metrics: MetricsService = new MetricsService(),
    @Optional() private readonly protection: DataProtection = new DataProtection(),
  ) {}

  /** Parses and validates `content` (400 naming the problem, 413 beyond the limits). */
  parseContent(content: unknown, columns: TableColumnOptions): ParsedContent {
    if (typeof content === 'string' && Buffer.byteLength(content, 'utf8') > RERANK_LIMITS.maxTextBytes) {
      throw ApiError.tooLarge(`content exceeds ${RERANK_LIMITS.maxTextBytes / 1024 / 1024} MB of text.`, 'content');
    }
    let parsed: ParsedContent;
    try {
      parsed = parseRerankContent(content, columns);
    } catch (err) {
      if (err instanceof ContentFormError) throw ApiError.badRequest(err.message, err.param, 'invalid_content');
      throw err;
    }
    if (parsed.items.length > RERANK_LIMITS.maxItems) {
      throw ApiError.tooLarge(
        `At most ${RERANK_LIMITS.maxItems} documents or chunks per request (got ${parsed.items.length}).`,
        'content',
      );
    }
    let bytes = 0;
    for (const it of parsed.items) bytes += Buffer.byteLength(it.data, 'utf8');
    if (parsed.form !== 'text' && bytes > RERANK_LIMITS.maxTextBytes)
      throw ApiError.tooLarge(`content exceeds ${RERANK_LIMITS.maxTextBytes / 1024 / 1024} MB of text.`, 'content');
    return parsed;
  }

  /**
   * The embedding model of a rerank of `size`: the remote one when it is configured and the
   * caller's data policy lets the call reach it (residency), else the local one.
   */
  embeddingModelFor(size: RerankSize, caller?: Caller): ModelEntry {
    const remote = this.catalog.find(REMOTE_MODEL[size]);
    if (
      remote &&
      remote.kind === 'embedding' &&
      this.catalog.isAvailable(remote) &&
      policyAllowsModel(caller?.dataPolicy, remote)
    )
      return remote;
    return this.catalog.require(LOCAL_MODEL[size], 'embedding');
  }

  /**
   * 403 model_not_allowed unless the caller's key may use the rerank of `size`: the allowlist names
   * rerank models by their size ("small", "large") or by the embedding model's key.
   */
  assertAllowed(caller: Caller, size: RerankSize): void {
    if (!modelAllowed(caller, size)) assertModelAllowed(caller, this.embeddingModelFor(size, caller).key);
  }

  /** What a rerank of `tokens` (query and documents, as counted) holds at most, µRUB. */
  holdMicro(size: RerankSize, tokens: number): number {
    return rerankHoldMicro(this.embeddingModelFor(size).pricing, tokens);
  }

  /** Tokens of texts as the rerank counts them. */
  countTokens(texts: string[]): number {
    return this.embeddings.countTokens(texts).reduce((a, b) => a + b, 0);
  }

  async rerank(caller: Caller, input: RerankInput, requestId: string, signal?: AbortSignal): Promise<RerankOutcome> {
    if (input.query.trim() === '') throw ApiError.badRequest('query must not be empty.', 'query');
    const model = this.embeddingModelFor(input.size, caller);
    this.assertAllowed(caller, input.size);
    // a remote embedder is under the caller's data policy (residency, personal data)
    const protection = this.protection.forRequest(caller, requestId);
    protection.assertAllowed(model);
    protection.screenFor(model, [input.query, ...input.parsed.items.map((i) => i.data)], 'query');
    const dims = model.dimensions ?? RERANK_DIMENSIONS[input.size];
    const queryCount = this.embeddings.countTokens([input.query])[0];
    if (queryCount > model.context_window) {
      throw ApiError.badRequest(
        `query is longer than the embedding model's ${model.context_window}-token limit.`,
        'query',
        'context_length_exceeded',
      );
    }

    const fingerprint = fingerprintContent(input.parsed, dims, input.columns);
    const read = input.caching ? await this.cache.get(caller.apiKeyId, model.key, fingerprint) : null;
    const hit = read?.status === 'hit' ? read.entry : null;
    if (read) this.metrics.rerankCache(read.status);

    const texts = input.parsed.items.map((i) => i.data);
    const docCounts = hit ? [] : this.embeddings.countTokens(texts);
    const estimate = queryCount + docCounts.reduce((a, b) => a + b, 0);
    // the price is the embedding model's catalog price (spec section 8: small 200, large 780 RUB / 1M)
    const { result, charged } = await this.billing.meter({
      teamId: caller.teamId,
      caller,
      requestId,
      holdMicro: rerankHoldMicro(model.pricing, estimate),
      within: input.within ? { hold: input.within } : undefined,
      run: async () => {
        const q = await this.embeddings.embed(model, [input.query], dims, signal, undefined, 'query', protection);
        let documentTokens = 0;
        let docVectors: Float32Array[];
        if (hit) {
          docVectors = hit.vectors;
        } else {
          const truncated = texts.map((t, i) =>
            docCounts[i] > model.context_window ? this.embeddings.truncate(t, model.context_window) : t,
          );
          const d = await this.embeddings.embed(
            model,
            truncated,
            dims,
            signal,
            docCounts.map((c) => Math.min(c, model.context_window)),
            'document',
            protection,
          );
          documentTokens = d.tokens;
          docVectors = d.vectors;
        }
        return {
          queryTokens: q.tokens,
          documentTokens,
          docVectors,
          ranked: rankResults(input.parsed.items, q.vectors[0], docVectors, {
            threshold: input.threshold,
            topK: input.topK,
          }),
        };
      },
      charge: (r) => ({
        costMicro: rerankChargeMicro(model.pricing, r),
        details: {
          endpoint: input.endpoint,
          model: `rerank-${input.size}`,
          apiKeyId: caller.apiKeyId,
          promptTokens: r.queryTokens + r.documentTokens,
          completionTokens: 0,
          fx: model.fx ?? null,
          breakdown: {
            query_tokens: r.queryTokens,
            document_tokens: r.documentTokens,
            cache_hit: hit !== null,
            embedding_model: model.key,
            documents: texts.length,
          },
        },
      }),
    });
    const { queryTokens, documentTokens, docVectors, ranked } = result;
    const chargedMicro = charged?.chargedMicro ?? 0;

    let cacheStatus: RerankOutcome['cacheStatus'] = !input.caching ? 'disabled' : hit ? 'hit' : 'unavailable';
    let cachedTokens = 0;
    if (input.caching && hit) {
      cachedTokens = hit.documentTokens;
      await this.cache.recordHit(
        caller.apiKeyId,
        hit.documentTokens,
        // what the hit saved: the documents' tokens (the fee per call is paid either way)
        rerankChargeMicro(
          { input_rub_per_1m: model.pricing.input_rub_per_1m },
          { queryTokens: 0, documentTokens: hit.documentTokens },
        ),
      );
    } else if (input.caching && read?.status === 'miss' && docVectors) {
      const stored = await this.cache.put(caller.apiKeyId, model.key, fingerprint, {
        dimensions: dims,
        count: docVectors.length,
        documentTokens,
        embeddingModel: model.key,
        vectors: docVectors,
      });
      if (stored) {
        cacheStatus = 'stored';
        cachedTokens = documentTokens;
        await this.cache.recordMiss(caller.apiKeyId);
      }
    }
    if (cacheStatus === 'unavailable') this.logger.warn({ requestId }, 'rerank cache unavailable: answered uncached');
    return {
      ranked,
      embeddingModel: model.key,
      dimensions: dims,
      cacheHit: hit !== null,
      cacheStatus,
      queryTokens,
      documentTokens,
      cachedTokens,
      chargedMicro,
    };
  }

  stats(caller: Caller): ReturnType<RerankCacheStore['stats']> {
    return this.cache.stats(caller.apiKeyId);
  }

  clear(caller: Caller): Promise<number> {
    return this.cache.clear(caller.apiKeyId);
  }

  get cacheTtlSeconds(): number {
    return Math.round(this.cache.ttlMs / 1000);
  }
}
