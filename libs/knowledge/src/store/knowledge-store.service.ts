import { Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import type { RequestHold } from '@app/billing';
import type { StoreSearch } from '@app/chat/context/ports';
import { KbSearchService } from '../kb-search.service';
import { KnowledgeService } from '../knowledge.service';
import { KnowledgeStore, StoreRef, StoreSearchQuery, StoreSearchResult } from './knowledge-store';
import { toSearchHit, toStoreRef } from './read-models';

/** The internal store API over knowledge's services; chat's StoreSearch port is bound to it. */
@Injectable()
export class KnowledgeStoreService extends KnowledgeStore implements StoreSearch {
  constructor(
    private readonly knowledge: KnowledgeService,
    private readonly searcher: KbSearchService,
  ) {
    super();
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
    const out = await this.searcher.search(caller, store, { ...query, filter: null }, requestId, endpoint, within);
    return { hits: out.hits.map(toSearchHit), queryTokens: out.queryTokens, costMicro: out.costMicro };
  }
}
