import { Logger } from '@nestjs/common';
import { ApiError, Clock, sha256Hex } from '@app/common';
import { DocumentParser, ExtractionError } from '../document-parser';
import type { KbDocumentEntity } from '../entities/knowledge.entities';
import type { FilesService, UploadedBytes } from '../files.service';
import type { IngestionSignal } from '../ingestion-signal';
import { Attributes, encodeChunking, parseChunkingStrategy } from '../kb-rules';
import type { KnowledgeRepository } from '../knowledge.repository';
import type { StoreAccess } from './store-access';
import { MAX_DOCUMENTS, MAX_LINKS, NewDocument, storeNotFound } from './store-rules';

/**
 * Attaching a document to a store: its row and ingestion job in one transaction (within the store's
 * limits, by content and name for versions), then a nudge to the ingestion worker.
 */
export class DocumentWriter {
  private readonly log = new Logger('KnowledgeService');

  constructor(
    private readonly repo: KnowledgeRepository,
    private readonly files: FilesService,
    private readonly parser: DocumentParser,
    private readonly signal: IngestionSignal,
    private readonly clock: Clock,
    private readonly access: StoreAccess,
  ) {}

  /**
   * Stores the bytes as a file and attaches it as a new document or a new version of the document of
   * that name — unless the knowledge base holds this content already: then that document is answered
   * and nothing is stored (also when the same content was added concurrently).
   */
  async attachVersion(
    teamId: string,
    storeId: string,
    upload: UploadedBytes | undefined,
    d: { kind: 'file' | 'text'; attributes: Attributes | null; title?: string; replace: boolean },
  ): Promise<KbDocumentEntity> {
    const digest = upload && Buffer.isBuffer(upload.buffer) ? await sha256Hex(upload.buffer) : undefined;
    if (digest) {
      const same = await this.repo.findSameContent(storeId, digest);
      if (same) return same;
    }
    const file = await this.files.store(teamId, upload, 'user_data', digest);
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

  job(doc: Pick<KbDocumentEntity, 'vectorStoreId' | 'id' | 'teamId'>, now: number) {
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

  async attach(
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
    if (typeof outcome === 'object') return this.access.readBack(teamId, storeId, outcome.duplicate);
    if (outcome === 'exists') return this.readdFailed(teamId, storeId, d.fileId);
    if (outcome === 'gone') throw storeNotFound(storeId);
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
    return this.access.readBack(teamId, storeId, d.fileId);
  }

  /** A file added again to the store that holds it: a failed document is ingested again (OpenAI's retry by re-adding). */
  private async readdFailed(teamId: string, storeId: string, docId: string): Promise<KbDocumentEntity> {
    const doc = await this.access.readBack(teamId, storeId, docId);
    if (doc.status === 'failed' && (await this.repo.requeue(doc, this.job(doc, this.clock.now()), 'failed'))) {
      this.signal.nudge();
      return this.access.readBack(teamId, storeId, docId);
    }
    return doc;
  }

  newDocument(teamId: string, storeId: string, d: NewDocument, now: number): Omit<KbDocumentEntity, 'seq'> {
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

  async assertIngestible(bytes: Buffer, filename: string, mime: string): Promise<void> {
    try {
      await this.parser.sniff(bytes, { filename, mime });
    } catch (err) {
      if (err instanceof ExtractionError) throw ApiError.badRequest(err.message, 'file', err.code);
      throw err;
    }
  }
}
