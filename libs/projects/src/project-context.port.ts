/**
 * The contract between libs/projects (which owns projects and their materials) and libs/chat (which
 * assembles project context into a chat request). libs/projects provides an implementation of
 * `ProjectContextSource` under this abstract class as the DI token; chat injects it.
 *
 * A project's own text-bearing materials (files, links, attached chats, messaging-app chats, webhook
 * events, external-API data) are ingested as documents of one project-owned, internal vector store
 * (`storeId`), so knowledge's ingestion, chunk store and search serve them unchanged. Attached
 * knowledge bases stay separate stores (`knowledgeBaseIds`).
 */
export type ProjectMode = 'default' | 'big_docs_mode' | 'code_mode' | 'data_analysis_mode';
export const PROJECT_MODES: readonly ProjectMode[] = ['default', 'big_docs_mode', 'code_mode', 'data_analysis_mode'];

export type MaterialKind = 'file' | 'link' | 'knowledge_base' | 'chat' | 'messenger_chat' | 'webhook' | 'external_api';

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
  kind: Exclude<MaterialKind, 'knowledge_base'>;
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
