import type { RequestHold } from '@app/billing';
import { reciprocalRankFusion } from '@app/retrieval';
import { formatSource, greedyFill, greedyFillRanked, topK } from './context-plan';
import type { ContextPlan, ContextRequest, FullDocuments, Piece, Retrieved } from './context.types';
import { CountTokens, hitPiece, makePiece, urlLabel } from './pieces';
import type { DocumentReader, Scoring, SearchableStore, StoreSearch } from './ports';

/** Candidates gathered per store, and in total, before rerank. */
export const MAX_CANDIDATES = 30;
/** The largest chunk a store can hold (static chunking's maximum). */
const MAX_CHUNK_TOKENS = 4096;
/** A fragment's source label in the context (title ≤ 512 characters, page, URL), in tokens. */
const LABEL_TOKENS = 600;

/** The request hold taken for the retrieval, kept where the composer can release it on failure. */
export interface TakenHold {
  hold: RequestHold | null;
}

/**
 * Step 3, retrieve and rerank: the stores are searched concurrently (each search bills its query
 * embedding), the candidate pool and the PDF chunks of file_urls are scored by the rerank engine,
 * and the best fragments fill what the full documents left of the budget, greedy by score. The
 * stores' results are merged by reciprocal rank (each keeps its search's fused order); without
 * reranking that merged order, not the search cosine, orders the fragments.
 */
export class ContextRetrieval {
  constructor(
    private readonly stores: StoreSearch,
    private readonly scoring: Scoring,
    private readonly reader: DocumentReader,
    private readonly count: CountTokens,
  ) {}

  async retrieve(req: ContextRequest, plan: ContextPlan, docs: FullDocuments, taken: TakenHold): Promise<Retrieved> {
    const none: Retrieved = { fragments: [], used: 0, retrievalMicro: 0, hold: null, searchMs: 0, rerankMs: 0 };
    const query = req.query.trim();
    const projectStore = docs.remainderDocs === null || docs.remainderDocs.size > 0 ? plan.projectStore : null;
    const searched = [...(projectStore ? [projectStore] : []), ...plan.kbStores];
    if (!searched.length && !docs.remainderPdfs.length) return none;
    if (!query) {
      plan.notes.push('The request has no text to search with; no fragments were retrieved.');
      return none;
    }
    const left = plan.budget - docs.used;
    const pdfChunks = await this.pdfFragments(docs);
    // the rerank engine's model is used by the request too: refused before the first paid step
    if ((plan.rag.rerank && searched.length > 0) || pdfChunks.length > 0) this.scoring.assertAllowed(req.caller);
    // the whole request's worst case is held before the first paid step (query embeddings, rerank,
    // then the answer): a request the balance cannot cover is refused before anything is charged
    const hold = await this.openHold(req, plan, docs.used, searched, query, pdfChunks);
    taken.hold = hold;
    const searchStart = performance.now();
    const found = await this.search(req, plan, query, projectStore, docs.remainderDocs, hold);
    const searchMs = performance.now() - searchStart;
    const rerankStart = performance.now();
    const pool = found.candidates.slice(0, Math.max(MAX_CANDIDATES, plan.rag.top_k));
    const rerankMicro = await this.rescore(req, query, plan.rag.rerank ? [...pool, ...pdfChunks] : pdfChunks, hold);
    const rerankMs = rerankMicro === null ? 0 : performance.now() - rerankStart;
    const pdfs = pdfChunks.filter((c) => c.score >= plan.rag.file_threshold);
    // reranked: by the rerank scores; otherwise the searches' fused order, PDF chunks fused in by their score
    const best = plan.rag.rerank
      ? topK([...pool, ...pdfs], plan.rag.top_k)
      : fuseRanked([pool, topK(pdfs, pdfs.length)]).slice(0, plan.rag.top_k);
    for (const c of best) c.tokens = this.count(formatSource(99, c.label, c.text));
    const fit = plan.rag.rerank ? greedyFill(best, left) : greedyFillRanked(best, left);
    if (fit.dropped.length)
      plan.notes.push(`${fit.dropped.length} relevant fragment(s) did not fit the context budget.`);
    const retrievalMicro = found.costMicro + (rerankMicro ?? 0);
    return { fragments: fit.kept, used: fit.used, retrievalMicro, hold, searchMs, rerankMs };
  }

  /** PDF chunks from file_urls (no index: the rerank engine scores them in any case). */
  private async pdfFragments(docs: FullDocuments): Promise<Piece[]> {
    const out: Piece[] = [];
    for (const p of docs.remainderPdfs)
      for (const c of await this.reader.fragments(p.doc))
        out.push(
          makePiece(this.count, { title: p.title, page: c.page, url: urlLabel(p.url) }, c.text, -Infinity, {
            kind: 'file_url',
            materialId: null,
            documentId: null,
            origin: 'pdf',
          }),
        );
    return out;
  }

  private async openHold(
    req: ContextRequest,
    plan: ContextPlan,
    fullUsed: number,
    searched: SearchableStore[],
    query: string,
    pdfChunks: Piece[],
  ): Promise<RequestHold | null> {
    if (!req.openHold) return null;
    // the largest fragment a search can return (its store's largest chunk; 10 % for the chat
    // tokenizer counting differently) or PDF chunk, with its source label
    const largest = Math.max(await this.stores.maxChunkTokens(searched), ...pdfChunks.map((c) => this.count(c.text)));
    const chunk = Math.min(MAX_CHUNK_TOKENS, Math.ceil(1.1 * largest));
    const left = plan.budget - fullUsed;
    return req.openHold({
      retrievalMicro: this.retrievalBound(query, searched, chunk, plan, pdfChunks),
      contextTokens: fullUsed + Math.min(left, plan.rag.top_k * (chunk + LABEL_TOKENS)),
      images: plan.project?.images.length ?? 0,
    });
  }

  /**
   * The worst case of the retrieval's paid steps: each store's query embedding, and the rerank of
   * the candidate pool (at most MAX_CANDIDATES fragments of at most `chunk` tokens) with the PDF
   * chunks of file_urls.
   */
  private retrievalBound(
    query: string,
    searched: SearchableStore[],
    chunk: number,
    plan: ContextPlan,
    pdfChunks: Piece[],
  ): number {
    let micro = 0;
    for (const store of searched) micro += this.stores.holdMicro(store, [query]);
    const pool = plan.rag.rerank ? MAX_CANDIDATES * chunk : 0;
    if (pool > 0 || pdfChunks.length > 0)
      micro += this.scoring.holdMicro([query, ...pdfChunks.map((c) => c.text)], pool);
    return micro;
  }

  private async search(
    req: ContextRequest,
    plan: ContextPlan,
    query: string,
    projectStore: SearchableStore | null,
    remainderDocs: Set<string> | null,
    hold: RequestHold | null,
  ): Promise<{ candidates: Piece[]; costMicro: number }> {
    const fs = req.fileSearch;
    const filters = fs ? { filters: fs.filters, filtersParam: fs.filtersParam } : {};
    const run = (store: SearchableStore, threshold: number) =>
      this.stores.search(
        req.caller,
        store,
        { queries: [query], topK: Math.max(MAX_CANDIDATES, plan.rag.top_k), threshold, ...filters },
        req.requestId,
        req.endpoint,
        hold ?? undefined,
      );
    const [projectOut, ...kbOuts] = await Promise.all([
      projectStore ? run(projectStore, plan.rag.file_threshold) : null,
      ...plan.kbStores.map((store) => run(store, plan.rag.kb_threshold)),
    ]);
    const lists: Piece[][] = [];
    let costMicro = 0;
    if (projectOut) {
      costMicro += projectOut.costMicro;
      const byDoc = new Map((plan.project?.materials ?? []).map((m) => [m.documentId, m]));
      const pieces: Piece[] = [];
      for (const h of projectOut.hits) {
        if (remainderDocs !== null && !remainderDocs.has(h.document.id)) continue;
        const m = byDoc.get(h.document.id);
        const meta = { kind: m?.kind ?? 'file', materialId: m?.id ?? null, title: m?.title, url: m?.url } as const;
        pieces.push(hitPiece(this.count, h, { ...meta, origin: 'project' }));
      }
      lists.push(pieces);
    }
    kbOuts.forEach((out, i) => {
      costMicro += out!.costMicro;
      lists.push(
        out!.hits.map((h) =>
          hitPiece(this.count, h, { kind: 'knowledge_base', materialId: plan.kbStores[i].id, origin: 'kb' }),
        ),
      );
    });
    return { candidates: fuseRanked(lists), costMicro };
  }

  /** Scores the pieces in place with the rerank engine (its per-key cache included); null when there were none. */
  private async rescore(
    req: ContextRequest,
    query: string,
    pieces: Piece[],
    hold: RequestHold | null,
  ): Promise<number | null> {
    if (!pieces.length) return null;
    const out = await this.scoring.score(
      req.caller,
      { query, texts: pieces.map((c) => c.text), endpoint: req.endpoint, within: hold ?? undefined },
      req.requestId,
    );
    out.scores.forEach((s, i) => {
      if (!Number.isNaN(s)) pieces[i].score = s;
    });
    return out.chargedMicro;
  }
}

/**
 * Ranked lists (each store's hits in its search's fused order) merged by reciprocal rank, as one
 * search fuses its legs; ties keep the lists' order (the project's store first).
 */
function fuseRanked<T>(lists: readonly T[][]): T[] {
  const flat = lists.flat();
  let next = 0;
  const ids = lists.map((list) => list.map(() => next++));
  return reciprocalRankFusion(ids).map(({ id }) => flat[id]);
}
