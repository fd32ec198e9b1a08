import type { KbChunkEntity, KbDocumentEntity, VectorStoreEntity } from '../entities/knowledge.entities';
import type { ChunkHit } from '../kb-search.service';
import type { DocumentRef, SearchHit, StoreRef } from './knowledge-store';

/** Rows → the internal store API's read models (no entity leaves knowledge). */
export function toStoreRef(s: VectorStoreEntity): StoreRef {
  return {
    id: s.id,
    teamId: s.teamId,
    embeddingModel: s.embeddingModel,
    dimensions: s.dimensions,
    revision: s.revision,
  };
}

export function toDocumentRef(d: KbDocumentEntity): DocumentRef {
  return {
    id: d.id,
    storeId: d.vectorStoreId,
    kind: d.kind,
    status: d.status,
    filename: d.filename,
    title: d.title,
    url: d.url,
    finalUrl: d.finalUrl,
    lastErrorCode: d.lastErrorCode,
    lastErrorMessage: d.lastErrorMessage,
    tokens: d.tokens,
    chunkCount: d.chunkCount,
    usageBytes: d.usageBytes,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

function toChunk(c: KbChunkEntity): SearchHit['chunk'] {
  return { id: Number(c.id), page: c.page, text: c.text, index: c.ordinal };
}

export function toSearchHit(h: ChunkHit): SearchHit {
  const attributes = h.document.attributes ? (JSON.parse(h.document.attributes) as Record<string, unknown>) : null;
  return { chunk: toChunk(h.chunk), document: { ...toDocumentRef(h.document), attributes }, score: h.score };
}
