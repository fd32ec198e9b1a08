import type { ChatMessage, ContentPart } from '@app/providers';
import { contextMessage, formatSource } from './context-plan';
import type { AssembledContext, ChatSource, ContextPlan, FullDocuments, Retrieved } from './context.types';
import type { CountTokens } from './pieces';

/**
 * Step 4a, the context itself: full documents then fragments, numbered as the model cites them,
 * in one system message, with the sources and the record of how it was built.
 */
export function assembleContext(
  count: CountTokens,
  plan: ContextPlan,
  docs: FullDocuments,
  retrieved: Retrieved,
  images: { imageUrls: string[]; skipped: number },
): Omit<AssembledContext, 'elapsedMs'> {
  const pieces = [...docs.full, ...retrieved.fragments];
  const message = pieces.length ? contextMessage(pieces.map((p, i) => formatSource(i + 1, p.label, p.text))) : null;
  if (!pieces.length && !plan.notes.length) plan.notes.push('No material matched the question.');
  const sources: ChatSource[] = pieces.map((p, i) => ({
    n: i + 1,
    material_id: p.materialId,
    kind: p.kind,
    title: p.label.title,
    page: p.label.page,
    url: p.label.url,
    score: p.fullKey !== undefined ? null : Math.round(p.score * 10_000) / 10_000,
    document_id: p.documentId,
    filename: p.filename ?? null,
    chunk_index: p.fullKey !== undefined ? null : (p.chunkIndex ?? null),
  }));
  return {
    message,
    imageUrls: images.imageUrls,
    sources,
    details: pieces.map((p) => ({ text: p.text, attributes: p.attributes ?? null })),
    info: {
      mode: plan.mode,
      materials_full: docs.full.map((p) => p.fullKey!),
      fragments: retrieved.fragments.length,
      tokens: message ? count(message) : 0,
      budget_tokens: plan.budget,
      images: images.imageUrls.length,
      images_skipped: images.skipped,
      notes: plan.notes,
    },
    retrievalMicro: retrieved.retrievalMicro,
    hold: retrieved.hold,
    searchMs: retrieved.searchMs,
    rerankMs: retrieved.rerankMs,
  };
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
