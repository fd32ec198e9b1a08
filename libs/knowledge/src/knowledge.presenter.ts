/** Entities → the two public shapes: OpenAI vector stores, and the REST knowledge-base API. */
import { DocumentStatus, FileBatchEntity, KbDocumentEntity } from './entities/knowledge.entities';
import { microToRub, totalCost } from '@app/common';
import { formatPercentage, roundScore } from '@app/retrieval';
import { chunkingObject, decodeChunking } from './kb-rules';
import type { ChunkHit, SearchOutcome } from './kb-search.service';
import { expiryTime, isExpired, StoreView } from './knowledge.service';
import {
  FileBatchDto,
  FileCountsDto,
  SearchPageDto,
  VectorStoreDto,
  VectorStoreFileDto,
} from './dto/vector-stores.dto';
import type { KbSearchResponseDto } from './dto/knowledge-bases.dto';

const seconds = (ms: number): number => Math.floor(ms / 1000);
const json = <T>(s: string | null): T | null => (s ? (JSON.parse(s) as T) : null);

/** OpenAI has no "queued": a queued document is in progress. */
export const openAiStatus = (s: DocumentStatus): 'in_progress' | 'completed' | 'failed' | 'cancelled' =>
  s === 'queued' ? 'in_progress' : s;

export function fileCounts(byStatus: Record<DocumentStatus, number>): FileCountsDto {
  const inProgress = byStatus.queued + byStatus.in_progress;
  return {
    in_progress: inProgress,
    completed: byStatus.completed,
    failed: byStatus.failed,
    cancelled: byStatus.cancelled,
    total: inProgress + byStatus.completed + byStatus.failed + byStatus.cancelled,
  };
}

export function toVectorStore(v: StoreView): VectorStoreDto {
  const counts = fileCounts(v.stats.byStatus);
  return {
    id: v.store.id,
    object: 'vector_store',
    created_at: seconds(v.store.createdAt),
    name: v.store.name,
    description: v.store.description,
    usage_bytes: v.stats.usageBytes,
    file_counts: counts,
    status: isExpired(v.store, v.now) ? 'expired' : counts.in_progress > 0 ? 'in_progress' : 'completed',
    // OpenAI's schema has no null for expires_after: a store that never expires leaves it out
    ...(v.store.expiresAfterDays !== null
      ? { expires_after: { anchor: 'last_active_at' as const, days: v.store.expiresAfterDays } }
      : {}),
    expires_at: seconds(expiryTime(v.store) ?? 0) || null,
    last_active_at: seconds(v.store.lastActiveAt),
    metadata: json(v.store.metadata),
  };
}

export function toVectorStoreFile(d: KbDocumentEntity): VectorStoreFileDto {
  return {
    id: d.id,
    object: 'vector_store.file',
    usage_bytes: d.usageBytes,
    created_at: seconds(d.createdAt),
    vector_store_id: d.vectorStoreId,
    status: openAiStatus(d.status),
    last_error: d.lastErrorCode ? { code: d.lastErrorCode, message: d.lastErrorMessage ?? '' } : null,
    chunking_strategy: chunkingObject(decodeChunking(d.chunking)),
    attributes: json(d.attributes),
  };
}

export function toBatch(b: FileBatchEntity, byStatus: Record<DocumentStatus, number>): FileBatchDto {
  const counts = fileCounts(byStatus);
  const status = b.cancelled
    ? 'cancelled'
    : counts.in_progress > 0
      ? 'in_progress'
      : counts.failed > 0 && counts.completed === 0
        ? 'failed'
        : 'completed';
  return {
    id: b.id,
    object: 'vector_store.files_batch',
    created_at: seconds(b.createdAt),
    vector_store_id: b.vectorStoreId,
    status,
    file_counts: counts,
  };
}

export function toSearchPage(query: string | string[], hits: ChunkHit[]): SearchPageDto {
  return {
    object: 'vector_store.search_results.page',
    // OpenAI's search page always echoes the query as a list
    search_query: typeof query === 'string' ? [query] : query,
    data: hits.map((h) => ({
      file_id: h.document.id,
      filename: h.document.filename,
      score: h.score,
      attributes: json(h.document.attributes),
      content: [{ type: 'text', text: h.chunk.text }],
    })),
    has_more: false,
    next_page: null,
  };
}

// ── REST ─────────────────────────────────────────────────────────────────────────────────────────

export function toKnowledgeBase(v: StoreView) {
  const counts = fileCounts(v.stats.byStatus);
  return {
    id: v.store.id,
    name: v.store.name,
    description: v.store.description,
    metadata: json<Record<string, string>>(v.store.metadata),
    status: counts.in_progress > 0 ? ('in_progress' as const) : ('completed' as const),
    embedding_model: v.store.embeddingModel,
    dimensions: v.store.dimensions,
    document_count: v.stats.byKind.file + v.stats.byKind.text,
    link_count: v.stats.byKind.link,
    chunk_count: v.stats.chunks,
    usage_bytes: v.stats.usageBytes,
    file_counts: counts,
    created_at: new Date(v.store.createdAt).toISOString(),
  };
}

export function toDocument(d: KbDocumentEntity) {
  return {
    id: d.id,
    kind: d.kind,
    filename: d.filename,
    title: d.title,
    url: d.url,
    final_url: d.finalUrl,
    status: d.status,
    last_error: d.lastErrorCode ? { code: d.lastErrorCode, message: d.lastErrorMessage ?? '' } : null,
    pages: d.pages,
    tokens: d.tokens,
    chunks: d.chunkCount,
    metadata: json<Record<string, unknown>>(d.attributes),
    content_hash: d.contentHash,
    replaces: d.replacesId,
    created_at: new Date(d.createdAt).toISOString(),
    updated_at: new Date(d.updatedAt).toISOString(),
  };
}

/** An OpenAI cursor page. */
export function toPage<T extends { id: string }>(data: T[], hasMore: boolean) {
  return {
    object: 'list' as const,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: hasMore,
  };
}

/** The REST knowledge-base search answer: rerank-style results with their source. */
export function toKbSearchResponse(out: SearchOutcome): KbSearchResponseDto {
  return {
    results: out.hits.map((h, i) => ({
      rank: i + 1,
      id: `${h.document.id}#${h.chunk.ordinal}`,
      data: h.chunk.text,
      metadata: {
        ...(h.document.attributes ? (JSON.parse(h.document.attributes) as Record<string, unknown>) : {}),
        chunk_index: h.chunk.ordinal,
        tokens: h.chunk.tokens,
      },
      similarity_score: roundScore(h.score),
      similarity_percentage: formatPercentage(h.score),
      source: {
        document_id: h.document.id,
        title: h.document.title,
        page: h.chunk.page,
        url: h.document.finalUrl ?? h.document.url,
      },
    })),
    usage: { query_tokens: out.queryTokens, cost_rub: microToRub(out.costMicro) },
    cost: totalCost(out.costMicro),
    processing_time_seconds: Number((out.elapsedMs / 1000).toFixed(3)),
  };
}
