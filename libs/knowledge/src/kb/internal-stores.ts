import { ApiError } from '@app/common';
import type { DataPolicy } from '@app/data-protection/policy';
import type { KbDocumentEntity, VectorStoreEntity } from '../entities/knowledge.entities';
import { newFileId } from '../files.service';
import { AUTO_CHUNKING, MESSAGE_CHUNKING } from '../kb-rules';
import type { InternalSource } from '../store/knowledge-store';
import type { KbContext } from './kb-context';
import { defaultEmbeddingModel, newStoreId, parseLinkUrl } from './store-rules';

/** Project-owned (internal) stores and their documents. */
export class InternalStores {
  constructor(private readonly kb: KbContext) {}

  // ── internal (project-owned) stores ──────────────────────────────────────────────────────────────
  // The same documents, ingestion jobs, chunks, billing and search as knowledge bases; the store is
  // marked internal so /v1/vector_stores and /api/v1/knowledge-bases neither list nor serve it.

  async createInternalStore(
    teamId: string,
    name: string,
    policy?: Pick<DataPolicy, 'residency'> | null,
  ): Promise<VectorStoreEntity> {
    const model = defaultEmbeddingModel(this.kb.catalog, policy);
    const now = this.kb.clock.now();
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
    await this.kb.repo.insertStore(store);
    const created = await this.kb.repo.findStore(teamId, store.id);
    // deleted by its owner between the insert and this read
    if (!created) throw ApiError.notFound(`No such project store: ${store.id}`, 'not_found', null);
    return created;
  }

  /** Deletes the internal store with its documents, and the files listed in `ownedFileIds`. */
  async deleteInternalStore(teamId: string, id: string, ownedFileIds: string[] = []): Promise<void> {
    const store = await this.kb.repo.findStore(teamId, id);
    if (!store?.internal) return;
    await this.kb.repo.deleteStore(teamId, id);
    for (const fileId of ownedFileIds) await this.kb.files.remove(teamId, fileId);
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
    await this.kb.access.requireInternalStore(teamId, storeId);
    const base = { attributes: null, chunking: AUTO_CHUNKING, batchId: null };
    switch (src.type) {
      case 'file': {
        const file = await this.kb.files.require(teamId, src.fileId);
        await this.kb.writer.assertIngestible(
          await this.kb.files.requireBytes(teamId, file.id),
          file.filename,
          file.mime,
        );
        return this.kb.writer.attach(
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
        if (src.upload)
          await this.kb.writer.assertIngestible(src.upload.buffer, src.upload.originalname, src.upload.mimetype);
        const file = await this.kb.files.store(teamId, src.upload, 'user_data');
        return this.kb.writer.attach(
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
        return this.kb.writer.attach(
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
        const file = await this.kb.files.store(
          teamId,
          { originalname: src.filename, mimetype: 'text/markdown', buffer: Buffer.from(src.text, 'utf8') },
          'user_data',
        );
        const chunking = src.chunking === 'messages' ? MESSAGE_CHUNKING : AUTO_CHUNKING;
        return this.kb.writer.attach(
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
    const doc = await this.kb.access.requireInternalDocument(teamId, storeId, docId);
    if (doc.kind !== 'text') throw ApiError.badRequest(`${docId} is not a text document.`, null);
    const file = await this.kb.files.require(teamId, docId);
    await this.kb.files.replaceBytes(teamId, docId, file.filename, 'text/markdown', Buffer.from(text, 'utf8'));
    await this.kb.repo.requeue(doc, this.kb.writer.job(doc, this.kb.clock.now()));
    this.kb.signal.nudge();
    return this.kb.access.readBack(teamId, storeId, docId);
  }

  /** Queue an internal document again (a link is fetched again; unchanged content is not re-embedded). */
  async refreshInternalDocument(teamId: string, storeId: string, docId: string): Promise<KbDocumentEntity> {
    const doc = await this.kb.access.requireInternalDocument(teamId, storeId, docId);
    await this.kb.repo.requeue(doc, this.kb.writer.job(doc, this.kb.clock.now()));
    this.kb.signal.nudge();
    return this.kb.access.readBack(teamId, storeId, docId);
  }

  /** Deletes the document (chunks, jobs) and, with `deleteFile`, the file holding its bytes. */
  async deleteInternalDocument(
    teamId: string,
    storeId: string,
    docId: string,
    opts: { deleteFile?: boolean } = {},
  ): Promise<void> {
    await this.kb.access.requireInternalStore(teamId, storeId);
    await this.kb.repo.deleteDocument(teamId, storeId, docId);
    if (opts.deleteFile) await this.kb.files.remove(teamId, docId);
  }

  async internalDocuments(teamId: string, storeId: string, ids: string[]): Promise<KbDocumentEntity[]> {
    const docs = await this.kb.repo.documentsByIds(storeId, ids);
    return docs.filter((d) => d.teamId === teamId);
  }

  /** The bytes and type of a document's file (images among project files). */
  async documentFile(teamId: string, docId: string): Promise<{ bytes: Buffer; filename: string; mime: string } | null> {
    const file = await this.kb.files.find(teamId, docId);
    const bytes = file ? await this.kb.files.bytes(teamId, docId) : null;
    return file && bytes ? { bytes, filename: file.filename, mime: file.mime } : null;
  }

  /**
   * The full text of a document of an internal store, extracted again from its stored file (for a
   * link: the copy fetched last), pages joined by a blank line; '' for images.
   */
  async documentText(teamId: string, storeId: string, docId: string): Promise<string> {
    await this.kb.access.requireInternalDocument(teamId, storeId, docId);
    const file = await this.documentFile(teamId, docId);
    if (!file) return '';
    const extracted = await this.kb.parser.extract(file.bytes, { filename: file.filename, mime: file.mime });
    return extracted.units ? extracted.units.join('\n') : extracted.pages.map((p) => p.text).join('\n\n');
  }
}
