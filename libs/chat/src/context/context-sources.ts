import { assertModelAllowed } from '@app/auth';
import { ApiError } from '@app/common';
import { chooseContextMode, contextBudget, ContextMode } from './context-plan';
import type { ContextPlan, ContextRequest } from './context.types';
import { ProjectContext, ProjectContextSource, ProjectRagSettings, SearchableStore, StoreSearch } from './ports';

/** knowledge_base_id (or file_urls PDFs) without a project: the defaults of a project's RAG settings. */
export const DEFAULT_RAG: ProjectRagSettings = { top_k: 15, rerank: true, file_threshold: 0.3, kb_threshold: 0.1 };

/**
 * Step 1, plan and load sources: the project (through ProjectContextSource), the knowledge bases to
 * search, the project's own store, the mode (full documents or retrieval) and the token budget.
 */
export class ContextSources {
  constructor(
    private readonly projects: ProjectContextSource | null,
    private readonly stores: StoreSearch,
  ) {}

  async plan(req: ContextRequest): Promise<ContextPlan> {
    const teamId = req.caller.teamId;
    const notes: string[] = [];
    const project = req.projectId !== undefined ? await this.loadProject(teamId, req.projectId) : null;
    const named = req.fileSearch?.storeIds ?? (req.knowledgeBaseId !== undefined ? [req.knowledgeBaseId] : []);
    const kbIds = [...new Set([...named, ...(project?.knowledgeBaseIds ?? [])])];
    const kbStores: SearchableStore[] = [];
    for (const id of kbIds) {
      const store = await this.useStore(teamId, id, named.includes(id) ? namedField(req) : null, notes);
      if (store) kbStores.push(store);
    }
    // the project's own store (internal: the knowledge-base APIs do not serve it)
    const projectStore = project ? await this.stores.searchableStore(teamId, project.storeId) : null;
    // every model the context uses must be one the key may use: refused before anything is held or charged
    for (const store of kbStores)
      assertModelAllowed(
        req.caller,
        store.embeddingModel,
        named.includes(store.id) ? namedField(req).param : 'project_id',
      );
    if (projectStore) assertModelAllowed(req.caller, projectStore.embeddingModel, 'project_id');
    const hasDocuments = (project?.materials.length ?? 0) > 0 || req.pdfs.length > 0;
    const mode: ContextMode =
      hasDocuments || project
        ? chooseContextMode({
            requestMode: req.mode,
            projectMode: project?.mode,
            modelFullContext: req.model.full_context,
          })
        : 'rag';
    const budget = contextBudget({
      contextWindow: req.model.context_window,
      maxOutputTokens: req.maxOutputTokens,
      promptTokens: req.promptTokens,
    });
    return { project, kbStores, projectStore, rag: ragSettings(req, project), mode, budget, notes };
  }

  /**
   * Searching a knowledge base is activity on it (its expires_after restarts); an expired or missing
   * one named by the request is refused, one attached to the project is skipped with a note.
   */
  private async useStore(
    teamId: string,
    id: string,
    named: NamedField | null,
    notes: string[],
  ): Promise<SearchableStore | null> {
    try {
      return await this.stores.useStore(teamId, id);
    } catch (err) {
      const isExpired = err instanceof ApiError && err.code === 'vector_store_expired';
      if (named) {
        if (isExpired)
          throw ApiError.badRequest(
            `${named.noun} '${id}' has expired (expires_after).`,
            named.param,
            'vector_store_expired',
          );
        if (err instanceof ApiError && err.status === 404)
          throw ApiError.notFound(`${named.noun} '${id}' not found.`, named.notFoundCode, named.param);
        throw err;
      }
      if (!isExpired && !(err instanceof ApiError && err.status === 404)) throw err;
      notes.push(
        isExpired
          ? `Attached knowledge base ${id} has expired; it was skipped.`
          : `Attached knowledge base ${id} no longer exists; it was skipped.`,
      );
      return null;
    }
  }

  private async loadProject(teamId: string, projectId: string): Promise<ProjectContext> {
    const project = this.projects ? await this.projects.load(teamId, projectId) : null;
    if (!project) throw ApiError.notFound(`Project '${projectId}' not found.`, 'project_not_found', 'project_id');
    return project;
  }
}

/** How errors name a store the request itself names: knowledge_base_id, or a file_search tool's vector_store_ids. */
interface NamedField {
  noun: string;
  param: string;
  notFoundCode: string;
}

function namedField(req: ContextRequest): NamedField {
  return req.fileSearch
    ? { noun: 'Vector store', param: req.fileSearch.param, notFoundCode: 'vector_store_not_found' }
    : { noun: 'Knowledge base', param: 'knowledge_base_id', notFoundCode: 'knowledge_base_not_found' };
}

/**
 * A file_search tool ranks as the vector-store search does: the searches' cosine and fused order
 * (no rerank), its own result count and threshold. Otherwise the project's settings, or the defaults.
 */
function ragSettings(req: ContextRequest, project: ProjectContext | null): ProjectRagSettings {
  const fs = req.fileSearch;
  if (fs) return { top_k: fs.maxResults, rerank: false, file_threshold: fs.threshold, kb_threshold: fs.threshold };
  return project?.rag ?? DEFAULT_RAG;
}
