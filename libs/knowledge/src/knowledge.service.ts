import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ApiError, Clock } from '@app/common';
import type { Caller } from '@app/auth';
import { ModelCatalogService, ModelEntry } from '@app/providers';
import { DocumentParser, ExtractionError } from './document-parser';
import { DocumentKind, DocumentStatus, FileBatchEntity, KbDocumentEntity, VectorStoreEntity } from './entities/knowledge.entities';
import { FilesService, newFileId, UploadedBytes } from './files.service';
import { IngestionSignal } from './ingestion-signal';
import { Attributes, Chunking, encodeChunking, parseAttributes, parseChunkingStrategy } from './kb-rules';
import { KnowledgeRepository, StoreStats } from './knowledge.repository';
import { DocumentText, mergeChunks } from './document-text';

/** Spec section 8: per knowledge base. */
export const MAX_DOCUMENTS = 100;
export const MAX_LINKS = 100;

export const newStoreId = (): string => `vs_${randomBytes(12).toString('hex')}`;
export const newBatchId = (): string => `vsfb_${randomBytes(12).toString('hex')}`;

export interface NewStore {
  name?: string | null;
  description?: string | null;
  metadata?: unknown;
  embedding_model?: string;
  file_ids?: string[];
  chunking_strategy?: unknown;
}

export interface NewDocumentFile {
  file_id: string;
  attributes?: unknown;
  chunking_strategy?: unknown;
}

export interface StoreView {
  store: VectorStoreEntity;
  stats: StoreStats;
}

/**
 * Knowledge bases (= OpenAI vector stores) and their documents. Adding a document stores the row and
 * its ingestion job in one transaction; the ingestion worker (any replica) does the rest.
 */
@Injectable()
export class KnowledgeService {
  private readonly log = new Logger(KnowledgeService.name);

  constructor(
    private readonly repo: KnowledgeRepository,
    private readonly files: FilesService,
    private readonly parser: DocumentParser,
    private readonly catalog: ModelCatalogService,
    private readonly signal: IngestionSignal,
    private readonly clock: Clock,
  ) {}

  /** The embedding model of new knowledge bases: text-embedding-3-small with an OpenAI key, else the local lexical embedder (1536). */
  defaultEmbeddingModel(): ModelEntry {
    const remote = this.catalog.find('text-embedding-3-small');
    if (remote && this.catalog.isAvailable(remote)) return remote;
    return this.catalog.require('local-embedding-small', 'embedding');
  }

  embeddingModelOf(store: VectorStoreEntity): ModelEntry {
    return this.catalog.require(store.embeddingModel, 'embedding');
  }

  // ── knowledge bases ────────────────────────────────────────────────────────────────────────────

  async createStore(caller: Caller, input: NewStore): Promise<StoreView> {
    const model = input.embedding_model ? this.catalog.require(input.embedding_model, 'embedding') : this.defaultEmbeddingModel();
    if (!this.catalog.isAvailable(model)) throw ApiError.badRequest(`The embedding model ${model.key} is unavailable (its provider has no credentials).`, 'embedding_model', 'model_unavailable');
    const metadata = parseAttributes(input.metadata, 'metadata', { stringsOnly: true });
    parseChunkingStrategy(input.chunking_strategy);
    const fileIds = input.file_ids ?? [];
    if (fileIds.length > MAX_DOCUMENTS) throw ApiError.badRequest(`file_ids may hold at most ${MAX_DOCUMENTS} files (documents per knowledge base).`, 'file_ids');
    for (const id of fileIds) {
      const file = await this.files.require(caller.teamId, id);
      await this.assertIngestible((await this.files.bytes(caller.teamId, id))!, file.filename, file.mime);
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
    };
    await this.repo.insertStore(store);
    for (const id of fileIds) await this.addFile(caller, store.id, { file_id: id, chunking_strategy: input.chunking_strategy });
    return this.view(caller.teamId, store.id);
  }

  async view(teamId: string, id: string): Promise<StoreView> {
    const store = await this.requireStore(teamId, id);
    const stats = (await this.repo.storeStats([id])).get(id)!;
    return { store, stats };
  }

  async listStores(caller: Caller, q: { after?: string; limit?: number; order?: 'asc' | 'desc' }): Promise<{ views: StoreView[]; hasMore: boolean }> {
    const limit = q.limit ?? 20;
    const rows = await this.repo.listStores(caller.teamId, { after: q.after, limit, order: q.order ?? 'desc' });
    const page = rows.slice(0, limit);
    const stats = await this.repo.storeStats(page.map((s) => s.id));
    return { views: page.map((store) => ({ store, stats: stats.get(store.id)! })), hasMore: rows.length > limit };
  }

  async updateStore(caller: Caller, id: string, patch: { name?: string | null; description?: string | null; metadata?: unknown }): Promise<StoreView> {
    await this.requireStore(caller.teamId, id);
    const set: Partial<VectorStoreEntity> = { lastActiveAt: this.clock.now() };
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
    if (!(await this.repo.deleteStore(caller.teamId, id))) throw this.storeNotFound(id);
  }

  async requireStore(teamId: string, id: string): Promise<VectorStoreEntity> {
    const store = await this.repo.findStore(teamId, id);
    if (!store) throw this.storeNotFound(id);
    return store;
  }

  private storeNotFound(id: string): ApiError {
    return ApiError.notFound(`No such knowledge base (vector store): ${id}`, 'vector_store_not_found', 'vector_store_id');
  }

  // ── documents ──────────────────────────────────────────────────────────────────────────────────

  /** Attach an uploaded file (OpenAI `vector_stores.files.create`). */
  async addFile(caller: Caller, storeId: string, input: NewDocumentFile, batchId: string | null = null): Promise<KbDocumentEntity> {
    const store = await this.requireStore(caller.teamId, storeId);
    const file = await this.files.require(caller.teamId, input.file_id);
    const bytes = await this.files.bytes(caller.teamId, file.id);
    await this.assertIngestible(bytes!, file.filename, file.mime);
    const attributes = parseAttributes(input.attributes, 'attributes');
    const chunking = parseChunkingStrategy(input.chunking_strategy);
    return this.attach(caller.teamId, store.id, { fileId: file.id, kind: 'file', attributes, chunking, batchId, title: file.filename, filename: file.filename });
  }

  /** Upload and attach in one call (REST multipart). */
  async addUpload(caller: Caller, storeId: string, upload: UploadedBytes | undefined, metadata: unknown): Promise<KbDocumentEntity> {
    await this.requireStore(caller.teamId, storeId);
    const attributes = parseAttributes(metadata, 'metadata');
    if (upload) await this.assertIngestible(upload.buffer, upload.originalname, upload.mimetype);
    const file = await this.files.store(caller.teamId, upload, 'user_data');
    return this.attach(caller.teamId, storeId, { fileId: file.id, kind: 'file', attributes, chunking: parseChunkingStrategy(undefined), batchId: null, title: file.filename, filename: file.filename });
  }

  /** A text document (REST JSON `{name, text, metadata}`), stored as a text/markdown file. */
  async addText(caller: Caller, storeId: string, input: { name: string; text: string; metadata?: unknown }): Promise<KbDocumentEntity> {
    await this.requireStore(caller.teamId, storeId);
    const attributes = parseAttributes(input.metadata, 'metadata');
    if (input.text.trim() === '') throw ApiError.badRequest('text must not be empty.', 'text');
    const file = await this.files.store(caller.teamId, { originalname: input.name.endsWith('.md') || input.name.endsWith('.txt') ? input.name : `${input.name}.md`, mimetype: 'text/markdown', buffer: Buffer.from(input.text, 'utf8') }, 'user_data');
    return this.attach(caller.teamId, storeId, { fileId: file.id, kind: 'text', attributes, chunking: parseChunkingStrategy(undefined), batchId: null, title: input.name, filename: file.filename });
  }

  /** A web link; fetched (SSRF-guarded) and parsed by the worker. */
  async addLink(caller: Caller, storeId: string, input: { url: string; metadata?: unknown }): Promise<KbDocumentEntity> {
    await this.requireStore(caller.teamId, storeId);
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw ApiError.badRequest('url must be an absolute http(s) URL.', 'url');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw ApiError.badRequest('url must use http or https.', 'url');
    if (url.username || url.password) throw ApiError.badRequest('url must not carry credentials.', 'url');
    const attributes = parseAttributes(input.metadata, 'metadata');
    return this.attach(caller.teamId, storeId, { fileId: newFileId(), kind: 'link', attributes, chunking: parseChunkingStrategy(undefined), batchId: null, url: url.toString(), title: url.toString(), filename: url.pathname.split('/').pop() || url.hostname });
  }

  async refreshLink(caller: Caller, storeId: string, docId: string): Promise<KbDocumentEntity> {
    const doc = await this.requireDocument(caller.teamId, storeId, docId);
    if (doc.kind !== 'link') throw ApiError.badRequest(`${docId} is not a link.`, 'link_id');
    const now = this.clock.now();
    await this.repo.requeue(doc, this.job(doc, now));
    this.signal.nudge();
    return this.requireDocument(caller.teamId, storeId, docId);
  }

  private job(doc: Pick<KbDocumentEntity, 'vectorStoreId' | 'id' | 'teamId'>, now: number) {
    return { vectorStoreId: doc.vectorStoreId, documentId: doc.id, teamId: doc.teamId, status: 'queued' as const, attempts: 0, runAfter: now, leaseOwner: null, leaseUntil: null, lastError: null, createdAt: now, updatedAt: now };
  }

  private async attach(
    teamId: string,
    storeId: string,
    d: { fileId: string; kind: DocumentKind; attributes: Attributes | null; chunking: Chunking; batchId: string | null; url?: string; title?: string; filename?: string },
  ): Promise<KbDocumentEntity> {
    const now = this.clock.now();
    const doc: Omit<KbDocumentEntity, 'seq'> = {
      id: d.fileId,
      vectorStoreId: storeId,
      teamId,
      kind: d.kind,
      filename: (d.filename ?? d.title ?? d.fileId).slice(0, 255),
      title: d.title?.slice(0, 512) ?? null,
      url: d.url ?? null,
      finalUrl: null,
      attributes: d.attributes ? JSON.stringify(d.attributes) : null,
      chunking: encodeChunking(d.chunking),
      status: 'queued',
      lastErrorCode: null,
      lastErrorMessage: null,
      pages: 0,
      tokens: 0,
      chunkCount: 0,
      usageBytes: 0,
      contentHash: null,
      batchId: d.batchId,
      createdAt: now,
      updatedAt: now,
    };
    const outcome = await this.repo.addDocument(doc, this.job(doc, now), d.kind === 'link' ? MAX_LINKS : MAX_DOCUMENTS);
    if (outcome === 'limit') {
      throw new ApiError(409, 'invalid_request_error', d.kind === 'link' ? `A knowledge base holds at most ${MAX_LINKS} links.` : `A knowledge base holds at most ${MAX_DOCUMENTS} documents.`, d.kind === 'link' ? 'too_many_links' : 'too_many_documents');
    }
    if (outcome === 'added') {
      this.log.log(`knowledge: queued ${d.kind} ${d.fileId} for ${storeId}`);
      this.signal.nudge();
    }
    return (await this.repo.findDocument(teamId, storeId, d.fileId))!;
  }

  private async assertIngestible(bytes: Buffer, filename: string, mime: string): Promise<void> {
    try {
      await this.parser.sniff(bytes, { filename, mime });
    } catch (err) {
      if (err instanceof ExtractionError) throw ApiError.badRequest(err.message, 'file', err.code);
      throw err;
    }
  }

  async requireDocument(teamId: string, storeId: string, docId: string): Promise<KbDocumentEntity> {
    await this.requireStore(teamId, storeId);
    const doc = await this.repo.findDocument(teamId, storeId, docId);
    if (!doc) throw ApiError.notFound(`No such document in ${storeId}: ${docId}`, 'file_not_found', 'file_id');
    return doc;
  }

  async listDocuments(
    caller: Caller,
    storeId: string,
    q: { after?: string; limit?: number; order?: 'asc' | 'desc'; status?: DocumentStatus; batchId?: string; kinds?: DocumentKind[] },
  ): Promise<{ docs: KbDocumentEntity[]; hasMore: boolean }> {
    await this.requireStore(caller.teamId, storeId);
    const limit = q.limit ?? 20;
    const rows = await this.repo.listDocuments(caller.teamId, storeId, { after: q.after, limit, order: q.order ?? 'desc', status: q.status, batchId: q.batchId, kinds: q.kinds });
    return { docs: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  async deleteDocument(caller: Caller, storeId: string, docId: string): Promise<void> {
    await this.requireStore(caller.teamId, storeId);
    if (!(await this.repo.deleteDocument(caller.teamId, storeId, docId))) throw ApiError.notFound(`No such document in ${storeId}: ${docId}`, 'file_not_found', 'file_id');
  }

  async updateAttributes(caller: Caller, storeId: string, docId: string, attributes: unknown): Promise<KbDocumentEntity> {
    await this.requireDocument(caller.teamId, storeId, docId);
    const a = parseAttributes(attributes, 'attributes');
    await this.repo.updateDocument(storeId, docId, { attributes: a ? JSON.stringify(a) : null, updatedAt: this.clock.now() });
    return (await this.repo.findDocument(caller.teamId, storeId, docId))!;
  }

  // ── batches ────────────────────────────────────────────────────────────────────────────────────

  async createBatch(caller: Caller, storeId: string, input: { file_ids?: string[]; files?: NewDocumentFile[]; attributes?: unknown; chunking_strategy?: unknown }): Promise<{ batch: FileBatchEntity; counts: Record<DocumentStatus, number> }> {
    await this.requireStore(caller.teamId, storeId);
    const items: NewDocumentFile[] = input.files ?? (input.file_ids ?? []).map((file_id) => ({ file_id, attributes: input.attributes, chunking_strategy: input.chunking_strategy }));
    if (items.length === 0) throw ApiError.badRequest('file_ids (or files) must list at least one file.', 'file_ids');
    if (items.length > 500) throw ApiError.badRequest('A batch holds at most 500 files.', 'file_ids');
    // validate everything before writing anything
    for (const [i, it] of items.entries()) {
      if (typeof it?.file_id !== 'string') throw ApiError.badRequest(`files[${i}].file_id is required.`, `files[${i}].file_id`);
      await this.files.require(caller.teamId, it.file_id);
      parseAttributes(it.attributes, `files[${i}].attributes`);
      parseChunkingStrategy(it.chunking_strategy, `files[${i}].chunking_strategy`);
    }
    const batch: FileBatchEntity = { id: newBatchId(), vectorStoreId: storeId, teamId: caller.teamId, cancelled: 0, createdAt: this.clock.now() };
    await this.repo.insertBatch(batch);
    for (const it of items) await this.addFile(caller, storeId, it, batch.id);
    return { batch, counts: await this.repo.batchCounts(batch.id) };
  }

  async cancelBatch(caller: Caller, storeId: string, batchId: string): Promise<{ batch: FileBatchEntity; counts: Record<DocumentStatus, number> }> {
    const { batch } = await this.getBatch(caller, storeId, batchId);
    await this.repo.cancelBatch(batch, this.clock.now());
    return this.getBatch(caller, storeId, batchId);
  }

  async getBatch(caller: Caller, storeId: string, batchId: string): Promise<{ batch: FileBatchEntity; counts: Record<DocumentStatus, number> }> {
    await this.requireStore(caller.teamId, storeId);
    const batch = await this.repo.findBatch(caller.teamId, storeId, batchId);
    if (!batch) throw ApiError.notFound(`No such file batch: ${batchId}`, 'not_found', 'batch_id');
    return { batch, counts: await this.repo.batchCounts(batch.id) };
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
