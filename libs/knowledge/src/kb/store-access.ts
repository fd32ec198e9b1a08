import { ApiError, Clock } from '@app/common';
import { assertModelAllowed, type Caller } from '@app/auth';
import type { KbDocumentEntity, VectorStoreEntity } from '../entities/knowledge.entities';
import type { KnowledgeRepository } from '../knowledge.repository';
import { documentNotFound, expiredStore, isExpired, storeNotFound } from './store-rules';

/**
 * Finding a store or document of the team for a request: knowledge bases and project-owned
 * (internal) stores apart, 404 for what the team does not hold, 400 for an expired store.
 */
export class StoreAccess {
  constructor(
    private readonly repo: KnowledgeRepository,
    private readonly clock: Clock,
  ) {}

  /** A knowledge base of the team; project-owned (internal) stores answer 404 here. */
  async requireStore(teamId: string, id: string): Promise<VectorStoreEntity> {
    const store = await this.repo.findStore(teamId, id);
    if (!store || store.internal) throw storeNotFound(id);
    return store;
  }

  /**
   * A knowledge base about to be used (documents added, searched): an expired one is refused with
   * 400 vector_store_expired; otherwise its last_active_at moves to now (which restarts its expiry).
   */
  async useStore(teamId: string, id: string): Promise<VectorStoreEntity> {
    const store = await this.requireStore(teamId, id);
    const now = this.clock.now();
    if (isExpired(store, now)) throw expiredStore(id);
    await this.repo.updateStore(teamId, id, { lastActiveAt: now });
    return { ...store, lastActiveAt: now };
  }

  /**
   * A knowledge base a caller adds documents to: ingestion embeds them with the store's model, so a
   * key whose allowed_models does not list it is refused (403) before anything is stored or queued.
   */
  async ingestInto(caller: Caller, id: string, use = false): Promise<VectorStoreEntity> {
    const store = await this.requireStore(caller.teamId, id);
    assertModelAllowed(caller, store.embeddingModel, 'vector_store_id');
    return use ? this.useStore(caller.teamId, id) : store;
  }

  /**
   * A document read back after a write: a concurrent delete (of the document or its store) can remove
   * it between the two, and the caller then gets the 404 it would have got a moment later.
   */
  async readBack(teamId: string, storeId: string, docId: string): Promise<KbDocumentEntity> {
    const doc = await this.repo.findDocument(teamId, storeId, docId);
    if (!doc) throw documentNotFound(storeId, docId);
    return doc;
  }

  async requireDocument(teamId: string, storeId: string, docId: string): Promise<KbDocumentEntity> {
    await this.requireStore(teamId, storeId);
    const doc = await this.repo.findDocument(teamId, storeId, docId);
    if (!doc) throw documentNotFound(storeId, docId);
    return doc;
  }

  /** An internal store of the team (for its owner: the project, and chat searching project materials). */
  async requireInternalStore(teamId: string, id: string): Promise<VectorStoreEntity> {
    const store = await this.repo.findStore(teamId, id);
    if (!store || !store.internal) throw ApiError.notFound(`No such project store: ${id}`, 'not_found', null);
    return store;
  }

  async requireInternalDocument(teamId: string, storeId: string, docId: string): Promise<KbDocumentEntity> {
    await this.requireInternalStore(teamId, storeId);
    const doc = await this.repo.findDocument(teamId, storeId, docId);
    if (!doc) throw ApiError.notFound(`No such document: ${docId}`, 'not_found', null);
    return doc;
  }
}
