import { Injectable } from '@nestjs/common';
import { ApiError, Clock } from '@app/common';
import { assertModelAllowed, type Caller } from '@app/auth';
import { ModelCatalogService, ModelEntry, modelRefusedByPolicy, policyAllowsModel } from '@app/providers';
import type { DataPolicy } from '@app/data-protection/policy';
import { DocumentParser } from './document-parser';
import { VectorStoreEntity } from './entities/knowledge.entities';
import { FilesService } from './files.service';
import { IngestionSignal } from './ingestion-signal';
import { parseAttributes, parseChunkingStrategy } from './kb-rules';
import { KnowledgeRepository } from './knowledge.repository';
import { DocumentText, mergeChunks } from './document-text';
import { DocumentWriter } from './kb/document-writer';
import { KbDocuments } from './kb/documents';
import { FileBatches } from './kb/file-batches';
import { InternalStores } from './kb/internal-stores';
import { StoreAccess } from './kb/store-access';
import {
  defaultEmbeddingModel,
  expiredStore,
  isExpired,
  MAX_DOCUMENTS,
  newStoreId,
  NewStore,
  parseExpiresAfter,
  storeNotFound,
  StoreView,
} from './kb/store-rules';

export {
  expiryTime,
  isExpired,
  MAX_DOCUMENTS,
  MAX_LINKS,
  newBatchId,
  newStoreId,
  parseExpiresAfter,
  type NewDocumentFile,
  type NewStore,
  type StoreView,
} from './kb/store-rules';

/**
 * Knowledge bases (= OpenAI vector stores) and their documents. Adding a document stores the row and
 * its ingestion job in one transaction; the ingestion worker (any replica) does the rest. The stores
 * themselves are kept here; documents, file batches and project-owned (internal) stores are handled
 * by the helpers in ./kb, which this service answers for.
 */
@Injectable()
export class KnowledgeService {
  private readonly access: StoreAccess;
  private readonly writer: DocumentWriter;
  private readonly documents: KbDocuments;
  private readonly batches: FileBatches;
  private readonly internal: InternalStores;

  constructor(
    private readonly repo: KnowledgeRepository,
    private readonly files: FilesService,
    parser: DocumentParser,
    private readonly catalog: ModelCatalogService,
    signal: IngestionSignal,
    private readonly clock: Clock,
  ) {
    this.access = new StoreAccess(repo, clock);
    this.writer = new DocumentWriter(repo, files, parser, signal, clock, this.access);
    const kb = { repo, files, parser, catalog, signal, clock, access: this.access, writer: this.writer };
    this.documents = new KbDocuments(kb);
    this.batches = new FileBatches(kb);
    this.internal = new InternalStores(kb);
  }

  /**
   * The embedding model of new knowledge bases: text-embedding-3-small with an OpenAI key (and a
   * data policy that lets the team's texts reach it), else the local lexical embedder (1536).
   */
  defaultEmbeddingModel(policy?: Pick<DataPolicy, 'residency'> | null): ModelEntry {
    return defaultEmbeddingModel(this.catalog, policy);
  }

  embeddingModelOf(store: VectorStoreEntity): ModelEntry {
    return this.catalog.require(store.embeddingModel, 'embedding');
  }

  // ── knowledge bases ────────────────────────────────────────────────────────────────────────────

  async createStore(caller: Caller, input: NewStore): Promise<StoreView> {
    const model = input.embedding_model
      ? this.catalog.require(input.embedding_model, 'embedding')
      : this.defaultEmbeddingModel(caller.dataPolicy);
    // every document of the store is embedded with its model: the key must be allowed to use it
    assertModelAllowed(caller, model.key, 'embedding_model');
    // the documents of the store will be sent to its embedder: the data policy must allow it
    if (!policyAllowsModel(caller.dataPolicy, model)) throw modelRefusedByPolicy(model.key, 'embedding_model');
    if (!this.catalog.isAvailable(model))
      throw ApiError.badRequest(
        `The embedding model ${model.key} is unavailable (its provider has no credentials).`,
        'embedding_model',
        'model_unavailable',
      );
    const metadata = parseAttributes(input.metadata, 'metadata', { stringsOnly: true });
    const expiresAfterDays = parseExpiresAfter(input.expires_after) ?? null;
    parseChunkingStrategy(input.chunking_strategy);
    const fileIds = input.file_ids ?? [];
    if (fileIds.length > MAX_DOCUMENTS)
      throw ApiError.badRequest(
        `file_ids may hold at most ${MAX_DOCUMENTS} files (documents per knowledge base).`,
        'file_ids',
      );
    for (const id of fileIds) {
      const file = await this.files.require(caller.teamId, id);
      await this.writer.assertIngestible(await this.files.requireBytes(caller.teamId, id), file.filename, file.mime);
    }
    const now = this.clock.now();
    const store: Omit<VectorStoreEntity, 'seq'> = {
      id: newStoreId(),
      teamId: caller.teamId,
      name: input.name ?? null,
      description: input.description ?? null,
      metadata: metadata ? JSON.stringify(metadata) : null,
      embeddingModel: model.key,
      dimensions: model.dimensions ?? 1536,
      revision: 0,
      createdAt: now,
      lastActiveAt: now,
      expiresAfterDays,
      internal: 0,
    };
    await this.repo.insertStore(store);
    for (const id of fileIds)
      await this.addFile(caller, store.id, { file_id: id, chunking_strategy: input.chunking_strategy });
    return this.view(caller.teamId, store.id);
  }

  async view(teamId: string, id: string): Promise<StoreView> {
    const store = await this.access.requireStore(teamId, id);
    const stats = (await this.repo.storeStats([id])).get(id)!;
    return { store, stats, now: this.clock.now() };
  }

  async listStores(
    caller: Caller,
    q: { after?: string; limit?: number; order?: 'asc' | 'desc' },
  ): Promise<{ views: StoreView[]; hasMore: boolean }> {
    const limit = q.limit ?? 20;
    const rows = await this.repo.listStores(caller.teamId, { after: q.after, limit, order: q.order ?? 'desc' });
    const page = rows.slice(0, limit);
    const stats = await this.repo.storeStats(page.map((s) => s.id));
    const now = this.clock.now();
    return { views: page.map((store) => ({ store, stats: stats.get(store.id)!, now })), hasMore: rows.length > limit };
  }

  async updateStore(
    caller: Caller,
    id: string,
    patch: { name?: string | null; description?: string | null; metadata?: unknown; expires_after?: unknown },
  ): Promise<StoreView> {
    const store = await this.access.requireStore(caller.teamId, id);
    const expiresAfterDays = parseExpiresAfter(patch.expires_after);
    // an expired store stays expired: only its deletion (or reading it) is left
    if (isExpired(store, this.clock.now())) throw expiredStore(id);
    const set: Partial<VectorStoreEntity> = { lastActiveAt: this.clock.now() };
    if (expiresAfterDays !== undefined) set.expiresAfterDays = expiresAfterDays;
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.metadata !== undefined) {
      const m = parseAttributes(patch.metadata, 'metadata', { stringsOnly: true });
      set.metadata = m ? JSON.stringify(m) : null;
    }
    await this.repo.updateStore(caller.teamId, id, set);
    return this.view(caller.teamId, id);
  }

  async deleteStore(caller: Caller, id: string): Promise<void> {
    await this.access.requireStore(caller.teamId, id);
    if (!(await this.repo.deleteStore(caller.teamId, id))) throw storeNotFound(id);
  }

  /** A knowledge base of the team; project-owned (internal) stores answer 404 here. */
  requireStore(teamId: string, id: string): Promise<VectorStoreEntity> {
    return this.access.requireStore(teamId, id);
  }

  /** A knowledge base about to be used: 400 vector_store_expired when it has expired, else its activity moves to now. */
  useStore(teamId: string, id: string): Promise<VectorStoreEntity> {
    return this.access.useStore(teamId, id);
  }

  // ── documents (./kb/documents) ─────────────────────────────────────────────────────────────────

  addFile(...a: Parameters<KbDocuments['addFile']>) {
    return this.documents.addFile(...a);
  }

  addUpload(...a: Parameters<KbDocuments['addUpload']>) {
    return this.documents.addUpload(...a);
  }

  addText(...a: Parameters<KbDocuments['addText']>) {
    return this.documents.addText(...a);
  }

  addLink(...a: Parameters<KbDocuments['addLink']>) {
    return this.documents.addLink(...a);
  }

  refreshLink(...a: Parameters<KbDocuments['refreshLink']>) {
    return this.documents.refreshLink(...a);
  }

  requireDocument(...a: Parameters<StoreAccess['requireDocument']>) {
    return this.access.requireDocument(...a);
  }

  listDocuments(...a: Parameters<KbDocuments['listDocuments']>) {
    return this.documents.listDocuments(...a);
  }

  retryDocument(...a: Parameters<KbDocuments['retryDocument']>) {
    return this.documents.retryDocument(...a);
  }

  deleteDocument(...a: Parameters<KbDocuments['deleteDocument']>) {
    return this.documents.deleteDocument(...a);
  }

  updateAttributes(...a: Parameters<KbDocuments['updateAttributes']>) {
    return this.documents.updateAttributes(...a);
  }

  // ── internal (project-owned) stores (./kb/internal-stores) ─────────────────────────────────────

  createInternalStore(...a: Parameters<InternalStores['createInternalStore']>) {
    return this.internal.createInternalStore(...a);
  }

  requireInternalStore(...a: Parameters<StoreAccess['requireInternalStore']>) {
    return this.access.requireInternalStore(...a);
  }

  deleteInternalStore(...a: Parameters<InternalStores['deleteInternalStore']>) {
    return this.internal.deleteInternalStore(...a);
  }

  addInternalDocument(...a: Parameters<InternalStores['addInternalDocument']>) {
    return this.internal.addInternalDocument(...a);
  }

  replaceInternalText(...a: Parameters<InternalStores['replaceInternalText']>) {
    return this.internal.replaceInternalText(...a);
  }

  refreshInternalDocument(...a: Parameters<InternalStores['refreshInternalDocument']>) {
    return this.internal.refreshInternalDocument(...a);
  }

  deleteInternalDocument(...a: Parameters<InternalStores['deleteInternalDocument']>) {
    return this.internal.deleteInternalDocument(...a);
  }

  internalDocuments(...a: Parameters<InternalStores['internalDocuments']>) {
    return this.internal.internalDocuments(...a);
  }

  documentFile(...a: Parameters<InternalStores['documentFile']>) {
    return this.internal.documentFile(...a);
  }

  documentText(...a: Parameters<InternalStores['documentText']>) {
    return this.internal.documentText(...a);
  }

  // ── batches (./kb/file-batches) ────────────────────────────────────────────────────────────────

  createBatch(...a: Parameters<FileBatches['createBatch']>) {
    return this.batches.createBatch(...a);
  }

  cancelBatch(...a: Parameters<FileBatches['cancelBatch']>) {
    return this.batches.cancelBatch(...a);
  }

  getBatch(...a: Parameters<FileBatches['getBatch']>) {
    return this.batches.getBatch(...a);
  }

  /**
   * A store of the team for chat's retrieval: a knowledge base, or a project's own store (which the
   * knowledge-base APIs do not serve). null when the team has no such store.
   */
  async searchableStore(teamId: string, id: string): Promise<VectorStoreEntity | null> {
    return this.repo.findStore(teamId, id);
  }

  /**
   * The full extracted text of one ingested document, in order, rebuilt from its chunks (overlaps
   * removed, pages kept apart). Empty when the document has no chunks (not ingested yet, or empty).
   */
  async chunkedText(storeId: string, documentId: string): Promise<DocumentText> {
    return mergeChunks(await this.repo.documentChunks(storeId, documentId));
  }
}
