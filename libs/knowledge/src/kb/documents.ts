import { ApiError } from '@app/common';
import type { Caller } from '@app/auth';
import type { DocumentKind, DocumentStatus, KbDocumentEntity } from '../entities/knowledge.entities';
import { newFileId, UploadedBytes } from '../files.service';
import { AttributeMatch, Filter, parseAttributes, parseChunkingStrategy } from '../kb-rules';
import type { KbContext } from './kb-context';
import { documentNotFound, NewDocumentFile, parseLinkUrl } from './store-rules';

/** The documents of knowledge bases: files, uploads, texts and links; listing, retries, attributes, deletion. */
export class KbDocuments {
  constructor(private readonly kb: KbContext) {}

  /** Attach an uploaded file (OpenAI `vector_stores.files.create`). */
  async addFile(
    caller: Caller,
    storeId: string,
    input: NewDocumentFile,
    batchId: string | null = null,
  ): Promise<KbDocumentEntity> {
    const store = await this.kb.access.ingestInto(caller, storeId, true);
    const file = await this.kb.files.require(caller.teamId, input.file_id);
    const bytes = await this.kb.files.requireBytes(caller.teamId, file.id);
    await this.kb.writer.assertIngestible(bytes, file.filename, file.mime);
    const attributes = parseAttributes(input.attributes, 'attributes');
    const chunking = parseChunkingStrategy(input.chunking_strategy);
    return this.kb.writer.attach(caller.teamId, store.id, {
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
    await this.kb.access.ingestInto(caller, storeId);
    const attributes = parseAttributes(metadata, 'metadata');
    if (upload) await this.kb.writer.assertIngestible(upload.buffer, upload.originalname, upload.mimetype);
    return this.kb.writer.attachVersion(caller.teamId, storeId, upload, { kind: 'file', attributes, replace });
  }

  /** A text document (REST JSON `{name, text, metadata, replace}`), stored as a text/markdown file; versions as for uploads. */
  async addText(
    caller: Caller,
    storeId: string,
    input: { name: string; text: string; metadata?: unknown; replace?: boolean },
  ): Promise<KbDocumentEntity> {
    await this.kb.access.ingestInto(caller, storeId);
    const attributes = parseAttributes(input.metadata, 'metadata');
    if (input.text.trim() === '') throw ApiError.badRequest('text must not be empty.', 'text');
    const upload = {
      originalname: input.name.endsWith('.md') || input.name.endsWith('.txt') ? input.name : `${input.name}.md`,
      mimetype: 'text/markdown',
      buffer: Buffer.from(input.text, 'utf8'),
    };
    return this.kb.writer.attachVersion(caller.teamId, storeId, upload, {
      kind: 'text',
      attributes,
      title: input.name,
      replace: input.replace ?? true,
    });
  }

  /** A web link; fetched (SSRF-guarded) and parsed by the worker. */
  async addLink(
    caller: Caller,
    storeId: string,
    input: { url: string; metadata?: unknown },
  ): Promise<KbDocumentEntity> {
    await this.kb.access.ingestInto(caller, storeId);
    const url = parseLinkUrl(input.url);
    const attributes = parseAttributes(input.metadata, 'metadata');
    return this.kb.writer.attach(caller.teamId, storeId, {
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
    await this.kb.access.ingestInto(caller, storeId);
    const doc = await this.kb.access.requireDocument(caller.teamId, storeId, docId);
    if (doc.kind !== 'link') throw ApiError.badRequest(`${docId} is not a link.`, 'link_id');
    const now = this.kb.clock.now();
    await this.kb.repo.requeue(doc, this.kb.writer.job(doc, now));
    this.kb.signal.nudge();
    return this.kb.access.requireDocument(caller.teamId, storeId, docId);
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
    await this.kb.access.requireStore(caller.teamId, storeId);
    const limit = q.limit ?? 20;
    const rows = await this.kb.repo.listDocuments(caller.teamId, storeId, {
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
    await this.kb.access.ingestInto(caller, storeId);
    const doc = await this.kb.access.requireDocument(caller.teamId, storeId, docId);
    const requeued =
      doc.status === 'failed' &&
      (await this.kb.repo.requeue(doc, this.kb.writer.job(doc, this.kb.clock.now()), 'failed'));
    if (!requeued)
      throw new ApiError(
        409,
        'invalid_request_error',
        `Only a failed document can be retried; ${docId} is ${doc.status === 'failed' ? 'being retried' : doc.status}.`,
        'document_not_failed',
        'doc_id',
      );
    this.kb.signal.nudge();
    return this.kb.access.readBack(caller.teamId, storeId, docId);
  }

  async deleteDocument(caller: Caller, storeId: string, docId: string): Promise<void> {
    await this.kb.access.requireStore(caller.teamId, storeId);
    if (!(await this.kb.repo.deleteDocument(caller.teamId, storeId, docId))) throw documentNotFound(storeId, docId);
  }

  async updateAttributes(
    caller: Caller,
    storeId: string,
    docId: string,
    attributes: unknown,
  ): Promise<KbDocumentEntity> {
    await this.kb.access.requireDocument(caller.teamId, storeId, docId);
    const a = parseAttributes(attributes, 'attributes');
    await this.kb.repo.setDocumentAttributes(storeId, docId, a ? JSON.stringify(a) : null, this.kb.clock.now());
    return this.kb.access.readBack(caller.teamId, storeId, docId);
  }
}
