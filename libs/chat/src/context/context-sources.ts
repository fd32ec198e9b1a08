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
    const kbIds = [
      ...new Set([
        ...(req.knowledgeBaseId !== undefined ? [req.knowledgeBaseId] : []),
        ...(project?.knowledgeBaseIds ?? []),
      ]),
    ];
    const kbStores: SearchableStore[] = [];
    for (const id of kbIds) {
      const store = await this.useStore(teamId, id, req.knowledgeBaseId, notes);
      if (store) kbStores.push(store);
    }
    // the project's own store (internal: the knowledge-base APIs do not serve it)
    const projectStore = project ? await this.stores.searchableStore(teamId, project.storeId) : null;
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
    return { project, kbStores, projectStore, rag: project?.rag ?? DEFAULT_RAG, mode, budget, notes };
  }

  /**
   * Searching a knowledge base is activity on it (its expires_after restarts); an expired or missing
   * one named by the request is refused, one attached to the project is skipped with a note.
   */
  private async useStore(
    teamId: string,
    id: string,
    named: string | undefined,
    notes: string[],
  ): Promise<SearchableStore | null> {
    try {
      return await this.stores.useStore(teamId, id);
    } catch (err) {
      const isExpired = err instanceof ApiError && err.code === 'vector_store_expired';
      if (id === named) {
        if (isExpired)
          throw ApiError.badRequest(
            `Knowledge base '${id}' has expired (expires_after).`,
            'knowledge_base_id',
            'vector_store_expired',
          );
        throw ApiError.notFound(`Knowledge base '${id}' not found.`, 'knowledge_base_not_found', 'knowledge_base_id');
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
