/**
 * Pure rules of chat context assembly: which path a request takes (full
 * documents or retrieved fragments), the token budget the context may use, greedy filling, and the
 * `<source>` format the model cites from. No I/O here; the steps beside this file do the fetching.
 */
import { PROJECT_MODES, ProjectMode } from './ports';

export type ContextMode = 'full' | 'rag';
/** Project modes (and the request-level `mode` extension): the port's ProjectMode. */
export type RequestedMode = ProjectMode;
export const CONTEXT_MODES: readonly RequestedMode[] = PROJECT_MODES;
/** Modes that receive document content in full, without RAG. */
export const FULL_CONTEXT_MODES: readonly RequestedMode[] = ['big_docs_mode', 'code_mode', 'data_analysis_mode'];

/**
 * Full context when the request's `mode` (else the project's mode) is one of the full modes, or
 * when the model is flagged `full_context` in the catalog (the Gemini 2.5 line, and `local`).
 * A request `mode: "default"` does not switch a full_context model to RAG: the flag is the model's.
 */
export function chooseContextMode(input: {
  requestMode?: RequestedMode | null;
  projectMode?: RequestedMode | null;
  modelFullContext: boolean;
}): ContextMode {
  const mode = input.requestMode ?? input.projectMode ?? 'default';
  return input.modelFullContext || FULL_CONTEXT_MODES.includes(mode) ? 'full' : 'rag';
}

/** Share of the context window kept free: other providers' tokenizers count differently from o200k. */
export const SAFETY_MARGIN_RATIO = 0.05;
/** The margin is at least this many tokens (small windows). */
export const MIN_SAFETY_MARGIN = 256;

export function safetyMargin(contextWindow: number): number {
  return Math.max(MIN_SAFETY_MARGIN, Math.ceil(contextWindow * SAFETY_MARGIN_RATIO));
}

/**
 * Tokens the assembled context may take:
 *   context_window − max output (the request's max_tokens, else the model's cap)
 *   − the request's own prompt tokens (system prompt, messages, prompt, tools)
 *   − safety margin (5 % of the window, ≥ 256). Never negative.
 */
export function contextBudget(input: { contextWindow: number; maxOutputTokens: number; promptTokens: number }): number {
  return Math.max(
    0,
    input.contextWindow - input.maxOutputTokens - input.promptTokens - safetyMargin(input.contextWindow),
  );
}

export interface Sized {
  tokens: number;
}

export interface Scored extends Sized {
  score: number;
}

/**
 * Greedy by score: best first, each piece kept when it still fits the remaining budget (a piece
 * too big is skipped and smaller ones after it may still fit). Ties keep the input order.
 */
export function greedyFill<T extends Scored>(
  items: readonly T[],
  budget: number,
  limit = Number.POSITIVE_INFINITY,
): { kept: T[]; dropped: T[]; used: number } {
  const order = items.map((item, i) => ({ item, i })).sort((a, b) => b.item.score - a.item.score || a.i - b.i);
  return greedyFillRanked(
    order.map((o) => o.item),
    budget,
    limit,
  );
}

/** Greedy in the given (ranked) order: each piece kept when it still fits the remaining budget. */
export function greedyFillRanked<T extends Sized>(
  items: readonly T[],
  budget: number,
  limit = Number.POSITIVE_INFINITY,
): { kept: T[]; dropped: T[]; used: number } {
  const kept: T[] = [];
  const dropped: T[] = [];
  let used = 0;
  for (const item of items) {
    if (kept.length < limit && used + item.tokens <= budget) {
      kept.push(item);
      used += item.tokens;
    } else {
      dropped.push(item);
    }
  }
  return { kept, dropped, used };
}

/**
 * Full documents in their given order (oldest material first): each one goes in whole when it
 * fits what is left of the budget; the rest is returned for retrieval (never cut silently).
 */
export function fillInOrder<T extends Sized>(
  items: readonly T[],
  budget: number,
): { kept: T[]; rest: T[]; used: number } {
  const kept: T[] = [];
  const rest: T[] = [];
  let used = 0;
  for (const item of items) {
    if (item.tokens > 0 && used + item.tokens <= budget) {
      kept.push(item);
      used += item.tokens;
    } else {
      rest.push(item);
    }
  }
  return { kept, rest, used };
}

/** Keeps the `k` best by score (ties: input order). */
export function topK<T extends { score: number }>(items: readonly T[], k: number): T[] {
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => b.item.score - a.item.score || a.i - b.i)
    .slice(0, Math.max(0, k))
    .map((x) => x.item);
}

/** XML attribute escaping (&, <, >, ", ') plus control characters as spaces. */
export function escapeAttribute(value: string): string {
  return (
    value
      // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, ' ')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
      .replace(/\r?\n|\r/g, ' ')
  );
}

/** A closing tag inside the text would end the source early: it is defused, nothing else changes. */
export function escapeSourceText(text: string): string {
  return text.replace(/<\/source\s*>/gi, '<\\/source>');
}

export interface SourceLabel {
  title: string;
  page: number | null;
  url: string | null;
}

/** `<source id="n" title="…" page="…" url="…">text</source>` (page and url only when known). */
export function formatSource(n: number, label: SourceLabel, text: string): string {
  const attrs = [`id="${n}"`, `title="${escapeAttribute(label.title)}"`];
  if (label.page !== null) attrs.push(`page="${label.page}"`);
  if (label.url) attrs.push(`url="${escapeAttribute(label.url)}"`);
  return `<source ${attrs.join(' ')}>\n${escapeSourceText(text)}\n</source>`;
}

export const CONTEXT_INSTRUCTION =
  'Use the sources below to answer. Each source is wrapped in <source id="n" …>…</source>. ' +
  'Cite the sources you use as [n] right after the statement they support. ' +
  'If the sources do not contain the answer, say so instead of guessing.';

/** The one system message that carries the context. */
export function contextMessage(formattedSources: readonly string[]): string {
  return `${CONTEXT_INSTRUCTION}\n\n${formattedSources.join('\n\n')}`;
}
