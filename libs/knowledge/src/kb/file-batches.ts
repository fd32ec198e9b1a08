import { Logger } from '@nestjs/common';
import { ApiError } from '@app/common';
import type { Caller } from '@app/auth';
import type { DocumentStatus, FileBatchEntity } from '../entities/knowledge.entities';
import type { FileRow } from '../files.repository';
import { Attributes, Chunking, parseAttributes, parseChunkingStrategy } from '../kb-rules';
import type { KbContext } from './kb-context';
import { MAX_DOCUMENTS, newBatchId, NewDocumentFile, storeNotFound } from './store-rules';

/** File batches (OpenAI `vector_stores.file_batches`): all or nothing, then cancellable and counted. */
export class FileBatches {
  private readonly log = new Logger('KnowledgeService');

  constructor(private readonly kb: KbContext) {}

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
    await this.kb.access.ingestInto(caller, storeId, true);
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
      const file = await this.kb.files.require(caller.teamId, it.file_id);
      const attributes = parseAttributes(it.attributes, `${at}attributes`);
      const chunking = parseChunkingStrategy(it.chunking_strategy, `${at}chunking_strategy`);
      if (!planned.has(file.id)) planned.set(file.id, { file, attributes, chunking });
    }
    const present = await this.kb.repo.existingDocumentIds(storeId, [...planned.keys()]);
    const fresh = [...planned.values()].filter((p) => !present.has(p.file.id));
    const stats = (await this.kb.repo.storeStats([storeId])).get(storeId)!;
    const held = stats.byKind.file + stats.byKind.text;
    if (held + fresh.length > MAX_DOCUMENTS) throw this.batchTooLarge(held, fresh.length, listed);
    for (const p of fresh)
      await this.kb.writer.assertIngestible(
        await this.kb.files.requireBytes(caller.teamId, p.file.id),
        p.file.filename,
        p.file.mime,
      );

    const now = this.kb.clock.now();
    const batch: FileBatchEntity = {
      id: newBatchId(),
      vectorStoreId: storeId,
      teamId: caller.teamId,
      cancelled: 0,
      createdAt: now,
    };
    const entries = fresh.map((p) => {
      const doc = this.kb.writer.newDocument(
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
      return { doc, job: this.kb.writer.job(doc, now) };
    });
    const added = await this.kb.repo.addBatch(batch, entries, MAX_DOCUMENTS);
    if (added.outcome === 'gone') throw storeNotFound(storeId);
    // documents added by a concurrent request since the check above
    if (added.outcome === 'limit') throw this.batchTooLarge(added.count, added.adding, listed);
    if (entries.length > 0) {
      this.log.log(`knowledge: queued batch ${batch.id} (${entries.length} files) for ${storeId}`);
      this.kb.signal.nudge();
    }
    return { batch, counts: await this.kb.repo.batchCounts(batch.id) };
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
    await this.kb.repo.cancelBatch(batch, this.kb.clock.now());
    return this.getBatch(caller, storeId, batchId);
  }

  async getBatch(
    caller: Caller,
    storeId: string,
    batchId: string,
  ): Promise<{ batch: FileBatchEntity; counts: Record<DocumentStatus, number> }> {
    await this.kb.access.requireStore(caller.teamId, storeId);
    const batch = await this.kb.repo.findBatch(caller.teamId, storeId, batchId);
    if (!batch) throw ApiError.notFound(`No such file batch: ${batchId}`, 'not_found', 'batch_id');
    return { batch, counts: await this.kb.repo.batchCounts(batch.id) };
  }
}
