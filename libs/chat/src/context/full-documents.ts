import { fillInOrder } from './context-plan';
import type { ContextPlan, ContextRequest, FullDocuments, Piece } from './context.types';
import { CountTokens, makePiece, urlLabel } from './pieces';
import type { StoreSearch } from './ports';

/**
 * Step 2, full documents (mode `full`): project materials, then file_urls PDFs, each whole while it
 * fits the budget in order; what does not fit is left to retrieval (never cut silently).
 */
export class FullDocumentStep {
  constructor(
    private readonly stores: StoreSearch,
    private readonly count: CountTokens,
  ) {}

  async fit(req: ContextRequest, plan: ContextPlan): Promise<FullDocuments> {
    if (plan.mode !== 'full') return { full: [], used: 0, remainderDocs: null, remainderPdfs: req.pdfs };
    const docs = [...(await this.materials(plan)), ...this.pdfs(req)];
    const fit = fillInOrder(docs, plan.budget);
    if (fit.rest.length)
      plan.notes.push(
        `${fit.rest.length} material(s) did not fit the context budget in full; relevant fragments of them were retrieved instead: ${fit.rest.map((d) => d.label.title).join(', ')}.`,
      );
    return {
      full: fit.kept,
      used: fit.used,
      remainderDocs: new Set(fit.rest.filter((d) => d.documentId !== null).map((d) => d.documentId!)),
      remainderPdfs: req.pdfs.filter((p) => fit.rest.some((d) => d.fullKey === p.url)),
    };
  }

  private async materials({ project }: ContextPlan): Promise<Piece[]> {
    const docs: Piece[] = [];
    for (const m of project?.materials ?? []) {
      const { text } = await this.stores.chunkedText(project!.storeId, m.documentId);
      if (!text.trim()) continue;
      docs.push(
        makePiece(this.count, { title: m.title, page: null, url: m.url }, text, null, {
          kind: m.kind,
          materialId: m.id,
          documentId: m.documentId,
          fullKey: m.id,
        }),
      );
    }
    return docs;
  }

  private pdfs(req: ContextRequest): Piece[] {
    return req.pdfs.map((p) =>
      makePiece(
        this.count,
        { title: p.title, page: null, url: urlLabel(p.url) },
        p.doc.pages.map((x) => x.text).join('\n\n'),
        null,
        { kind: 'file_url', materialId: null, documentId: null, fullKey: p.url },
      ),
    );
  }
}
