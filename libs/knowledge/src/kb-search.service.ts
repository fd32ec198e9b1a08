import { Injectable, Logger, Optional } from '@nestjs/common';
import { DataProtection } from '@app/data-protection';
import { ApiError, Clock } from '@app/common';
import { assertModelAllowed, type Caller } from '@app/auth';
import { AppConfig } from '@app/config';
import { BillingService, embeddingsChargeMicro, embeddingsHoldMicro, RequestHold } from '@app/billing';
import { ModelCatalogService } from '@app/providers';
import { EmbeddingsService } from '@app/embeddings';
import { KbChunkEntity, KbDocumentEntity } from './entities/knowledge.entities';
import {
  CANDIDATE_POOL,
  hybridRank,
  keywordTerms,
  LEXICAL_VECTOR_WEIGHT,
  VectorIndex,
  VectorIndexCache,
} from '@app/retrieval';
import { Attributes, Filter, matchesFilter } from './kb-rules';
import { KnowledgeRepository } from './knowledge.repository';
import type { StoreRef } from './store/knowledge-store';

export interface SearchInput {
  queries: string[];
  topK: number;
  threshold: number;
  filter: Filter | null;
}

/** A search hit with its rows (the knowledge base APIs present it). */
export interface ChunkHit {
  chunk: KbChunkEntity;
  document: KbDocumentEntity;
  score: number;
}

export interface SearchOutcome {
  hits: ChunkHit[];
  queryTokens: number;
  costMicro: number;
  elapsedMs: number;
  /** the search engine alone (index, candidates, fusion, filters), without the query embedding */
  engineMs: number;
}

/**
 * Hybrid search over one knowledge base: the vector leg (cosine over the knowledge base's chunks,
 * from a per-replica index rebuilt when the knowledge base's revision moves) and the keyword leg
 * (BM25 over the chunks' stems: FTS5 bm25 / Postgres IDF × ts_rank) give candidates, fused by
 * weighted reciprocal rank (`hybridRank`; the offline embedders' leg weighs LEXICAL_VECTOR_WEIGHT),
 * and the fused order is the result order. Each candidate's score is its exact cosine similarity to the
 * query (the rerank engine's score), whichever leg found it; the threshold applies to that score,
 * chunks with identical text are kept once, and the first top_k are returned
 * (docs/decisions/retrieval-threshold-semantics.md).
 * The query embedding is billed to the team.
 */
@Injectable()
export class KbSearchService {
  private readonly log = new Logger('KbSearch');
  private readonly cache: VectorIndexCache;
  private readonly building = new Map<string, Promise<VectorIndex>>();

  constructor(
    private readonly repo: KnowledgeRepository,
    private readonly embeddings: EmbeddingsService,
    private readonly catalog: ModelCatalogService,
    private readonly billing: BillingService,
    private readonly clock: Clock,
    config: AppConfig,
    @Optional() private readonly protection: DataProtection = new DataProtection(),
  ) {
    this.cache = new VectorIndexCache(config.kbVectorCacheBytes);
  }

  /** The largest fragment (chunk, in tokens) a search of these stores can return. */
  maxChunkTokens(stores: readonly StoreRef[]): Promise<number> {
    return this.repo.maxChunkTokens(stores.map((s) => s.id));
  }

  /** What a search of `store` for `queries` holds (its query embeddings' worst case), µRUB. */
  holdMicro(store: StoreRef, queries: string[]): number {
    const model = this.catalog.require(store.embeddingModel, 'embedding');
    const counts = this.embeddings.countTokens(queries.map((q) => q.trim()).filter(Boolean));
    return embeddingsHoldMicro(
      model.pricing,
      counts.reduce((a, b) => a + b, 0),
    );
  }

  async search(
    caller: Caller,
    store: StoreRef,
    input: SearchInput,
    requestId: string,
    endpoint: string,
    within?: RequestHold,
  ): Promise<SearchOutcome> {
    const started = performance.now();
    const model = this.catalog.require(store.embeddingModel, 'embedding');
    // the search embeds the queries with the store's model: the key must be allowed to use it
    assertModelAllowed(caller, model.key);
    const queries = input.queries.map((q) => q.trim()).filter(Boolean);
    if (queries.length === 0) throw ApiError.badRequest('query must not be empty.', 'query');
    // the store's embedder is under the caller's data policy (residency, personal data in the queries)
    const protection = this.protection.forRequest(caller, requestId);
    protection.assertAllowed(model);
    protection.screenFor(model, queries, 'query');
    const counts = this.embeddings.countTokens(queries);
    const { result, charged } = await this.billing.meter({
      teamId: caller.teamId,
      caller,
      requestId,
      holdMicro: embeddingsHoldMicro(
        model.pricing,
        counts.reduce((a, b) => a + b, 0),
      ),
      within: within ? { hold: within } : undefined,
      run: () =>
        this.embeddings.embed(
          model,
          queries,
          model.dimensions === store.dimensions ? undefined : store.dimensions,
          undefined,
          counts,
          'query',
          protection,
        ),
      charge: (r) => ({
        costMicro: embeddingsChargeMicro(model.pricing, r.tokens),
        details: {
          endpoint,
          model: model.key,
          apiKeyId: caller.apiKeyId,
          promptTokens: r.tokens,
          completionTokens: 0,
          fx: model.fx ?? null,
          breakdown: { vector_store_id: store.id, queries: queries.length },
        },
      }),
    });
    const queryVectors = result.vectors;
    const queryTokens = result.tokens;
    const costMicro = charged?.chargedMicro ?? 0;
    const engineStart = performance.now();
    // the offline embedders' vectors are hashed stems, a weaker copy of the keyword leg: they weigh less
    const vectorWeight = model.provider === 'local' ? LEXICAL_VECTOR_WEIGHT : 1;
    const hits = await this.rank(store, queries, queryVectors, input, vectorWeight);
    const engineMs = performance.now() - engineStart;
    const elapsedMs = performance.now() - started;
    this.log.debug(`search ${store.id}: ${hits.length} hit(s), engine ${engineMs.toFixed(1)} ms`);
    return { hits, queryTokens, costMicro, elapsedMs, engineMs };
  }

  /** The search engine proper (no billing, no provider): fused candidates → threshold on cosine → dedupe → top_k. */
  async rank(
    store: StoreRef,
    queries: string[],
    queryVectors: Float32Array[],
    input: SearchInput,
    vectorWeight = 1,
  ): Promise<ChunkHit[]> {
    const index = await this.index(store);
    if (index.size === 0) return [];
    const keywordIds = await this.repo.keywordSearch(
      store.id,
      keywordTerms(queries.join(' ')),
      CANDIDATE_POOL,
      index.revision,
    );
    const candidates = hybridRank(index, queryVectors, keywordIds, { vectorWeight })
      .filter((c) => c.score >= input.threshold)
      .map((c) => ({ id: c.id, documentId: index.documentIds[c.row], hash: index.hashes[c.row], score: c.score }));

    const docs = new Map(
      (await this.repo.documentsByIds(store.id, [...new Set(candidates.map((c) => c.documentId))])).map((d) => [
        d.id,
        d,
      ]),
    );
    const seen = new Set<string>();
    const kept: typeof candidates = [];
    for (const c of candidates) {
      const doc = docs.get(c.documentId);
      if (!doc || seen.has(c.hash)) continue;
      if (!matchesFilter(input.filter, doc.attributes ? (JSON.parse(doc.attributes) as Attributes) : null)) continue;
      seen.add(c.hash);
      kept.push(c);
      if (kept.length === input.topK) break;
    }
    const chunks = new Map((await this.repo.chunksByIds(kept.map((c) => c.id))).map((c) => [Number(c.id), c]));
    return kept
      .filter((c) => chunks.has(c.id))
      .map((c) => ({ chunk: chunks.get(c.id)!, document: docs.get(c.documentId)!, score: c.score }));
  }

  private async index(store: StoreRef): Promise<VectorIndex> {
    const revision = (await this.repo.storeRevision(store.id)) ?? store.revision;
    const cached = this.cache.get(store.id, revision);
    if (cached) return cached;
    const key = `${store.id}@${revision}`;
    let p = this.building.get(key);
    if (!p) {
      p = this.repo.loadVectors(store.id).then((rows) => {
        const idx = new VectorIndex(revision, store.dimensions, rows);
        this.cache.set(store.id, idx);
        return idx;
      });
      this.building.set(key, p);
      void p.finally(() => this.building.delete(key)).catch(() => undefined);
    }
    return p;
  }
}
