import { randomUUID } from 'node:crypto';
import type { AssembledContext, FileSearchRequest } from './context/chat-context.service';
import type { ResponsesFileSearch } from './responses-input';

/** `include` value that adds the search results to the file_search_call item (as OpenAI's API). */
export const FILE_SEARCH_RESULTS_INCLUDE = 'file_search_call.results';

export interface FileCitation {
  type: 'file_citation';
  file_id: string;
  filename: string;
  /** character position in the output text the citation belongs to */
  index: number;
}

export interface FileSearchResult {
  file_id: string;
  filename: string;
  text: string;
  score: number;
  attributes: Record<string, unknown> | null;
}

export interface FileSearchCallItem {
  id: string;
  type: 'file_search_call';
  status: 'in_progress' | 'searching' | 'completed';
  queries: string[];
  results: FileSearchResult[] | null;
}

/** The file search a response ran before its model answered: the output item and what the answer may cite. */
export interface FileSearchRun {
  item: FileSearchCallItem;
  /** the retrieved fragments, numbered as the model was given them ([n]) */
  sources: { n: number; fileId: string; filename: string; text: string }[];
}

/** The tool as the context assembly takes it; errors about the stores name `tools[i].vector_store_ids`. */
export function fileSearchRequest(tool: ResponsesFileSearch): FileSearchRequest {
  return {
    storeIds: tool.vectorStoreIds,
    param: `tools[${tool.index}].vector_store_ids`,
    maxResults: tool.maxNumResults,
    threshold: tool.scoreThreshold,
    filters: tool.filters,
    filtersParam: `tools[${tool.index}].filters`,
  };
}

/** The tool as the response object echoes it (OpenAI's FileSearchTool). */
export function echoFileSearchTool(tool: ResponsesFileSearch): Record<string, unknown> {
  return {
    type: 'file_search',
    vector_store_ids: tool.vectorStoreIds,
    max_num_results: tool.maxNumResults,
    ranking_options: { ranker: 'auto', score_threshold: tool.scoreThreshold },
    filters: tool.filters,
  };
}

/** The completed file_search_call item; `results` only when the request included them. */
export function fileSearchRun(ctx: AssembledContext | null, query: string, withResults: boolean): FileSearchRun {
  const sources: FileSearchRun['sources'] = [];
  const results: FileSearchResult[] = [];
  (ctx?.sources ?? []).forEach((s, i) => {
    if (s.document_id === null) return;
    const filename = s.filename ?? s.title;
    const detail = ctx!.details[i];
    sources.push({ n: s.n, fileId: s.document_id, filename, text: detail.text });
    results.push({
      file_id: s.document_id,
      filename,
      text: detail.text,
      score: s.score ?? 0,
      attributes: detail.attributes,
    });
  });
  return {
    item: {
      id: `fs_${randomUUID().replace(/-/g, '')}`,
      type: 'file_search_call',
      status: 'completed',
      queries: query ? [query] : [],
      results: withResults ? results : null,
    },
    sources,
  };
}

/**
 * The file citations of an answer. Markers `[n]` (the context asks the model to cite so) cite
 * source n at the marker. An answer without markers (e.g. one that quotes its sources, as the
 * local extractive model does) cites, at the end of each quoted line, the first source holding it.
 */
export function fileCitations(text: string, run: FileSearchRun | null): FileCitation[] {
  if (!run || run.sources.length === 0 || text === '') return [];
  const byN = new Map(run.sources.map((s) => [s.n, s]));
  const out: FileCitation[] = [];
  for (const m of text.matchAll(/\[(\d{1,3})\]/g)) {
    const s = byN.get(Number(m[1]));
    if (s) out.push(cite(s, m.index));
  }
  if (out.length > 0) return out;
  const texts = run.sources.map((s) => ({ s, flat: collapse(s.text) }));
  let at = 0;
  for (const line of text.split('\n')) {
    const quoted = collapse(line);
    const end = at + line.trimEnd().length;
    at += line.length + 1;
    if (quoted.length < 8) continue;
    const hit = texts.find((t) => t.flat.includes(quoted));
    if (hit) out.push(cite(hit.s, end));
  }
  return out;
}

function cite(s: FileSearchRun['sources'][number], index: number): FileCitation {
  return { type: 'file_citation', file_id: s.fileId, filename: s.filename, index };
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
