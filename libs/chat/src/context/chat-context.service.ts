import { Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiError } from '@app/common';
import type { Caller } from '@app/auth';
import { AUTO_CHUNKING, DocumentParser, KbSearchService, KnowledgeService } from '@app/knowledge';
import type { SearchHit } from '@app/knowledge';
import { ContextMaterial, ProjectContext, ProjectContextSource, ProjectRagSettings } from '@app/projects';
import { ModelEntry, TokenizerService } from '@app/providers';
import type { ChatMessage, ContentPart } from '@app/providers';
import type { RequestHold } from '@app/billing';
import { RerankService } from '@app/rerank';
import { MAX_FILE_BYTES, MAX_IMAGES } from '../image-inliner';
import {
  chooseContextMode,
  contextBudget,
  contextMessage,
  ContextMode,
  fillInOrder,
  formatSource,
  greedyFill,
  RequestedMode,
  SourceLabel,
  topK,
} from './context-plan';
import type { UrlPdf } from './file-urls';

/** knowledge_base_id (or file_urls PDFs) without a project: the defaults of a project's RAG settings. */
export const DEFAULT_RAG: ProjectRagSettings = { top_k: 15, rerank: true, file_threshold: 0.3, kb_threshold: 0.1 };
/** Candidates gathered per store, and in total, before rerank. */
export const MAX_CANDIDATES = 30;
/** The largest chunk a store can hold (static chunking's maximum). */
const MAX_CHUNK_TOKENS = 4096;
/** A fragment's source label in the context (title ≤ 512 characters, page, URL), in tokens. */
const LABEL_TOKENS = 600;
/** Image types every vision provider takes (as the image inliner checks them). */
const VISION_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

export interface ContextRequest {
  caller: Caller;
  requestId: string;
  endpoint: string;
  model: ModelEntry;
  projectId?: string;
  knowledgeBaseId?: string;
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

interface Piece {
  label: SourceLabel;
  text: string;
  tokens: number;
  score: number;
  kind: SourceKind;
  materialId: string | null;
  documentId: string | null;
  /** full documents: the id listed in materials_full */
  fullKey?: string;
  /** fragments: where the candidate came from (threshold and scoring rules differ) */
  origin?: 'project' | 'kb' | 'pdf';
}

/**
 * Builds the context of a chat request from a project (through the ProjectContextSource port),
 * knowledge bases and PDFs from file_urls; the rules are in docs/api.md "Project context in chat".
 */
@Injectable()
export class ChatContextService implements OnModuleInit {
  private readonly log = new Logger('ChatContext');
  private projects: ProjectContextSource | null;

  constructor(
    private readonly knowledge: KnowledgeService,
    private readonly search: KbSearchService,
    private readonly rerank: RerankService,
    private readonly parser: DocumentParser,
    private readonly tokenizers: TokenizerService,
    @Optional() projects?: ProjectContextSource,
    @Optional() private readonly moduleRef?: ModuleRef,
  ) {
    this.projects = projects ?? null;
  }

  /**
   * The projects module provides the port (ProjectsModule in the app); chat finds it wherever it is
   * registered. Without it, every project_id answers 404 project_not_found.
   */
  onModuleInit(): void {
    if (this.projects || !this.moduleRef) return;
    try {
      this.projects = this.moduleRef.get(ProjectContextSource, { strict: false });
    } catch {
      this.log.warn('no ProjectContextSource is registered: project_id answers 404 project_not_found');
    }
  }

  /**
   * null when the request asks for no context (no project, knowledge base or PDF). A request hold
   * taken for the retrieval (ContextRequest.openHold) is released here when the assembly fails.
   */
  async assemble(req: ContextRequest): Promise<AssembledContext | null> {
    const taken: { hold: RequestHold | null } = { hold: null };
    try {
      return await this.assembleHolding(req, taken);
    } catch (err) {
      await taken.hold?.close();
      throw err;
    }
  }

  private async assembleHolding(
    req: ContextRequest,
    taken: { hold: RequestHold | null },
  ): Promise<AssembledContext | null> {
    if (req.projectId === undefined && req.knowledgeBaseId === undefined && req.pdfs.length === 0) return null;
    const started = performance.now();
    const teamId = req.caller.teamId;
    const notes: string[] = [];
    const project = req.projectId !== undefined ? await this.loadProject(teamId, req.projectId) : null;
    const kbIds = [
      ...new Set([
        ...(req.knowledgeBaseId !== undefined ? [req.knowledgeBaseId] : []),
        ...(project?.knowledgeBaseIds ?? []),
      ]),
    ];
    const kbStores: Awaited<ReturnType<KnowledgeService['useStore']>>[] = [];
    for (const id of kbIds) {
      let expired = false;
      // searching a knowledge base is activity on it (its expires_after restarts); an expired one
      // named by the request is refused, one attached to the project is skipped with a note
      const store = await this.knowledge.useStore(teamId, id).catch((err: unknown) => {
        const isExpired = err instanceof ApiError && err.code === 'vector_store_expired';
        if (id === req.knowledgeBaseId) {
          if (isExpired)
            throw ApiError.badRequest(
              `Knowledge base '${id}' has expired (expires_after).`,
              'knowledge_base_id',
              'vector_store_expired',
            );
          throw ApiError.notFound(`Knowledge base '${id}' not found.`, 'knowledge_base_not_found', 'knowledge_base_id');
        }
        expired = isExpired;
        if (isExpired || (err instanceof ApiError && err.status === 404)) return null;
        throw err;
      });
      if (store) kbStores.push(store);
      else if (expired) notes.push(`Attached knowledge base ${id} has expired; it was skipped.`);
      else notes.push(`Attached knowledge base ${id} no longer exists; it was skipped.`);
    }
    // the project's own store (internal: the knowledge-base APIs do not serve it)
    const projectStore = project ? await this.knowledge.searchableStore(teamId, project.storeId) : null;
    const rag = project?.rag ?? DEFAULT_RAG;
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
    let left = budget;
    let retrievalMicro = 0;
    let searchMs = 0;
    let rerankMs = 0;

    // ── full documents ──────────────────────────────────────────────────────────────────────
    const full: Piece[] = [];
    let remainderDocs: Set<string> | null = null; // null: search the whole project store
    let remainderPdfs = req.pdfs;
    if (mode === 'full') {
      const docs: Piece[] = [];
      for (const m of project?.materials ?? []) {
        const { text } = await this.knowledge.chunkedText(project!.storeId, m.documentId);
        if (!text.trim()) continue;
        docs.push(
          this.piece({ title: m.title, page: null, url: m.url }, text, null, {
            kind: m.kind,
            materialId: m.id,
            documentId: m.documentId,
            fullKey: m.id,
          }),
        );
      }
      for (const p of req.pdfs)
        docs.push(
          this.piece(
            { title: p.title, page: null, url: urlLabel(p.url) },
            p.doc.pages.map((x) => x.text).join('\n\n'),
            null,
            { kind: 'file_url', materialId: null, documentId: null, fullKey: p.url },
          ),
        );
      const fit = fillInOrder(docs, left);
      full.push(...fit.kept);
      left -= fit.used;
      remainderDocs = new Set(fit.rest.filter((d) => d.documentId !== null).map((d) => d.documentId!));
      remainderPdfs = req.pdfs.filter((p) => fit.rest.some((d) => d.fullKey === p.url));
      if (fit.rest.length)
        notes.push(
          `${fit.rest.length} material(s) did not fit the context budget in full; relevant fragments of them were retrieved instead: ${fit.rest.map((d) => d.label.title).join(', ')}.`,
        );
    }

    // ── retrieved fragments ─────────────────────────────────────────────────────────────────
    const query = req.query.trim();
    const candidates: Piece[] = [];
    const wantsProjectSearch = projectStore !== null && (remainderDocs === null || remainderDocs.size > 0);
    const retrieves = query !== '' && (wantsProjectSearch || kbStores.length > 0 || remainderPdfs.length > 0);
    const pdfChunks: Piece[] = [];
    if (retrieves)
      for (const p of remainderPdfs) {
        for (const c of await this.parser.chunk(p.doc, AUTO_CHUNKING)) {
          pdfChunks.push(
            this.piece({ title: p.title, page: c.page, url: urlLabel(p.url) }, c.text, Number.NEGATIVE_INFINITY, {
              kind: 'file_url',
              materialId: null,
              documentId: null,
              origin: 'pdf',
            }),
          );
        }
      }
    // the whole request's worst case is held before the first paid step (query embeddings, rerank,
    // then the answer): a request the balance cannot cover is refused before anything is charged
    let hold: RequestHold | null = null;
    if (retrieves && req.openHold) {
      const searched = [...(wantsProjectSearch && projectStore ? [projectStore] : []), ...kbStores];
      // the largest fragment a search can return (its store's largest chunk; 10 % for the chat
      // tokenizer counting differently) or PDF chunk, with its source label
      const chunk = Math.min(
        MAX_CHUNK_TOKENS,
        Math.ceil(
          1.1 * Math.max(await this.search.maxChunkTokens(searched), ...pdfChunks.map((c) => this.tokens(c.text))),
        ),
      );
      hold = await req.openHold({
        retrievalMicro: this.retrievalBound(query, searched, chunk, rag, pdfChunks),
        contextTokens: budget - left + Math.min(left, rag.top_k * (chunk + LABEL_TOKENS)),
        images: project?.images.length ?? 0,
      });
    }
    taken.hold = hold;
    if (retrieves) {
      const searchStart = performance.now();
      // the stores are searched concurrently; each search bills its own query embedding
      const projectSearch = wantsProjectSearch
        ? this.search.search(
            req.caller,
            projectStore!,
            { queries: [query], topK: MAX_CANDIDATES, threshold: rag.file_threshold, filter: null },
            req.requestId,
            req.endpoint,
            hold ?? undefined,
          )
        : null;
      const kbSearches = kbStores.map((store) =>
        this.search.search(
          req.caller,
          store,
          { queries: [query], topK: MAX_CANDIDATES, threshold: rag.kb_threshold, filter: null },
          req.requestId,
          req.endpoint,
          hold ?? undefined,
        ),
      );
      const [projectOut, ...kbOuts] = await Promise.all([projectSearch, ...kbSearches]);
      if (projectOut) {
        retrievalMicro += projectOut.costMicro;
        const byDoc = new Map((project?.materials ?? []).map((m) => [m.documentId, m]));
        for (const h of projectOut.hits) {
          if (remainderDocs !== null && !remainderDocs.has(h.document.id)) continue;
          const m = byDoc.get(h.document.id);
          candidates.push(
            this.hitPiece(h, {
              kind: m?.kind ?? 'file',
              materialId: m?.id ?? null,
              title: m?.title,
              url: m?.url,
              origin: 'project',
            }),
          );
        }
      }
      kbOuts.forEach((out, i) => {
        retrievalMicro += out!.costMicro;
        for (const h of out!.hits)
          candidates.push(this.hitPiece(h, { kind: 'knowledge_base', materialId: kbStores[i].id, origin: 'kb' }));
      });
      searchMs = performance.now() - searchStart;
      const pool = topK(candidates, MAX_CANDIDATES);
      // rerank the pool with the rerank engine (its per-key embedding cache included); PDF chunks
      // from file_urls have no index, so the engine scores them in any case
      const toScore = rag.rerank ? [...pool, ...pdfChunks] : pdfChunks;
      if (toScore.length) {
        const rerankStart = performance.now();
        const out = await this.rerank.rerank(
          req.caller,
          {
            query,
            parsed: {
              form: 'documents',
              items: toScore.map((c, i) => ({ id: String(i), data: c.text, metadata: {} })),
            },
            size: 'small',
            threshold: -1,
            topK: toScore.length,
            caching: true,
            columns: {},
            endpoint: req.endpoint,
            within: hold ?? undefined,
          },
          req.requestId,
        );
        retrievalMicro += out.chargedMicro;
        for (const r of out.ranked.results) toScore[Number(r.id)].score = r.similarity_score;
        rerankMs = performance.now() - rerankStart;
      }
      const scored = [...pool, ...pdfChunks.filter((c) => c.score >= rag.file_threshold)];
      const best = topK(scored, rag.top_k);
      for (const c of best) c.tokens = this.tokens(formatSource(99, c.label, c.text));
      const fit = greedyFill(best, left);
      candidates.length = 0;
      candidates.push(...fit.kept);
      left -= fit.used;
      if (fit.dropped.length) notes.push(`${fit.dropped.length} relevant fragment(s) did not fit the context budget.`);
    } else if (!query && (wantsProjectSearch || kbStores.length || remainderPdfs.length)) {
      notes.push('The request has no text to search with; no fragments were retrieved.');
    }

    // ── images among project files ──────────────────────────────────────────────────────────
    const imageUrls: string[] = [];
    let imagesSkipped = 0;
    const projectImages = project?.images ?? [];
    if (projectImages.length) {
      if (!req.model.supports_images) {
        imagesSkipped = projectImages.length;
        notes.push(
          `The model ${req.model.key} does not accept images: ${projectImages.length} project image(s) were not sent.`,
        );
      } else {
        const slots = Math.max(0, MAX_IMAGES - req.requestImages);
        for (const img of projectImages) {
          if (
            img.bytes.length > MAX_FILE_BYTES ||
            !VISION_TYPES.includes(img.mime.toLowerCase()) ||
            imageUrls.length >= slots
          ) {
            imagesSkipped++;
            continue;
          }
          imageUrls.push(`data:${img.mime};base64,${img.bytes.toString('base64')}`);
        }
        if (imagesSkipped)
          notes.push(
            `${imagesSkipped} project image(s) were not sent (at most ${MAX_IMAGES} images per request, each ≤ 10 MB, png/jpeg/gif/webp).`,
          );
      }
    }

    // ── assembly ─────────────────────────────────────────────────────────────────────────────
    const pieces = [...full, ...candidates];
    const formatted = pieces.map((p, i) => formatSource(i + 1, p.label, p.text));
    const message = pieces.length ? contextMessage(formatted) : null;
    if (!pieces.length && !notes.length) notes.push('No material matched the question.');
    const sources: ChatSource[] = pieces.map((p, i) => ({
      n: i + 1,
      material_id: p.materialId,
      kind: p.kind,
      title: p.label.title,
      page: p.label.page,
      url: p.label.url,
      score: p.fullKey !== undefined ? null : Math.round(p.score * 10_000) / 10_000,
      document_id: p.documentId,
    }));
    const elapsedMs = performance.now() - started;
    this.log.debug(
      {
        requestId: req.requestId,
        mode,
        full: full.length,
        fragments: candidates.length,
        contextMs: Math.round(elapsedMs * 10) / 10,
      },
      'chat context assembled',
    );
    return {
      message,
      imageUrls,
      sources,
      info: {
        mode,
        materials_full: full.map((p) => p.fullKey!),
        fragments: candidates.length,
        tokens: message ? this.tokens(message) : 0,
        budget_tokens: budget,
        images: imageUrls.length,
        images_skipped: imagesSkipped,
        notes,
      },
      retrievalMicro,
      hold,
      elapsedMs,
      searchMs,
      rerankMs,
    };
  }

  /**
   * The worst case of the retrieval's paid steps: each store's query embedding, and the rerank of
   * the candidate pool (at most MAX_CANDIDATES fragments of at most `chunk` tokens) with the PDF
   * chunks of file_urls.
   */
  private retrievalBound(
    query: string,
    searched: Parameters<KbSearchService['holdMicro']>[0][],
    chunk: number,
    rag: ProjectRagSettings,
    pdfChunks: Piece[],
  ): number {
    let micro = 0;
    for (const store of searched) micro += this.search.holdMicro(store, [query]);
    const pool = rag.rerank ? MAX_CANDIDATES * chunk : 0;
    if (pool > 0 || pdfChunks.length > 0)
      micro += this.rerank.holdMicro('small', this.rerank.countTokens([query, ...pdfChunks.map((c) => c.text)]) + pool);
    return micro;
  }

  private async loadProject(teamId: string, projectId: string): Promise<ProjectContext> {
    const project = this.projects ? await this.projects.load(teamId, projectId) : null;
    if (!project) throw ApiError.notFound(`Project '${projectId}' not found.`, 'project_not_found', 'project_id');
    return project;
  }

  private tokens(text: string): number {
    return this.tokenizers.chat.count(text);
  }

  private piece(
    label: SourceLabel,
    text: string,
    score: number | null,
    meta: Pick<Piece, 'kind' | 'materialId' | 'documentId' | 'fullKey' | 'origin'>,
  ): Piece {
    // full documents are measured as formatted; fragments after rerank (only the kept ones)
    const tokens = score === null ? this.tokens(formatSource(99, label, text)) : 0;
    return { label, text, tokens, score: score ?? 0, ...meta };
  }

  private hitPiece(
    h: SearchHit,
    m: { kind: SourceKind; materialId: string | null; title?: string; url?: string | null; origin: Piece['origin'] },
  ): Piece {
    const title = m.title ?? h.document.title ?? h.document.filename;
    const url = m.url !== undefined ? m.url : h.document.url;
    return this.piece({ title, page: h.chunk.page, url }, h.chunk.text, h.score, {
      kind: m.kind,
      materialId: m.materialId,
      documentId: h.document.id,
      origin: m.origin,
    });
  }
}

/** data: URLs are not repeated in the context (they can be megabytes). */
function urlLabel(url: string): string | null {
  return /^data:/i.test(url) ? null : url;
}

/** The context's system message goes after the caller's leading system turns; images join the last user turn. */
export function withContext(messages: ChatMessage[], ctx: AssembledContext | null): ChatMessage[] {
  if (!ctx || (!ctx.message && !ctx.imageUrls.length)) return messages;
  const out = [...messages];
  if (ctx.message) {
    let at = 0;
    while (at < out.length && (out[at].role === 'system' || out[at].role === 'developer')) at++;
    out.splice(at, 0, { role: 'system', content: ctx.message });
  }
  if (ctx.imageUrls.length) {
    let last = -1;
    out.forEach((m, i) => {
      if (m.role === 'user') last = i;
    });
    if (last >= 0) {
      const m = out[last];
      const parts: ContentPart[] =
        typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [...(m.content ?? [])];
      for (const url of ctx.imageUrls) parts.push({ type: 'image_url', image_url: { url } });
      out[last] = { ...m, content: parts };
    }
  }
  return out;
}
