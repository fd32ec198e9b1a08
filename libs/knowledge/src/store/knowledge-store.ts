import type { Caller } from '@app/auth';
import type { RequestHold } from '@app/billing';

/**
 * The internal store API: what projects and chat use of knowledge (project-owned stores, their
 * documents, search), as plain read models. The public knowledge-base API (KnowledgeService,
 * KnowledgeApiService and the controllers) answers with response DTOs instead. An abstract class so
 * it is the DI token; KnowledgeStoreService implements it.
 */

/** A store (a knowledge base or a project's own store) as the search needs it. */
export interface StoreRef {
  readonly id: string;
  readonly teamId: string;
  readonly embeddingModel: string;
  readonly dimensions: number;
  readonly revision: number;
}

/** A document of a store. */
export interface DocumentRef {
  id: string;
  storeId: string;
  kind: 'file' | 'text' | 'link';
  status: 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';
  filename: string;
  title: string | null;
  url: string | null;
  finalUrl: string | null;
  lastErrorCode: string | null;
  lastErrorMessage: string | null;
  chunkCount: number;
  usageBytes: number;
  createdAt: number;
  updatedAt: number;
}

/** A fragment found by a search: its chunk, its document and its cosine to the query. */
export interface SearchHit {
  chunk: { id: number; page: number | null; text: string };
  document: DocumentRef;
  score: number;
}

export interface StoreSearchQuery {
  queries: string[];
  topK: number;
  threshold: number;
}

export interface StoreSearchResult {
  hits: SearchHit[];
  queryTokens: number;
  costMicro: number;
}

export abstract class KnowledgeStore {
  /** A knowledge base of the team about to be searched (404 / 400 vector_store_expired); restarts its expiry. */
  abstract useStore(teamId: string, id: string): Promise<StoreRef>;
  /** A knowledge base or a project's own store of the team; null when there is none. */
  abstract searchableStore(teamId: string, id: string): Promise<StoreRef | null>;
  /** The text of one ingested document, rebuilt from its chunks. */
  abstract chunkedText(storeId: string, documentId: string): Promise<{ text: string }>;
  abstract maxChunkTokens(stores: StoreRef[]): Promise<number>;
  abstract holdMicro(store: StoreRef, queries: string[]): number;
  abstract search(
    caller: Caller,
    store: StoreRef,
    query: StoreSearchQuery,
    requestId: string,
    endpoint: string,
    within?: RequestHold,
  ): Promise<StoreSearchResult>;
}
