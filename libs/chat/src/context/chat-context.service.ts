import { Injectable, Logger, Optional } from '@nestjs/common';
import { TokenizerService } from '@app/providers';
import { assembleContext } from './assembly';
import { ContextSources } from './context-sources';
import type { AssembledContext, ContextRequest } from './context.types';
import { FullDocumentStep } from './full-documents';
import { fitImages } from './images';
import { DocumentReader, ProjectContextSource, Scoring, StoreSearch } from './ports';
import { ContextRetrieval, TakenHold } from './retrieval';

export { withContext } from './assembly';
export type {
  AssembledContext,
  ChatContextInfo,
  ChatSource,
  ContextRequest,
  FileSearchRequest,
  SourceKind,
} from './context.types';

/**
 * Builds the context of a chat request from a project, knowledge bases and PDFs from file_urls:
 * plan → full documents → retrieve/rerank → images and assembly. The rules are in docs/api.md
 * "Project context in chat". Without a ProjectContextSource every project_id answers 404.
 */
@Injectable()
export class ChatContextService {
  private readonly log = new Logger('ChatContext');
  private readonly sources: ContextSources;
  private readonly fullDocuments: FullDocumentStep;
  private readonly retrieval: ContextRetrieval;
  private readonly count: (text: string) => number;

  constructor(
    stores: StoreSearch,
    scoring: Scoring,
    reader: DocumentReader,
    tokenizers: TokenizerService,
    @Optional() projects?: ProjectContextSource,
  ) {
    this.count = (text) => tokenizers.chat.count(text);
    this.sources = new ContextSources(projects ?? null, stores);
    this.fullDocuments = new FullDocumentStep(stores, this.count);
    this.retrieval = new ContextRetrieval(stores, scoring, reader, this.count);
  }

  /**
   * null when the request asks for no context (no project, knowledge base or PDF). A request hold
   * taken for the retrieval (ContextRequest.openHold) is released here when the assembly fails.
   */
  async assemble(req: ContextRequest): Promise<AssembledContext | null> {
    const named = req.knowledgeBaseId !== undefined || req.fileSearch !== undefined;
    if (req.projectId === undefined && !named && req.pdfs.length === 0) return null;
    const started = performance.now();
    const taken: TakenHold = { hold: null };
    try {
      const plan = await this.sources.plan(req);
      const docs = await this.fullDocuments.fit(req, plan);
      const retrieved = await this.retrieval.retrieve(req, plan, docs, taken);
      const images = fitImages(plan.project?.images ?? [], req.model, req.requestImages, plan.notes);
      const ctx = { ...assembleContext(this.count, plan, docs, retrieved, images), elapsedMs: 0 };
      ctx.elapsedMs = performance.now() - started;
      const contextMs = Math.round(ctx.elapsedMs * 10) / 10;
      const counts = { full: docs.full.length, fragments: retrieved.fragments.length };
      this.log.debug({ requestId: req.requestId, mode: plan.mode, ...counts, contextMs }, 'chat context assembled');
      return ctx;
    } catch (err) {
      await taken.hold?.close();
      throw err;
    }
  }
}
