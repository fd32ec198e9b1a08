import type { DataProtection, RequestProtection } from '@app/data-protection';
import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { endianness } from 'node:os';
import { ApiError, BackgroundCalls, Clock } from '@app/common';
import { BillingService, embeddingsChargeMicro, embeddingsHoldMicro } from '@app/billing';
import { ModelCatalogService, ModelEntry } from '@app/providers';
import { EmbeddingsService } from '@app/embeddings';
import { encodeVector } from '@app/retrieval';
import type { KbDocumentEntity } from '../entities/knowledge.entities';
import type { KnowledgeRepository } from '../knowledge.repository';

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * The stored form of a vector: on little-endian machines the Float32Array's own bytes, shared
 * rather than copied (nothing writes to the vectors afterwards), so a document's vectors are not
 * held twice while they are written.
 */
const vectorBytes = (v: Float32Array): Buffer =>
  LITTLE_ENDIAN ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : encodeVector(v);

/** Embeds a document's chunks for ingestion, reusing the vectors its knowledge base holds, metered and billed to the team. */
export class ChunkEmbedder {
  private readonly log = new Logger('Ingestion');

  constructor(
    private readonly repo: KnowledgeRepository,
    private readonly embeddings: EmbeddingsService,
    private readonly catalog: ModelCatalogService,
    private readonly billing: BillingService,
    private readonly clock: Clock,
    private readonly protection: DataProtection,
    /** the request log's record of each embedding call */
    private readonly calls?: BackgroundCalls,
  ) {}

  /**
   * Vectors by content hash: reused from this knowledge base when the same text was embedded before,
   * else embedded now, the tokens billed to the team (reserve → embed → settle; release on failure).
   */
  async embed(
    doc: KbDocumentEntity,
    modelKey: string,
    dimensions: number,
    chunks: { contentHash: string; text: string; tokens: number }[],
    chargeKey: string,
  ): Promise<Map<string, Buffer>> {
    const vectors = await this.repo.embeddingsByHash(doc.vectorStoreId, [...new Set(chunks.map((c) => c.contentHash))]);
    const todo = new Map<string, { text: string; tokens: number }>();
    for (const c of chunks) if (!vectors.has(c.contentHash) && !todo.has(c.contentHash)) todo.set(c.contentHash, c);
    if (todo.size === 0) return vectors;
    const model = this.catalog.require(modelKey, 'embedding', doc.teamId);
    const items = [...todo.entries()];
    const texts = items.map(([, c]) => c.text);
    // counted by the chunker with the same encoding (in its worker): for batching and the hold only
    const counts = items.map(([, c]) => c.tokens);
    const requestId = `ingest-${doc.id}-${this.clock.now()}`;
    const started = performance.now();
    const report = (status: number, errorCode: string | null, tokens: number, costMicro: number): void =>
      this.calls?.report({
        requestId,
        teamId: doc.teamId,
        endpoint: 'knowledge-base ingestion',
        model: model.key,
        status,
        errorCode,
        inputTokens: tokens,
        costMicro,
        latencyMs: performance.now() - started,
        knowledgeBaseId: doc.vectorStoreId,
        fx: model.fx ?? null,
      });
    let metered;
    try {
      // the team's data policy: residency of the store's embedder, personal data in the chunks blocked or masked
      const protection = await this.protection.forTeam(doc.teamId);
      metered = await this.meterEmbedding(
        doc,
        model,
        texts,
        counts,
        chunks.length,
        dimensions,
        requestId,
        chargeKey,
        protection,
      );
    } catch (err) {
      report(
        err instanceof ApiError ? err.status : 500,
        err instanceof ApiError ? (err.code ?? null) : 'internal_error',
        0,
        0,
      );
      throw err;
    }
    report(200, null, metered.result.tokens, metered.charged?.chargedMicro ?? 0);
    const { result } = metered;
    items.forEach(([hash], i) => vectors.set(hash, vectorBytes(result.vectors[i])));
    this.log.log(
      `ingest ${doc.vectorStoreId}/${doc.id}: embedded ${texts.length} chunk(s), ${result.tokens} tokens (${model.key})` +
        (metered.charged?.alreadyCharged ? ', charged before by an earlier run of this job: not charged again' : ''),
    );
    return vectors;
  }

  private meterEmbedding(
    doc: KbDocumentEntity,
    model: ModelEntry,
    texts: string[],
    counts: number[],
    chunkCount: number,
    dimensions: number,
    requestId: string,
    chargeKey: string,
    protection: RequestProtection,
  ) {
    return this.billing.meter({
      teamId: doc.teamId,
      requestId,
      chargeKey,
      holdMicro: embeddingsHoldMicro(
        model.pricing,
        counts.reduce((a, b) => a + b, 0),
      ),
      run: () =>
        this.embeddings.embed(
          model,
          texts,
          model.dimensions === dimensions ? undefined : dimensions,
          undefined,
          counts,
          'document',
          protection,
        ),
      charge: (r) => ({
        costMicro: embeddingsChargeMicro(model.pricing, r.tokens),
        details: {
          endpoint: 'knowledge-base ingestion',
          model: model.key,
          apiKeyId: null,
          promptTokens: r.tokens,
          completionTokens: 0,
          fx: model.fx ?? null,
          breakdown: {
            vector_store_id: doc.vectorStoreId,
            document_id: doc.id,
            chunks_embedded: texts.length,
            chunks_reused: chunkCount - texts.length,
          },
        },
      }),
    });
  }
}
