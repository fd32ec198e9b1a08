import { In, Repository } from 'typeorm';
import {
  DocumentKind,
  DocumentStatus,
  FileBatchEntity,
  IngestJobEntity,
  KbDocumentEntity,
} from '../entities/knowledge.entities';
import { EMPTY_STATUS, NewIngestJob, RepoContext, RepoPart } from './rows';

/** File batches: added all or nothing, found, cancelled and counted. */
export class BatchRows extends RepoPart {
  constructor(
    ctx: RepoContext,
    private readonly docs: Repository<KbDocumentEntity>,
    private readonly batches: Repository<FileBatchEntity>,
  ) {
    super(ctx);
  }

  /**
   * Adds a file batch and all its documents with their jobs in one transaction, or nothing: the
   * store row is locked first, documents already in the store are left as they are, and when the new
   * ones would take the store past `limit` (files and texts together) nothing is written.
   */
  addBatch(
    batch: FileBatchEntity,
    entries: Array<{ doc: Omit<KbDocumentEntity, 'seq'>; job: NewIngestJob }>,
    limit: number,
  ): Promise<{ outcome: 'added' | 'gone' } | { outcome: 'limit'; count: number; adding: number }> {
    return this.tx.run(async (m) => {
      if (!(await this.lockStore(m, batch.vectorStoreId))) return { outcome: 'gone' as const };
      const ids = entries.map((e) => e.doc.id);
      const present = new Set<string>();
      for (let i = 0; i < ids.length; i += 200) {
        const rows = await m.find(KbDocumentEntity, {
          select: { id: true },
          where: { vectorStoreId: batch.vectorStoreId, id: In(ids.slice(i, i + 200)) },
        });
        for (const r of rows) present.add(r.id);
      }
      const fresh = entries.filter((e) => !present.has(e.doc.id));
      const count = await m.countBy(KbDocumentEntity, {
        vectorStoreId: batch.vectorStoreId,
        kind: In(['file', 'text'] as DocumentKind[]),
      });
      if (count + fresh.length > limit) return { outcome: 'limit' as const, count, adding: fresh.length };
      await m.insert(FileBatchEntity, batch);
      for (let i = 0; i < fresh.length; i += 50) {
        const part = fresh.slice(i, i + 50);
        await m.insert(
          KbDocumentEntity,
          part.map((e) => e.doc),
        );
        await m.insert(
          IngestJobEntity,
          part.map((e) => e.job),
        );
      }
      await this.audit.record(m, {
        teamId: batch.teamId,
        action: 'file_batch.create',
        targetType: 'file_batch',
        targetId: batch.id,
        after: { knowledge_base_id: batch.vectorStoreId, documents: fresh.map((e) => e.doc.id) },
      });
      return { outcome: 'added' as const };
    });
  }

  /** Which of `ids` are documents of the store already. */
  async existingDocumentIds(vectorStoreId: string, ids: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < ids.length; i += 200) {
      const rows = await this.docs.find({
        select: { id: true },
        where: { vectorStoreId, id: In(ids.slice(i, i + 200)) },
      });
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  async insertBatch(row: FileBatchEntity): Promise<void> {
    await this.batches.insert(row);
  }

  findBatch(teamId: string, vectorStoreId: string, id: string): Promise<FileBatchEntity | null> {
    return this.batches.findOneBy({ teamId, vectorStoreId, id });
  }

  /** Cancels the batch's documents that have not started; those in progress finish. */
  cancelBatch(batch: FileBatchEntity, now: number): Promise<void> {
    return this.tx.run(async (m) => {
      if (!(await this.lockStore(m, batch.vectorStoreId))) return;
      await m.update(FileBatchEntity, { id: batch.id }, { cancelled: 1 });
      await this.audit.record(m, {
        teamId: batch.teamId,
        action: 'file_batch.cancel',
        targetType: 'file_batch',
        targetId: batch.id,
        after: { knowledge_base_id: batch.vectorStoreId },
      });
      const queued = await m.findBy(KbDocumentEntity, { batchId: batch.id, status: 'queued' });
      const ids = queued.map((d) => d.id);
      if (ids.length === 0) return;
      await m.update(
        KbDocumentEntity,
        { vectorStoreId: batch.vectorStoreId, id: In(ids) },
        { status: 'cancelled', updatedAt: now },
      );
      await m.update(
        IngestJobEntity,
        { vectorStoreId: batch.vectorStoreId, documentId: In(ids), status: 'queued' },
        { status: 'cancelled', updatedAt: now },
      );
    });
  }

  async batchCounts(batchId: string): Promise<Record<DocumentStatus, number>> {
    const rows = await this.docs
      .createQueryBuilder('d')
      .select('d.status', 'status')
      .addSelect('COUNT(*)', 'n')
      .where('d.batch_id = :batchId', { batchId })
      .groupBy('d.status')
      .getRawMany<{ status: DocumentStatus; n: string | number }>();
    const out = EMPTY_STATUS();
    for (const r of rows) out[r.status] = Number(r.n);
    return out;
  }
}
