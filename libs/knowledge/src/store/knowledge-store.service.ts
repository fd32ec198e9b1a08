import type { DataPolicy } from '@app/data-protection/policy';
import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import type { RequestHold } from '@app/billing';
import type { StoreSearch } from '@app/chat/context/ports';
import { KbSearchService } from '../kb-search.service';
import { KnowledgeService } from '../knowledge.service';
import {
  DocumentFile,
  DocumentRef,
  InternalSource,
  KnowledgeBaseRef,
  KnowledgeStore,
  StoreRef,
  StoreSearchQuery,
  StoreSearchResult,
} from './knowledge-store';
import { toDocumentRef, toSearchHit, toStoreRef } from './read-models';
import { ApiError } from '@app/common';
import { parseFilter } from '../kb-rules';

/** The internal store API over knowledge's services; chat's StoreSearch port is bound to it. */
@Injectable()
export class KnowledgeStoreService extends KnowledgeStore implements StoreSearch {
  constructor(
    private readonly knowledge: KnowledgeService,
    private readonly searcher: KbSearchService,
  ) {
    super();
  }

  async knowledgeBase(teamId: string, id: string): Promise<KnowledgeBaseRef> {
    const store = await this.knowledge.requireStore(teamId, id);
    return { id: store.id, name: store.name };
  }

  async missingKnowledgeBases(teamId: string, ids: string[]): Promise<Set<string>> {
    const gone = new Set<string>();
    for (const id of ids) {
      try {
        await this.knowledge.requireStore(teamId, id);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) gone.add(id);
        else throw err;
      }
    }
    return gone;
  }

  async createInternalStore(
    teamId: string,
    name: string,
    policy?: Pick<DataPolicy, 'residency'> | null,
  ): Promise<StoreRef> {
    return toStoreRef(await this.knowledge.createInternalStore(teamId, name, policy));
  }

  deleteInternalStore(teamId: string, id: string, ownedFileIds: string[] = []): Promise<void> {
    return this.knowledge.deleteInternalStore(teamId, id, ownedFileIds);
  }

  async addInternalDocument(
    teamId: string,
    storeId: string,
    src: InternalSource,
    holder: string,
  ): Promise<DocumentRef> {
    return toDocumentRef(await this.knowledge.addInternalDocument(teamId, storeId, src, holder));
  }

  async replaceInternalText(teamId: string, storeId: string, docId: string, text: string): Promise<DocumentRef> {
    return toDocumentRef(await this.knowledge.replaceInternalText(teamId, storeId, docId, text));
  }

  async refreshInternalDocument(teamId: string, storeId: string, docId: string): Promise<DocumentRef> {
    return toDocumentRef(await this.knowledge.refreshInternalDocument(teamId, storeId, docId));
  }

  deleteInternalDocument(
    teamId: string,
    storeId: string,
    docId: string,
    opts: { deleteFile?: boolean } = {},
  ): Promise<void> {
    return this.knowledge.deleteInternalDocument(teamId, storeId, docId, opts);
  }

  async internalDocuments(teamId: string, storeId: string, ids: string[]): Promise<DocumentRef[]> {
    return (await this.knowledge.internalDocuments(teamId, storeId, ids)).map(toDocumentRef);
  }

  documentFile(teamId: string, docId: string): Promise<DocumentFile | null> {
    return this.knowledge.documentFile(teamId, docId);
  }

  documentText(teamId: string, storeId: string, docId: string): Promise<string> {
    return this.knowledge.documentText(teamId, storeId, docId);
  }

  async useStore(teamId: string, id: string): Promise<StoreRef> {
    return toStoreRef(await this.knowledge.useStore(teamId, id));
  }

  async searchableStore(teamId: string, id: string): Promise<StoreRef | null> {
    const store = await this.knowledge.searchableStore(teamId, id);
    return store ? toStoreRef(store) : null;
  }

  async chunkedText(storeId: string, documentId: string): Promise<{ text: string }> {
    return { text: (await this.knowledge.chunkedText(storeId, documentId)).text };
  }

  maxChunkTokens(stores: StoreRef[]): Promise<number> {
    return this.searcher.maxChunkTokens(stores);
  }

  holdMicro(store: StoreRef, queries: string[]): number {
    return this.searcher.holdMicro(store, queries);
  }

  async search(
    caller: Caller,
    store: StoreRef,
    query: StoreSearchQuery,
    requestId: string,
    endpoint: string,
    within?: RequestHold,
  ): Promise<StoreSearchResult> {
    const { filters, filtersParam, ...rest } = query;
    const filter = filters === undefined || filters === null ? null : parseFilter(filters, filtersParam);
    const out = await this.searcher.search(caller, store, { ...rest, filter }, requestId, endpoint, within);
    return { hits: out.hits.map(toSearchHit), queryTokens: out.queryTokens, costMicro: out.costMicro };
  }
}
