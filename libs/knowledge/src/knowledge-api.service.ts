import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/common';
import type { Caller } from '@app/auth';
import { KbSearchResponseDto, KnowledgeBaseSearchDto } from './dto/knowledge-bases.dto';
import {
  SearchPageDto,
  VectorStoreFileListDto,
  VectorStoreFilesQueryDto,
  VectorStoreSearchDto,
} from './dto/vector-stores.dto';
import { KbSearchService, SearchOutcome } from './kb-search.service';
import { parseFilter } from './kb-rules';
import { KnowledgeService } from './knowledge.service';
import { toKbSearchResponse, toPage, toSearchPage, toVectorStoreFile } from './knowledge.presenter';

/** A search answer plus what the controller puts in headers (cost, timings). */
export interface Searched<T> {
  body: T;
  outcome: SearchOutcome;
}

/** `query` of a vector-store search: a string or 1–10 strings. */
export function searchQueries(query: unknown): string[] {
  if (typeof query === 'string') return [query];
  if (Array.isArray(query) && query.length > 0 && query.length <= 10 && query.every((q) => typeof q === 'string'))
    return query as string[];
  throw ApiError.badRequest('query must be a string or a list of 1–10 strings.', 'query');
}

/** The request rules of the two knowledge APIs (search defaults, the OpenAI file-status filter) between the controllers and the services. */
@Injectable()
export class KnowledgeApiService {
  constructor(
    private readonly kb: KnowledgeService,
    private readonly search: KbSearchService,
  ) {}

  /** POST /v1/vector_stores/{id}/search: max_num_results 10 and no score threshold unless given. */
  async searchVectorStore(
    caller: Caller,
    storeId: string,
    dto: VectorStoreSearchDto,
    requestId: string,
  ): Promise<Searched<SearchPageDto>> {
    const queries = searchQueries(dto.query);
    const outcome = await this.run(
      caller,
      storeId,
      dto.filters,
      { queries, topK: dto.max_num_results ?? 10, threshold: dto.ranking_options?.score_threshold ?? 0 },
      requestId,
      '/v1/vector_stores/search',
    );
    return { body: toSearchPage(dto.query as string | string[], outcome.hits), outcome };
  }

  /** POST /api/v1/knowledge-bases/{id}/search: top_k 10 and similarity 0.1 unless given. */
  async searchKnowledgeBase(
    caller: Caller,
    storeId: string,
    dto: KnowledgeBaseSearchDto,
    requestId: string,
  ): Promise<Searched<KbSearchResponseDto>> {
    const outcome = await this.run(
      caller,
      storeId,
      dto.filters,
      { queries: [dto.query], topK: dto.top_k ?? 10, threshold: dto.similarity_threshold ?? 0.1 },
      requestId,
      '/api/v1/knowledge-bases/search',
    );
    return { body: toKbSearchResponse(outcome), outcome };
  }

  /**
   * Files of a vector store, or of one of its batches (404 for an unknown batch). OpenAI's
   * `in_progress` covers our queued and in-progress documents, so it is matched after mapping.
   */
  async listStoreFiles(
    caller: Caller,
    storeId: string,
    q: VectorStoreFilesQueryDto,
    batchId?: string,
  ): Promise<VectorStoreFileListDto> {
    if (batchId !== undefined) await this.kb.getBatch(caller, storeId, batchId);
    const { docs, hasMore } = await this.kb.listDocuments(caller, storeId, {
      ...q,
      batchId,
      status: q.filter === 'in_progress' ? undefined : q.filter,
    });
    return toPage(
      docs.map(toVectorStoreFile).filter((d) => q.filter === undefined || d.status === q.filter),
      hasMore,
    );
  }

  private async run(
    caller: Caller,
    storeId: string,
    filters: unknown,
    input: { queries: string[]; topK: number; threshold: number },
    requestId: string,
    endpoint: string,
  ): Promise<SearchOutcome> {
    const filter = parseFilter(filters);
    const store = await this.kb.useStore(caller.teamId, storeId);
    return this.search.search(caller, store, { ...input, filter }, requestId, endpoint);
  }
}
