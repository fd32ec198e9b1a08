/**
 * The ports chat's context assembly consumes, declared here as abstract classes (the DI tokens) and
 * bound by the modules that own the data: projects binds ProjectContextSource, knowledge binds
 * StoreSearch and DocumentReader, rerank binds Scoring (`{ provide: Port, useExisting: Impl }`).
 * This file imports types only, so the binding modules import it without importing chat.
 * See docs/decisions/chat-context-ports.md.
 */
import type { Caller } from '@app/auth';
import type { RequestHold } from '@app/billing';
import type { StoreMaterialKind } from './material-kinds';

export * from './material-kinds';

// ── projects ─────────────────────────────────────────────────────────────────────────────────

export type ProjectMode = 'default' | 'big_docs_mode' | 'code_mode' | 'data_analysis_mode';
export const PROJECT_MODES: readonly ProjectMode[] = ['default', 'big_docs_mode', 'code_mode', 'data_analysis_mode'];

export interface ProjectRagSettings {
  /** fragments kept after rerank, 15..30 (default 15) */
  top_k: number;
  /** rerank candidates with the rerank engine (default true) */
  rerank: boolean;
  /** minimum cosine for project materials (default 0.3) */
  file_threshold: number;
  /** minimum cosine for knowledge bases (default 0.1) */
  kb_threshold: number;
}

/** One ready, text-bearing material of the project, backed by a document of the project's store. */
export interface ContextMaterial {
  id: string;
  kind: StoreMaterialKind;
  title: string;
  url: string | null;
  /** the knowledge document id (in `ProjectContext.storeId`) holding this material's text */
  documentId: string;
}

/** An image among the project's files, ready to be sent to a vision-capable model. */
export interface ContextImage {
  materialId: string;
  title: string;
  mime: string;
  bytes: Buffer;
}

/**
 * A project as chat sees it. Its text-bearing materials are documents of one project-owned,
 * internal store (`storeId`), searchable like a knowledge base; attached knowledge bases stay
 * separate stores (`knowledgeBaseIds`).
 */
export interface ProjectContext {
  id: string;
  name: string;
  mode: ProjectMode;
  rag: ProjectRagSettings;
  /** the project-owned internal vector store holding the text materials (searchable like a knowledge base) */
  storeId: string;
  /** ready text materials, oldest first */
  materials: ContextMaterial[];
  /** attached knowledge bases (vector store ids of the same team) */
  knowledgeBaseIds: string[];
  /** images among the project's files, oldest first (the caller caps them at 20) */
  images: ContextImage[];
}

export abstract class ProjectContextSource {
  /** The project of this team, or null when it does not exist (or belongs to another team). */
  abstract load(teamId: string, projectId: string): Promise<ProjectContext | null>;
}

// ── store search (knowledge) ─────────────────────────────────────────────────────────────────

/** A searchable store as the search hands it out; chat reads its id and passes it back unchanged. */
export interface SearchableStore {
  readonly id: string;
  /** the catalog key of the embedding model its chunks were embedded with (searches embed with it) */
  readonly embeddingModel: string;
}

export interface StoreQuery {
  queries: string[];
  topK: number;
  /** minimum cosine of a hit */
  threshold: number;
  /** attribute filters as the vector-store search takes them (validated by the store; errors name `filtersParam`) */
  filters?: unknown;
  filtersParam?: string;
}

export interface StoreHit {
  /** `index`: the chunk's position in its document (0-based), or null when the store does not say */
  chunk: { page: number | null; text: string; index?: number | null };
  document: {
    id: string;
    title: string | null;
    filename: string;
    url: string | null;
    attributes?: Record<string, unknown> | null;
  };
  /** cosine of query and chunk */
  score: number;
}

export interface StoreSearchOutcome {
  hits: StoreHit[];
  /** what the query embedding charged, µRUB */
  costMicro: number;
}

export abstract class StoreSearch {
  /**
   * A knowledge base of the team, marked as used (its expires_after restarts). Throws the knowledge
   * base API's 404 (`vector_store_not_found`) or 400 (`vector_store_expired`).
   */
  abstract useStore(teamId: string, id: string): Promise<SearchableStore>;
  /** A project's internal store, or null when it is gone. */
  abstract searchableStore(teamId: string, id: string): Promise<SearchableStore | null>;
  /** The text of one document of a store (its chunks joined). */
  abstract chunkedText(storeId: string, documentId: string): Promise<{ text: string }>;
  /** The largest fragment (chunk, in tokens) a search of these stores can return. */
  abstract maxChunkTokens(stores: SearchableStore[]): Promise<number>;
  /** What a search of `store` for `queries` holds (its query embeddings' worst case), µRUB. */
  abstract holdMicro(store: SearchableStore, queries: string[]): number;
  /** Searches one store; the query embedding is charged (within `within` when given). */
  abstract search(
    caller: Caller,
    store: SearchableStore,
    query: StoreQuery,
    requestId: string,
    endpoint: string,
    within?: RequestHold,
  ): Promise<StoreSearchOutcome>;
}

// ── documents (knowledge's parsers) ──────────────────────────────────────────────────────────

/** Text extracted from a document: one entry per page. */
export interface ReadDocument {
  pages: { page: number; text: string }[];
}

/** A document whose text cannot be read; `code` is the error code the request reports. */
export class UnreadableDocument extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnreadableDocument';
  }
}

export abstract class DocumentReader {
  /** The text of a PDF; throws UnreadableDocument when there is none to read. */
  abstract readPdf(bytes: Buffer, filename: string): Promise<ReadDocument>;
  /** The document cut into retrieval-sized fragments (the knowledge bases' automatic chunking). */
  abstract fragments(doc: ReadDocument): Promise<{ page: number | null; text: string }[]>;
}

// ── scoring (rerank) ─────────────────────────────────────────────────────────────────────────

export interface ScoringRequest {
  query: string;
  texts: string[];
  endpoint: string;
  /** the request's hold the scoring's hold is taken out of */
  within?: RequestHold;
}

export abstract class Scoring {
  /** Relevance of each text to the query (cosine, in `texts` order; NaN when unscored) and what it charged, µRUB. */
  abstract score(
    caller: Caller,
    req: ScoringRequest,
    requestId: string,
  ): Promise<{ scores: number[]; chargedMicro: number }>;
  /** Worst case of scoring `texts` plus `extraTokens` tokens of other texts, µRUB. */
  abstract holdMicro(texts: string[], extraTokens: number): number;
  /** Throws 403 model_not_allowed when the caller's key may not use the scoring's model. */
  abstract assertAllowed(caller: Caller): void;
}
