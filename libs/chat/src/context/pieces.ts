import { formatSource, SourceLabel } from './context-plan';
import type { Piece, SourceKind } from './context.types';
import type { StoreHit } from './ports';

export type CountTokens = (text: string) => number;

/**
 * A source piece. Full documents (score null) are measured as formatted here; fragments are measured
 * after rerank, only the kept ones.
 */
export function makePiece(
  count: CountTokens,
  label: SourceLabel,
  text: string,
  score: number | null,
  meta: Pick<
    Piece,
    'kind' | 'materialId' | 'documentId' | 'fullKey' | 'origin' | 'filename' | 'chunkIndex' | 'attributes'
  >,
): Piece {
  const tokens = score === null ? count(formatSource(99, label, text)) : 0;
  return { label, text, tokens, score: score ?? 0, ...meta };
}

/** A search hit as a fragment; the material's title and URL win over the document's. */
export function hitPiece(
  count: CountTokens,
  h: StoreHit,
  m: { kind: SourceKind; materialId: string | null; title?: string; url?: string | null; origin: Piece['origin'] },
): Piece {
  const title = m.title ?? h.document.title ?? h.document.filename;
  const url = m.url !== undefined ? m.url : h.document.url;
  return makePiece(count, { title, page: h.chunk.page, url }, h.chunk.text, h.score, {
    kind: m.kind,
    materialId: m.materialId,
    documentId: h.document.id,
    filename: h.document.filename,
    chunkIndex: h.chunk.index ?? null,
    attributes: h.document.attributes ?? null,
    origin: m.origin,
  });
}

/** data: URLs are not repeated in the context (they can be megabytes). */
export function urlLabel(url: string): string | null {
  return /^data:/i.test(url) ? null : url;
}
