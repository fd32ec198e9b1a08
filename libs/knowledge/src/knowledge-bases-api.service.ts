import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/common';
import type { Caller } from '@app/auth';
import {
  CreateKnowledgeBaseDto,
  KbDocumentDto,
  KbDocumentListDto,
  KbDocumentsQueryDto,
  KbSearchResponseDto,
  KnowledgeBaseDto,
  KnowledgeBaseListDto,
  KnowledgeBaseSearchDto,
  LinkDto,
  TextDocumentDto,
  UpdateKnowledgeBaseDto,
} from './dto/knowledge-bases.dto';
import { PageQueryDto } from './dto/vector-stores.dto';
import type { UploadedBytes } from './files.service';
import { parseAttributeQuery, parseFilterQuery } from './kb-rules';
import { KbSearchService } from './kb-search.service';
import { KnowledgeService } from './knowledge.service';
import { toDocument, toKbSearchResponse, toKnowledgeBase } from './knowledge.presenter';
import { Searched, searchStore } from './vector-stores-api.service';

/**
 * The public REST knowledge-base API (`/api/v1/knowledge-bases`): its request rules between the
 * controller and the knowledge service, answering with response DTOs.
 */
@Injectable()
export class KnowledgeBasesApiService {
  constructor(
    private readonly kb: KnowledgeService,
    private readonly search: KbSearchService,
  ) {}

  async create(caller: Caller, dto: CreateKnowledgeBaseDto): Promise<KnowledgeBaseDto> {
    return toKnowledgeBase(await this.kb.createStore(caller, dto));
  }

  async list(caller: Caller, q: PageQueryDto): Promise<KnowledgeBaseListDto> {
    const { views, hasMore } = await this.kb.listStores(caller, q);
    return { data: views.map(toKnowledgeBase), has_more: hasMore };
  }

  async get(caller: Caller, id: string): Promise<KnowledgeBaseDto> {
    return toKnowledgeBase(await this.kb.view(caller.teamId, id));
  }

  async update(caller: Caller, id: string, dto: UpdateKnowledgeBaseDto): Promise<KnowledgeBaseDto> {
    return toKnowledgeBase(await this.kb.updateStore(caller, id, dto));
  }

  async delete(caller: Caller, id: string): Promise<void> {
    await this.kb.deleteStore(caller, id);
  }

  async addText(caller: Caller, id: string, dto: TextDocumentDto): Promise<KbDocumentDto> {
    return toDocument(await this.kb.addText(caller, id, dto));
  }

  /** A multipart upload; `metadata` is a JSON object string. */
  async addUpload(
    caller: Caller,
    id: string,
    file: UploadedBytes | undefined,
    metadataJson: string | undefined,
    replace: 'true' | 'false' = 'true',
  ): Promise<KbDocumentDto> {
    let metadata: unknown;
    if (typeof metadataJson === 'string' && metadataJson !== '') {
      try {
        metadata = JSON.parse(metadataJson);
      } catch {
        throw ApiError.badRequest('metadata must be a JSON object string.', 'metadata');
      }
    }
    return toDocument(await this.kb.addUpload(caller, id, file, metadata, replace !== 'false'));
  }

  /** `rawQuery`: the query as parsed, where flat `attributes[key]` parameters are found. */
  async documents(
    caller: Caller,
    id: string,
    q: KbDocumentsQueryDto,
    rawQuery: Record<string, unknown> = {},
  ): Promise<KbDocumentListDto> {
    const attributes = parseAttributeQuery(rawQuery);
    const filter = parseFilterQuery(q.filters);
    const { docs, hasMore } = await this.kb.listDocuments(caller, id, {
      after: q.after,
      limit: q.limit,
      order: q.order,
      status: q.status,
      attributes,
      filter,
    });
    return { data: docs.map(toDocument), has_more: hasMore };
  }

  async retryDocument(caller: Caller, id: string, docId: string): Promise<KbDocumentDto> {
    return toDocument(await this.kb.retryDocument(caller, id, docId));
  }

  async document(caller: Caller, id: string, docId: string): Promise<KbDocumentDto> {
    return toDocument(await this.kb.requireDocument(caller.teamId, id, docId));
  }

  async deleteDocument(caller: Caller, id: string, docId: string): Promise<void> {
    await this.kb.deleteDocument(caller, id, docId);
  }

  async addLink(caller: Caller, id: string, dto: LinkDto): Promise<KbDocumentDto> {
    return toDocument(await this.kb.addLink(caller, id, dto));
  }

  async refreshLink(caller: Caller, id: string, linkId: string): Promise<KbDocumentDto> {
    return toDocument(await this.kb.refreshLink(caller, id, linkId));
  }

  /** POST /api/v1/knowledge-bases/{id}/search: top_k 10 and similarity 0.1 unless given. */
  async searchKnowledgeBase(
    caller: Caller,
    storeId: string,
    dto: KnowledgeBaseSearchDto,
    requestId: string,
  ): Promise<Searched<KbSearchResponseDto>> {
    const outcome = await searchStore(
      this.kb,
      this.search,
      { caller, storeId, filters: dto.filters, requestId, endpoint: '/api/v1/knowledge-bases/search' },
      { queries: [dto.query], topK: dto.top_k ?? 10, threshold: dto.similarity_threshold ?? 0.1 },
    );
    return { body: toKbSearchResponse(outcome), outcome };
  }
}
