import type { Caller } from '@app/auth';
import type { RequestHold } from '@app/billing';
import type { ModelEntry } from '@app/providers';
import type { ContextMode, RequestedMode, SourceLabel } from './context-plan';
import type { UrlPdf } from './file-urls';
import type { ContextMaterial, ProjectContext, ProjectRagSettings, SearchableStore } from './ports';

export interface ContextRequest {
  caller: Caller;
  requestId: string;
  endpoint: string;
  model: ModelEntry;
  projectId?: string;
  knowledgeBaseId?: string;
  /** the Responses file_search tool: the vector stores it names, searched instead of knowledge_base_id */
  fileSearch?: FileSearchRequest;
  mode?: RequestedMode;
  pdfs: UrlPdf[];
  /** the question the fragments are searched for (the prompt / the last user message) */
  query: string;
  /** tokens of the request's own messages and tools */
  promptTokens: number;
  maxOutputTokens: number;
  /** images the request itself carries (they count toward the 20-image limit first) */
  requestImages: number;
  /**
   * Takes the request's hold before the first paid retrieval step: the retrieval's worst case plus
   * the answer's with a context of at most `contextTokens` and `images` project images. Without it
   * each step holds from the balance on its own.
   */
  openHold?: (bound: { retrievalMicro: number; contextTokens: number; images: number }) => Promise<RequestHold>;
}

/**
 * A file_search tool: its vector stores (each must be the caller's), the field errors about them
 * name, and the ranking (results kept, minimum cosine). Results keep the searches' own order.
 */
export interface FileSearchRequest {
  storeIds: string[];
  param: string;
  maxResults: number;
  threshold: number;
  /** attribute filters (as the vector-store search takes them), or null */
  filters: unknown;
  filtersParam: string;
}

export type SourceKind = ContextMaterial['kind'] | 'knowledge_base' | 'file_url';

export interface ChatSource {
  n: number;
  /** the project material; the knowledge base for KB fragments; null for file_urls PDFs */
  material_id: string | null;
  kind: SourceKind;
  title: string;
  page: number | null;
  url: string | null;
  /** relevance (rerank cosine, else search cosine); null for a material given in full */
  score: number | null;
  /** the knowledge document (file) the text comes from; null for file_urls PDFs */
  document_id: string | null;
  /** the document's file name; null for file_urls PDFs */
  filename: string | null;
  /** the fragment's chunk: its position among the document's chunks (0-based); null for a material given in full */
  chunk_index: number | null;
}

export interface ChatContextInfo {
  mode: ContextMode;
  /** materials given in full: project material ids, or the URL of a file_urls PDF */
  materials_full: string[];
  /** retrieved fragments in the context */
  fragments: number;
  /** tokens of the context system message */
  tokens: number;
  /** tokens the context was allowed to take */
  budget_tokens: number;
  /** project images passed to the model */
  images: number;
  /** project images not passed (model without image input, or beyond 20 images per request) */
  images_skipped: number;
  /** what was left out and why, in words */
  notes: string[];
}

export interface AssembledContext {
  /** the system message with the sources, or null when nothing relevant was found */
  message: string | null;
  /** data: URLs of project images to add to the last user turn */
  imageUrls: string[];
  sources: ChatSource[];
  /** each source's text (as the model was given it) and its document's attributes, in `sources` order */
  details: { text: string; attributes: Record<string, unknown> | null }[];
  info: ChatContextInfo;
  /** what the query embeddings and the rerank charged (separate ledger entries) */
  retrievalMicro: number;
  /** the request's hold taken before retrieval (the answer takes its hold out of it), if any */
  hold?: RequestHold | null;
  /** server time spent assembling the context, and its search (with query embeddings) and rerank parts */
  elapsedMs: number;
  searchMs: number;
  rerankMs: number;
}

/** One source of the context: a material or PDF given in full, or a retrieved fragment. */
export interface Piece {
  label: SourceLabel;
  text: string;
  tokens: number;
  score: number;
  kind: SourceKind;
  materialId: string | null;
  documentId: string | null;
  /** the knowledge document's file name (search hits); null otherwise */
  filename?: string | null;
  /** search hits: the chunk's position in its document */
  chunkIndex?: number | null;
  /** search hits: the document's attributes */
  attributes?: Record<string, unknown> | null;
  /** full documents: the id listed in materials_full */
  fullKey?: string;
  /** fragments: where the candidate came from (threshold and scoring rules differ) */
  origin?: 'project' | 'kb' | 'pdf';
}

/** What the request asks the context to draw on (step 1, plan and load sources). */
export interface ContextPlan {
  project: ProjectContext | null;
  /** knowledge bases to search (named by the request, attached to the project) */
  kbStores: SearchableStore[];
  /** the project's own store, or null */
  projectStore: SearchableStore | null;
  rag: ProjectRagSettings;
  mode: ContextMode;
  /** tokens the whole context may take */
  budget: number;
  notes: string[];
}

/** What the full-documents step left to retrieval. */
export interface FullDocuments {
  full: Piece[];
  used: number;
  /** project documents to search; null: the whole project store */
  remainderDocs: Set<string> | null;
  remainderPdfs: UrlPdf[];
}

/** The retrieved fragments that fit, and what finding them cost. */
export interface Retrieved {
  fragments: Piece[];
  used: number;
  retrievalMicro: number;
  hold: RequestHold | null;
  searchMs: number;
  rerankMs: number;
}
