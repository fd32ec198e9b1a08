import { Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { ApiError, Clock } from '@app/common';
import { assertModelAllowed, type Caller } from '@app/auth';
import { ModelCatalogService, ModelEntry, modelRefusedByPolicy, policyAllowsModel } from '@app/providers';
import type { DataPolicy } from '@app/data-protection/policy';
import { DocumentParser, ExtractionError } from './document-parser';
import {
  DocumentKind,
  DocumentStatus,
  FileBatchEntity,
  KbDocumentEntity,
  VectorStoreEntity,
} from './entities/knowledge.entities';
import type { FileRow } from './files.repository';
import { FilesService, newFileId, UploadedBytes } from './files.service';
import { IngestionSignal } from './ingestion-signal';
import {
  AttributeMatch,
  Filter,
  Attributes,
  AUTO_CHUNKING,
  Chunking,
  encodeChunking,
  MESSAGE_CHUNKING,
  parseAttributes,
  parseChunkingStrategy,
} from './kb-rules';
import { KnowledgeRepository, StoreStats } from './knowledge.repository';
import { DocumentText, mergeChunks } from './document-text';
import type { InternalSource } from './store/knowledge-store';

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
  expires_after?: unknown;
}

export interface NewDocumentFile {
  file_id: string;
  attributes?: unknown;
  chunking_strategy?: unknown;
}

/** A document about to be attached to a store. */
interface NewDocument {
  fileId: string;
  kind: DocumentKind;
  attributes: Attributes | null;
  chunking: Chunking;
  batchId: string | null;
  url?: string;
  title?: string;
  filename?: string;
  /** sha256 of the bytes (files and texts) */
  contentHash?: string;
  /**
   * Versions by content and name (REST uploads and texts): the same content again answers the
   * existing document; with `replace`, a new content under an existing name replaces that document.
   */
  versions?: { replace: boolean };
}

export interface StoreView {
  store: VectorStoreEntity;
  stats: StoreStats;
  /** the time of the read (ms): whether the store has expired */
  now: number;
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

  /**
   * The embedding model of new knowledge bases: text-embedding-3-small with an OpenAI key (and a
   * data policy that lets the team's texts reach it), else the local lexical embedder (1536).
   */
  defaultEmbeddingModel(policy?: Pick<DataPolicy, 'residency'> | null): ModelEntry {
    const remote = this.catalog.find('text-embedding-3-small');
    if (remote && this.catalog.isAvailable(remote) && policyAllowsModel(policy, remote)) return remote;
    return this.catalog.require('local-embedding-small', 'embedding');
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
      await this.assertIngestible(await this.files.requireBytes(caller.teamId, id), file.filename, file.mime);
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
    const store = await this.requireStore(teamId, id);
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
    const store = await this.requireStore(caller.teamId, id);
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
    await this.requireStore(caller.teamId, id);
    if (!(await this.repo.deleteStore(caller.teamId, id))) throw this.storeNotFound(id);
  }

  /** A knowledge base of the team; project-owned (internal) stores answer 404 here. */
  async requireStore(teamId: string, id: string): Promise<VectorStoreEntity> {
    const store = await this.repo.findStore(teamId, id);
    if (!store || store.internal) throw this.storeNotFound(id);
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
  private async ingestInto(caller: Caller, id: string, use = false): Promise<VectorStoreEntity> {
    const store = await this.requireStore(caller.teamId, id);
    assertModelAllowed(caller, store.embeddingModel, 'vector_store_id');
    return use ? this.useStore(caller.teamId, id) : store;
  }

  private storeNotFound(id: string): ApiError {
    return ApiError.notFound(
      `No such knowledge base (vector store): ${id}`,
      'vector_store_not_found',
      'vector_store_id',
    );
  }

  // ── documents ──────────────────────────────────────────────────────────────────────────────────

  /** Attach an uploaded file (OpenAI `vector_stores.files.create`). */
  async addFile(
    caller: Caller,
    storeId: string,
    input: NewDocumentFile,
    batchId: string | null = null,
  ): Promise<KbDocumentEntity> {
    const store = await this.ingestInto(caller, storeId, true);
    const file = await this.files.require(caller.teamId, input.file_id);
    const bytes = await this.files.requireBytes(caller.teamId, file.id);
    await this.assertIngestible(bytes, file.filename, file.mime);
    const attributes = parseAttributes(input.attributes, 'attributes');
    const chunking = parseChunkingStrategy(input.chunking_strategy);
    return this.attach(caller.teamId, store.id, {
      fileId: file.id,
      kind: 'file',
      attributes,
      chunking,
      batchId,
      title: file.filename,
      filename: file.filename,
      contentHash: file.sha256,
    });
  }

  /**
   * Upload and attach in one call (REST multipart). Content the knowledge base already holds answers
   * its document; a new content under an existing name replaces that document unless `replace` is false.
   */
  async addUpload(
    caller: Caller,
    storeId: string,
    upload: UploadedBytes | undefined,
    metadata: unknown,
    replace = true,
  ): Promise<KbDocumentEntity> {
    await this.ingestInto(caller, storeId);
    const attributes = parseAttributes(metadata, 'metadata');
    if (upload) await this.assertIngestible(upload.buffer, upload.originalname, upload.mimetype);
    return this.attachVersion(caller.teamId, storeId, upload, { kind: 'file', attributes, replace });
  }

  /** A text document (REST JSON `{name, text, metadata, replace}`), stored as a text/markdown file; versions as for uploads. */
  async addText(
    caller: Caller,
    storeId: string,
    input: { name: string; text: string; metadata?: unknown; replace?: boolean },
  ): Promise<KbDocumentEntity> {
    await this.ingestInto(caller, storeId);
    const attributes = parseAttributes(input.metadata, 'metadata');
    if (input.text.trim() === '') throw ApiError.badRequest('text must not be empty.', 'text');
    const upload = {
      originalname: input.name.endsWith('.md') || input.name.endsWith('.txt') ? input.name : `${input.name}.md`,
      mimetype: 'text/markdown',
      buffer: Buffer.from(input.text, 'utf8'),
    };
    return this.attachVersion(caller.teamId, storeId, upload, {
      kind: 'text',
      attributes,
      title: input.name,
      replace: input.replace ?? true,
    });
  }

  /**
   * Stores the bytes as a file and attaches it as a new document or a new version of the document of
   * that name — unless the knowledge base holds this content already: then that document is answered
   * and nothing is stored (also when the same content was added concurrently).
   */
  private async attachVersion(
    teamId: string,
    storeId: string,
    upload: UploadedBytes | undefined,
    d: { kind: 'file' | 'text'; attributes: Attributes | null; title?: string; replace: boolean },
  ): Promise<KbDocumentEntity> {
    if (upload && Buffer.isBuffer(upload.buffer)) {
      const same = await this.repo.findSameContent(storeId, createHash('sha256').update(upload.buffer).digest('hex'));
      if (same) return same;
    }
    const file = await this.files.store(teamId, upload, 'user_data');
    const doc = await this.attach(teamId, storeId, {
      fileId: file.id,
      kind: d.kind,
      attributes: d.attributes,
      chunking: parseChunkingStrategy(undefined),
      batchId: null,
      title: d.title ?? file.filename,
      filename: file.filename,
      contentHash: file.sha256,
      versions: { replace: d.replace },
    });
    if (doc.id !== file.id) await this.files.remove(teamId, file.id);
    return doc;
  }

  /** A web link; fetched (SSRF-guarded) and parsed by the worker. */
  async addLink(
    caller: Caller,
    storeId: string,
    input: { url: string; metadata?: unknown },
  ): Promise<KbDocumentEntity> {
    await this.ingestInto(caller, storeId);
    const url = parseLinkUrl(input.url);
    const attributes = parseAttributes(input.metadata, 'metadata');
    return this.attach(caller.teamId, storeId, {
      fileId: newFileId(),
      kind: 'link',
      attributes,
      chunking: parseChunkingStrategy(undefined),
      batchId: null,
      url: url.toString(),
      title: url.toString(),
      filename: url.pathname.split('/').pop() || url.hostname,
    });
  }

  async refreshLink(caller: Caller, storeId: string, docId: string): Promise<KbDocumentEntity> {
    await this.ingestInto(caller, storeId);
    const doc = await this.requireDocument(caller.teamId, storeId, docId);
    if (doc.kind !== 'link') throw ApiError.badRequest(`${docId} is not a link.`, 'link_id');
    const now = this.clock.now();
    await this.repo.requeue(doc, this.job(doc, now));
    this.signal.nudge();
    return this.requireDocument(caller.teamId, storeId, docId);
  }

  private job(doc: Pick<KbDocumentEntity, 'vectorStoreId' | 'id' | 'teamId'>, now: number) {
    return {
      vectorStoreId: doc.vectorStoreId,
      documentId: doc.id,
      teamId: doc.teamId,
      status: 'queued' as const,
      attempts: 0,
      runAfter: now,
      leaseOwner: null,
      leaseUntil: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    };
  }

  private async attach(
    teamId: string,
    storeId: string,
    d: NewDocument,
    holder = 'A knowledge base',
  ): Promise<KbDocumentEntity> {
    const now = this.clock.now();
    const doc = this.newDocument(teamId, storeId, d, now);
    const outcome = await this.repo.addDocument(
      doc,
      this.job(doc, now),
      d.kind === 'link' ? MAX_LINKS : MAX_DOCUMENTS,
      d.versions,
    );
    if (typeof outcome === 'object') return this.readBack(teamId, storeId, outcome.duplicate);
    if (outcome === 'exists') return this.readdFailed(teamId, storeId, d.fileId);
    if (outcome === 'gone') throw this.storeNotFound(storeId);
    if (outcome === 'limit') {
      throw new ApiError(
        409,
        'invalid_request_error',
        d.kind === 'link'
          ? `${holder} holds at most ${MAX_LINKS} links.`
          : `${holder} holds at most ${MAX_DOCUMENTS} documents.`,
        d.kind === 'link' ? 'too_many_links' : 'too_many_documents',
      );
    }
    if (outcome === 'added') {
      this.log.log(`knowledge: queued ${d.kind} ${d.fileId} for ${storeId}`);
      this.signal.nudge();
    }
    return this.readBack(teamId, storeId, d.fileId);
  }

  /** A file added again to the store that holds it: a failed document is ingested again (OpenAI's retry by re-adding). */
  private async readdFailed(teamId: string, storeId: string, docId: string): Promise<KbDocumentEntity> {
    const doc = await this.readBack(teamId, storeId, docId);
    if (doc.status === 'failed' && (await this.repo.requeue(doc, this.job(doc, this.clock.now()), 'failed'))) {
      this.signal.nudge();
      return this.readBack(teamId, storeId, docId);
    }
    return doc;
  }

  private newDocument(teamId: string, storeId: string, d: NewDocument, now: number): Omit<KbDocumentEntity, 'seq'> {
    return {
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
      contentHash: d.contentHash ?? null,
      replacesId: null,
      batchId: d.batchId,
      createdAt: now,
      updatedAt: now,
    };
  }

  private async assertIngestible(bytes: Buffer, filename: string, mime: string): Promise<void> {
    try {
      await this.parser.sniff(bytes, { filename, mime });
    } catch (err) {
      if (err instanceof ExtractionError) throw ApiError.badRequest(err.message, 'file', err.code);
      throw err;
    }
  }

  /**
   * A document read back after a write: a concurrent delete (of the document or its store) can remove
   * it between the two, and the caller then gets the 404 it would have got a moment later.
   */
  private async readBack(teamId: string, storeId: string, docId: string): Promise<KbDocumentEntity> {
    const doc = await this.repo.findDocument(teamId, storeId, docId);
    if (!doc) throw ApiError.notFound(`No such document in ${storeId}: ${docId}`, 'file_not_found', 'file_id');
    return doc;
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
    q: {
      after?: string;
      limit?: number;
      order?: 'asc' | 'desc';
      status?: DocumentStatus;
      batchId?: string;
      kinds?: DocumentKind[];
      attributes?: AttributeMatch | null;
      filter?: Filter | null;
    },
  ): Promise<{ docs: KbDocumentEntity[]; hasMore: boolean }> {
    await this.requireStore(caller.teamId, storeId);
    const limit = q.limit ?? 20;
    const rows = await this.repo.listDocuments(caller.teamId, storeId, {
      after: q.after,
      limit,
      order: q.order ?? 'desc',
      status: q.status,
      batchId: q.batchId,
      kinds: q.kinds,
      attributes: q.attributes ?? undefined,
      filter: q.filter ?? undefined,
    });
    return { docs: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  /** Runs a failed document's ingestion again (409 when it is not failed, also when a concurrent retry won). */
  async retryDocument(caller: Caller, storeId: string, docId: string): Promise<KbDocumentEntity> {
    await this.ingestInto(caller, storeId);
    const doc = await this.requireDocument(caller.teamId, storeId, docId);
    const requeued =
      doc.status === 'failed' && (await this.repo.requeue(doc, this.job(doc, this.clock.now()), 'failed'));
    if (!requeued)
      throw new ApiError(
        409,
        'invalid_request_error',
        `Only a failed document can be retried; ${docId} is ${doc.status === 'failed' ? 'being retried' : doc.status}.`,
        'document_not_failed',
        'doc_id',
      );
    this.signal.nudge();
    return this.readBack(caller.teamId, storeId, docId);
  }

  async deleteDocument(caller: Caller, storeId: string, docId: string): Promise<void> {
    await this.requireStore(caller.teamId, storeId);
    if (!(await this.repo.deleteDocument(caller.teamId, storeId, docId)))
      throw ApiError.notFound(`No such document in ${storeId}: ${docId}`, 'file_not_found', 'file_id');
  }

  async updateAttributes(
    caller: Caller,
    storeId: string,
    docId: string,
    attributes: unknown,
  ): Promise<KbDocumentEntity> {
    await this.requireDocument(caller.teamId, storeId, docId);
    const a = parseAttributes(attributes, 'attributes');
    await this.repo.setDocumentAttributes(storeId, docId, a ? JSON.stringify(a) : null, this.clock.now());
    return this.readBack(caller.teamId, storeId, docId);
  }

  // ── internal (project-owned) stores ──────────────────────────────────────────────────────────────
  // The same documents, ingestion jobs, chunks, billing and search as knowledge bases; the store is
  // marked internal so /v1/vector_stores and /api/v1/knowledge-bases neither list nor serve it.

  async createInternalStore(
    teamId: string,
    name: string,
    policy?: Pick<DataPolicy, 'residency'> | null,
  ): Promise<VectorStoreEntity> {
    const model = this.defaultEmbeddingModel(policy);
    const now = this.clock.now();
    const store: Omit<VectorStoreEntity, 'seq'> = {
      id: newStoreId(),
      teamId,
      name: name.slice(0, 256),
      description: null,
      metadata: null,
      embeddingModel: model.key,
      dimensions: model.dimensions ?? 1536,
      revision: 0,
      createdAt: now,
      lastActiveAt: now,
      expiresAfterDays: null,
      internal: 1,
    };
    await this.repo.insertStore(store);
    const created = await this.repo.findStore(teamId, store.id);
    // deleted by its owner between the insert and this read
    if (!created) throw ApiError.notFound(`No such project store: ${store.id}`, 'not_found', null);
    return created;
  }

  /** An internal store of the team (for its owner: the project, and chat searching project materials). */
  async requireInternalStore(teamId: string, id: string): Promise<VectorStoreEntity> {
    const store = await this.repo.findStore(teamId, id);
    if (!store || !store.internal) throw ApiError.notFound(`No such project store: ${id}`, 'not_found', null);
    return store;
  }

  /** Deletes the internal store with its documents, and the files listed in `ownedFileIds`. */
  async deleteInternalStore(teamId: string, id: string, ownedFileIds: string[] = []): Promise<void> {
    const store = await this.repo.findStore(teamId, id);
    if (!store?.internal) return;
    await this.repo.deleteStore(teamId, id);
    for (const fileId of ownedFileIds) await this.files.remove(teamId, fileId);
  }

  /**
   * Adds a document to an internal store (queued for ingestion like any knowledge-base document).
   * Limits as for knowledge bases (100 documents, 100 links); `holder` names the owner in the 409.
   */
  async addInternalDocument(
    teamId: string,
    storeId: string,
    src: InternalSource,
    holder: string,
  ): Promise<KbDocumentEntity> {
    await this.requireInternalStore(teamId, storeId);
    const base = { attributes: null, chunking: AUTO_CHUNKING, batchId: null };
    switch (src.type) {
      case 'file': {
        const file = await this.files.require(teamId, src.fileId);
        await this.assertIngestible(await this.files.requireBytes(teamId, file.id), file.filename, file.mime);
        return this.attach(
          teamId,
          storeId,
          {
            ...base,
            fileId: file.id,
            kind: 'file',
            title: file.filename,
            filename: file.filename,
            contentHash: file.sha256,
          },
          holder,
        );
      }
      case 'upload': {
        if (src.upload) await this.assertIngestible(src.upload.buffer, src.upload.originalname, src.upload.mimetype);
        const file = await this.files.store(teamId, src.upload, 'user_data');
        return this.attach(
          teamId,
          storeId,
          {
            ...base,
            fileId: file.id,
            kind: 'file',
            title: file.filename,
            filename: file.filename,
            contentHash: file.sha256,
          },
          holder,
        );
      }
      case 'link': {
        const url = parseLinkUrl(src.url);
        return this.attach(
          teamId,
          storeId,
          {
            ...base,
            fileId: newFileId(),
            kind: 'link',
            url: url.toString(),
            title: url.toString(),
            filename: url.pathname.split('/').pop() || url.hostname,
          },
          holder,
        );
      }
      case 'text': {
        if (src.text.trim() === '') throw ApiError.badRequest('The material holds no text.', null, 'empty_document');
        const file = await this.files.store(
          teamId,
          { originalname: src.filename, mimetype: 'text/markdown', buffer: Buffer.from(src.text, 'utf8') },
          'user_data',
        );
        const chunking = src.chunking === 'messages' ? MESSAGE_CHUNKING : AUTO_CHUNKING;
        return this.attach(
          teamId,
          storeId,
          {
            ...base,
            chunking,
            fileId: file.id,
            kind: 'text',
            title: src.title,
            filename: file.filename,
            contentHash: file.sha256,
          },
          holder,
        );
      }
    }
  }

  /** Replaces the text of an internal text document and queues it again (unchanged chunks keep their vectors). */
  async replaceInternalText(teamId: string, storeId: string, docId: string, text: string): Promise<KbDocumentEntity> {
    const doc = await this.requireInternalDocument(teamId, storeId, docId);
    if (doc.kind !== 'text') throw ApiError.badRequest(`${docId} is not a text document.`, null);
    const file = await this.files.require(teamId, docId);
    await this.files.replaceBytes(teamId, docId, file.filename, 'text/markdown', Buffer.from(text, 'utf8'));
    await this.repo.requeue(doc, this.job(doc, this.clock.now()));
    this.signal.nudge();
    return this.readBack(teamId, storeId, docId);
  }

  /** Queue an internal document again (a link is fetched again; unchanged content is not re-embedded). */
  async refreshInternalDocument(teamId: string, storeId: string, docId: string): Promise<KbDocumentEntity> {
    const doc = await this.requireInternalDocument(teamId, storeId, docId);
    await this.repo.requeue(doc, this.job(doc, this.clock.now()));
    this.signal.nudge();
    return this.readBack(teamId, storeId, docId);
  }

  /** Deletes the document (chunks, jobs) and, with `deleteFile`, the file holding its bytes. */
  async deleteInternalDocument(
    teamId: string,
    storeId: string,
    docId: string,
    opts: { deleteFile?: boolean } = {},
  ): Promise<void> {
    await this.requireInternalStore(teamId, storeId);
    await this.repo.deleteDocument(teamId, storeId, docId);
    if (opts.deleteFile) await this.files.remove(teamId, docId);
  }

  async internalDocuments(teamId: string, storeId: string, ids: string[]): Promise<KbDocumentEntity[]> {
    const docs = await this.repo.documentsByIds(storeId, ids);
    return docs.filter((d) => d.teamId === teamId);
  }

  /** The bytes and type of a document's file (images among project files). */
  async documentFile(teamId: string, docId: string): Promise<{ bytes: Buffer; filename: string; mime: string } | null> {
    const file = await this.files.find(teamId, docId);
    const bytes = file ? await this.files.bytes(teamId, docId) : null;
    return file && bytes ? { bytes, filename: file.filename, mime: file.mime } : null;
  }

  /**
   * The full text of a document of an internal store, extracted again from its stored file (for a
   * link: the copy fetched last), pages joined by a blank line; '' for images.
   */
  async documentText(teamId: string, storeId: string, docId: string): Promise<string> {
    await this.requireInternalDocument(teamId, storeId, docId);
    const file = await this.documentFile(teamId, docId);
    if (!file) return '';
    const extracted = await this.parser.extract(file.bytes, { filename: file.filename, mime: file.mime });
    return extracted.units ? extracted.units.join('\n') : extracted.pages.map((p) => p.text).join('\n\n');
  }

  private async requireInternalDocument(teamId: string, storeId: string, docId: string): Promise<KbDocumentEntity> {
    await this.requireInternalStore(teamId, storeId);
    const doc = await this.repo.findDocument(teamId, storeId, docId);
    if (!doc) throw ApiError.notFound(`No such document: ${docId}`, 'not_found', null);
    return doc;
  }

  // ── batches ────────────────────────────────────────────────────────────────────────────────────

  /**
   * A file batch is all or nothing: every file, attribute, chunking strategy and the store's document
   * limit is checked before anything is attached, and the documents are then added in one transaction
   * that checks the limit again under the store's lock. A refused batch attaches, ingests and charges
   * nothing. Files already in the store stay as they are (and do not count again).
   */
  async createBatch(
    caller: Caller,
    storeId: string,
    input: { file_ids?: string[]; files?: NewDocumentFile[]; attributes?: unknown; chunking_strategy?: unknown },
  ): Promise<{ batch: FileBatchEntity; counts: Record<DocumentStatus, number> }> {
    await this.ingestInto(caller, storeId, true);
    const listed = input.files ? 'files' : 'file_ids';
    const items: NewDocumentFile[] =
      input.files ??
      (input.file_ids ?? []).map((file_id) => ({
        file_id,
        attributes: input.attributes,
        chunking_strategy: input.chunking_strategy,
      }));
    if (items.length === 0) throw ApiError.badRequest('file_ids (or files) must list at least one file.', 'file_ids');
    if (items.length > 500) throw ApiError.badRequest('A batch holds at most 500 files.', listed);
    const planned = new Map<string, { file: FileRow; attributes: Attributes | null; chunking: Chunking }>();
    for (const [i, it] of items.entries()) {
      const at = input.files ? `files[${i}].` : '';
      if (typeof it?.file_id !== 'string')
        throw ApiError.badRequest(`files[${i}].file_id is required.`, `files[${i}].file_id`);
      const file = await this.files.require(caller.teamId, it.file_id);
      const attributes = parseAttributes(it.attributes, `${at}attributes`);
      const chunking = parseChunkingStrategy(it.chunking_strategy, `${at}chunking_strategy`);
      if (!planned.has(file.id)) planned.set(file.id, { file, attributes, chunking });
    }
    const present = await this.repo.existingDocumentIds(storeId, [...planned.keys()]);
    const fresh = [...planned.values()].filter((p) => !present.has(p.file.id));
    const stats = (await this.repo.storeStats([storeId])).get(storeId)!;
    const held = stats.byKind.file + stats.byKind.text;
    if (held + fresh.length > MAX_DOCUMENTS) throw this.batchTooLarge(held, fresh.length, listed);
    for (const p of fresh)
      await this.assertIngestible(
        await this.files.requireBytes(caller.teamId, p.file.id),
        p.file.filename,
        p.file.mime,
      );

    const now = this.clock.now();
    const batch: FileBatchEntity = {
      id: newBatchId(),
      vectorStoreId: storeId,
      teamId: caller.teamId,
      cancelled: 0,
      createdAt: now,
    };
    const entries = fresh.map((p) => {
      const doc = this.newDocument(
        caller.teamId,
        storeId,
        {
          fileId: p.file.id,
          kind: 'file',
          attributes: p.attributes,
          chunking: p.chunking,
          batchId: batch.id,
          title: p.file.filename,
          filename: p.file.filename,
          contentHash: p.file.sha256,
        },
        now,
      );
      return { doc, job: this.job(doc, now) };
    });
    const added = await this.repo.addBatch(batch, entries, MAX_DOCUMENTS);
    if (added.outcome === 'gone') throw this.storeNotFound(storeId);
    // documents added by a concurrent request since the check above
    if (added.outcome === 'limit') throw this.batchTooLarge(added.count, added.adding, listed);
    if (entries.length > 0) {
      this.log.log(`knowledge: queued batch ${batch.id} (${entries.length} files) for ${storeId}`);
      this.signal.nudge();
    }
    return { batch, counts: await this.repo.batchCounts(batch.id) };
  }

  private batchTooLarge(held: number, adding: number, param: string): ApiError {
    return new ApiError(
      409,
      'invalid_request_error',
      `A knowledge base holds at most ${MAX_DOCUMENTS} documents: it has ${held} and the batch adds ${adding}. Nothing was attached.`,
      'too_many_documents',
      param,
    );
  }

  async cancelBatch(
    caller: Caller,
    storeId: string,
    batchId: string,
  ): Promise<{ batch: FileBatchEntity; counts: Record<DocumentStatus, number> }> {
    const { batch } = await this.getBatch(caller, storeId, batchId);
    await this.repo.cancelBatch(batch, this.clock.now());
    return this.getBatch(caller, storeId, batchId);
  }

  async getBatch(
    caller: Caller,
    storeId: string,
    batchId: string,
  ): Promise<{ batch: FileBatchEntity; counts: Record<DocumentStatus, number> }> {
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

function parseLinkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw ApiError.badRequest('url must be an absolute http(s) URL.', 'url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw ApiError.badRequest('url must use http or https.', 'url');
  if (url.username || url.password) throw ApiError.badRequest('url must not carry credentials.', 'url');
  return url;
}

/** Whether a store with expires_after has gone `days` without activity. */
export function isExpired(store: Pick<VectorStoreEntity, 'expiresAfterDays' | 'lastActiveAt'>, now: number): boolean {
  return store.expiresAfterDays !== null && now >= expiryTime(store)!;
}

/** When the store expires (ms), or null when it never does. */
export function expiryTime(store: Pick<VectorStoreEntity, 'expiresAfterDays' | 'lastActiveAt'>): number | null {
  return store.expiresAfterDays === null ? null : store.lastActiveAt + store.expiresAfterDays * 86_400_000;
}

function expiredStore(id: string): ApiError {
  return ApiError.badRequest(
    `The vector store ${id} has expired (expires_after); create a new one.`,
    'vector_store_id',
    'vector_store_expired',
  );
}

/**
 * OpenAI `expires_after`: {anchor: "last_active_at", days: 1…365}. undefined = not given, null =
 * never expires (also how an update removes it).
 */
export function parseExpiresAfter(v: unknown): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof v !== 'object' || Array.isArray(v) || o.anchor !== 'last_active_at')
    throw ApiError.badRequest(
      'expires_after must be {anchor: "last_active_at", days: 1…365}.',
      'expires_after.anchor',
      'invalid_value',
    );
  const days = o.days;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 365)
    throw ApiError.badRequest(
      'expires_after.days must be an integer from 1 to 365.',
      'expires_after.days',
      'invalid_value',
    );
  return days;
}
