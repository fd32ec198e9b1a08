import type { DataPolicy } from '@app/data-protection/policy';
import type { Caller } from '@app/auth';
import type { RequestHold } from '@app/billing';
import type { UploadedBytes } from '../files.service';

/**
 * The internal store API: what projects and chat use of knowledge (project-owned stores, their
 * documents, search), as plain read models. The public knowledge-base API (KnowledgeService,
 * KnowledgeBasesApiService, VectorStoresApiService and the controllers) answers with response DTOs instead. An abstract class so
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
  tokens: number;
  chunkCount: number;
  usageBytes: number;
  createdAt: number;
  updatedAt: number;
}

/** A knowledge base as its users name it. */
export interface KnowledgeBaseRef {
  id: string;
  name: string | null;
}

/** The bytes of a document's file, with its name and type. */
export interface DocumentFile {
  bytes: Buffer;
  filename: string;
  mime: string;
}

/** What a project-owned (internal) store takes as a document. */
export type InternalSource =
  | { type: 'file'; fileId: string }
  | { type: 'upload'; upload: UploadedBytes | undefined }
  | { type: 'link'; url: string }
  /** a text stored as a file named `filename`; `messages` chunks it in windows of whole messages */
  | { type: 'text'; title: string; filename: string; text: string; chunking?: 'auto' | 'messages' };

/** A fragment found by a search: its chunk, its document and its cosine to the query. */
export interface SearchHit {
  chunk: { id: number; page: number | null; text: string; index: number };
  document: DocumentRef & { attributes: Record<string, unknown> | null };
  score: number;
}

export interface StoreSearchQuery {
  queries: string[];
  topK: number;
  threshold: number;
  /** attribute filters (the vector-store search's `filters`), and the field their errors name */
  filters?: unknown;
  filtersParam?: string;
}

export interface StoreSearchResult {
  hits: SearchHit[];
  queryTokens: number;
  costMicro: number;
}

export abstract class KnowledgeStore {
  // ── knowledge bases (attached to projects) ──
  /** A knowledge base of the team; 404 vector_store_not_found otherwise (project stores included). */
  abstract knowledgeBase(teamId: string, id: string): Promise<KnowledgeBaseRef>;
  /** Which of these knowledge base ids no longer exist for the team. */
  abstract missingKnowledgeBases(teamId: string, ids: string[]): Promise<Set<string>>;

  // ── project-owned (internal) stores: never listed or served by the knowledge-base APIs ──
  /** `policy`: the creating caller's data policy (its residency picks an embedder the team may use) */
  abstract createInternalStore(
    teamId: string,
    name: string,
    policy?: Pick<DataPolicy, 'residency'> | null,
  ): Promise<StoreRef>;
  /** Deletes the internal store with its documents, and the files listed in `ownedFileIds`. */
  abstract deleteInternalStore(teamId: string, id: string, ownedFileIds?: string[]): Promise<void>;
  /** Adds a document (queued for ingestion); knowledge-base limits apply, `holder` names the owner in the 409. */
  abstract addInternalDocument(
    teamId: string,
    storeId: string,
    src: InternalSource,
    holder: string,
  ): Promise<DocumentRef>;
  /** Replaces the text of an internal text document and queues it again. */
  abstract replaceInternalText(teamId: string, storeId: string, docId: string, text: string): Promise<DocumentRef>;
  /** Queues an internal document again (a link is fetched again). */
  abstract refreshInternalDocument(teamId: string, storeId: string, docId: string): Promise<DocumentRef>;
  /** Deletes the document and, with `deleteFile`, the file holding its bytes. */
  abstract deleteInternalDocument(
    teamId: string,
    storeId: string,
    docId: string,
    opts?: { deleteFile?: boolean },
  ): Promise<void>;
  /** The team's documents of an internal store among `ids`. */
  abstract internalDocuments(teamId: string, storeId: string, ids: string[]): Promise<DocumentRef[]>;
  /** The bytes and type of a document's file, or null. */
  abstract documentFile(teamId: string, docId: string): Promise<DocumentFile | null>;
  /** The full text of a document of an internal store, extracted again from its file ('' for images). */
  abstract documentText(teamId: string, storeId: string, docId: string): Promise<string>;

  // ── search (chat's retrieval) ──
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
