import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/common';
import type { Caller } from '@app/auth';
import {
  CreateFileBatchDto,
  CreateVectorStoreDto,
  CreateVectorStoreFileDto,
  FileBatchDto,
  PageQueryDto,
  SearchPageDto,
  UpdateVectorStoreDto,
  VectorStoreDto,
  VectorStoreFileDto,
  VectorStoreFileListDto,
  VectorStoreFilesQueryDto,
  VectorStoreListDto,
  VectorStoreSearchDto,
} from './dto/vector-stores.dto';
import { KbSearchService, SearchOutcome } from './kb-search.service';
import { parseAttributeQuery, parseFilter, parseFilterQuery } from './kb-rules';
import { KnowledgeService } from './knowledge.service';
import { toBatch, toPage, toSearchPage, toVectorStore, toVectorStoreFile } from './knowledge.presenter';

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

/** A search of one knowledge base the team may use (expiry restarted), with a metadata filter. */
export async function searchStore(
  kb: KnowledgeService,
  search: KbSearchService,
  req: { caller: Caller; storeId: string; filters: unknown; requestId: string; endpoint: string },
  input: { queries: string[]; topK: number; threshold: number },
): Promise<SearchOutcome> {
  const filter = parseFilter(req.filters);
  const store = await kb.useStore(req.caller.teamId, req.storeId);
  return search.search(req.caller, store, { ...input, filter }, req.requestId, req.endpoint);
}

/**
 * The public OpenAI vector-store API (`/v1/vector_stores`): the rules of the OpenAI shapes between
 * the controller and the knowledge service, answering with response DTOs.
 */
@Injectable()
export class VectorStoresApiService {
  constructor(
    private readonly kb: KnowledgeService,
    private readonly search: KbSearchService,
  ) {}

  async create(caller: Caller, dto: CreateVectorStoreDto): Promise<VectorStoreDto> {
    return toVectorStore(await this.kb.createStore(caller, dto));
  }

  async list(caller: Caller, q: PageQueryDto): Promise<VectorStoreListDto> {
    const { views, hasMore } = await this.kb.listStores(caller, q);
    return toPage(views.map(toVectorStore), hasMore);
  }

  async get(caller: Caller, id: string): Promise<VectorStoreDto> {
    return toVectorStore(await this.kb.view(caller.teamId, id));
  }

  async update(caller: Caller, id: string, dto: UpdateVectorStoreDto): Promise<VectorStoreDto> {
    return toVectorStore(await this.kb.updateStore(caller, id, dto));
  }

  async delete(caller: Caller, id: string): Promise<void> {
    await this.kb.deleteStore(caller, id);
  }

  async addFile(caller: Caller, id: string, dto: CreateVectorStoreFileDto): Promise<VectorStoreFileDto> {
    return toVectorStoreFile(await this.kb.addFile(caller, id, dto));
  }

  async file(caller: Caller, id: string, fileId: string): Promise<VectorStoreFileDto> {
    return toVectorStoreFile(await this.kb.requireDocument(caller.teamId, id, fileId));
  }

  async updateAttributes(caller: Caller, id: string, fileId: string, attributes: unknown): Promise<VectorStoreFileDto> {
    return toVectorStoreFile(await this.kb.updateAttributes(caller, id, fileId, attributes));
  }

  async deleteFile(caller: Caller, id: string, fileId: string): Promise<void> {
    await this.kb.deleteDocument(caller, id, fileId);
  }

  async createBatch(caller: Caller, id: string, dto: CreateFileBatchDto): Promise<FileBatchDto> {
    const { batch, counts } = await this.kb.createBatch(caller, id, dto);
    return toBatch(batch, counts);
  }

  async batch(caller: Caller, id: string, batchId: string): Promise<FileBatchDto> {
    const { batch, counts } = await this.kb.getBatch(caller, id, batchId);
    return toBatch(batch, counts);
  }

  async cancelBatch(caller: Caller, id: string, batchId: string): Promise<FileBatchDto> {
    const { batch, counts } = await this.kb.cancelBatch(caller, id, batchId);
    return toBatch(batch, counts);
  }

  /**
   * Files of a vector store, or of one of its batches (404 for an unknown batch). OpenAI's
   * `in_progress` covers our queued and in-progress documents, so it is matched after mapping.
   */
  async listFiles(
    caller: Caller,
    storeId: string,
    q: VectorStoreFilesQueryDto,
    batchId?: string,
    rawQuery: Record<string, unknown> = {},
  ): Promise<VectorStoreFileListDto> {
    const attributes = parseAttributeQuery(rawQuery);
    const filter = parseFilterQuery(q.filters);
    if (batchId !== undefined) await this.kb.getBatch(caller, storeId, batchId);
    const { docs, hasMore } = await this.kb.listDocuments(caller, storeId, {
      after: q.after,
      limit: q.limit,
      order: q.order,
      batchId,
      status: q.filter === 'in_progress' ? undefined : q.filter,
      attributes,
      filter,
    });
    return toPage(
      docs.map(toVectorStoreFile).filter((d) => q.filter === undefined || d.status === q.filter),
      hasMore,
    );
  }

  /** POST /v1/vector_stores/{id}/search: max_num_results 10 and no score threshold unless given. */
  async searchStore(
    caller: Caller,
    storeId: string,
    dto: VectorStoreSearchDto,
    requestId: string,
  ): Promise<Searched<SearchPageDto>> {
    const outcome = await searchStore(
      this.kb,
      this.search,
      { caller, storeId, filters: dto.filters, requestId, endpoint: '/v1/vector_stores/search' },
      {
        queries: searchQueries(dto.query),
        topK: dto.max_num_results ?? 10,
        threshold: dto.ranking_options?.score_threshold ?? 0,
      },
    );
    return { body: toSearchPage(dto.query as string | string[], outcome.hits), outcome };
  }
}
