import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Not, Repository } from 'typeorm';
import { ChangeRecorder, RawSql, TransactionRunner } from '@app/database';
import { attributeFilterSql } from './attribute-filter-sql';
import { ChunkStaging, inlineTerms, PUBLISH_ROWS, TermsOf } from './chunk-staging.repository';
import type { Filter } from './kb-rules';
import {
  DocumentKind,
  DocumentStatus,
  FileBatchEntity,
  IngestJobEntity,
  JobStatus,
  KbChunkEntity,
  KbDocumentEntity,
  VectorStoreEntity,
} from './entities/knowledge.entities';

/** A chunk swap whose document or store was deleted meanwhile: its transaction rolls back. */
class SwapDropped extends Error {}

export interface PageQuery {
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
}

export interface StoreStats {
  byStatus: Record<DocumentStatus, number>;
  byKind: Record<DocumentKind, number>;
  usageBytes: number;
  chunks: number;
}

export interface NewChunk {
  ordinal: number;
  page: number | null;
  text: string;
  tokens: number;
  contentHash: string;
  embedding: Buffer;
}

export interface VectorRow {
  id: number;
  documentId: string;
  contentHash: string;
  embedding: Buffer;
}

const EMPTY_STATUS = (): Record<DocumentStatus, number> => ({
  queued: 0,
  in_progress: 0,
  completed: 0,
  failed: 0,
  cancelled: 0,
});
const EMPTY_KIND = (): Record<DocumentKind, number> => ({ file: 0, text: 0, link: 0 });

/** Knowledge bases, their documents and chunks, batches and the ingestion queue. */
/** A job as it is queued (no unfinished parser runs yet: the column's default). */
export type NewIngestJob = Omit<IngestJobEntity, 'id' | 'parseRuns'>;

@Injectable()
export class KnowledgeRepository {
  private readonly sql: RawSql;
  private readonly T: { jobs: string; chunks: string; stores: string };
  /** Postgres keyword ranking: per `store@revision`, its chunk count and the document frequencies counted so far. */
  private readonly termStatsCache = new Map<string, { n: number; df: Map<string, number> }>();
  /** SQLite: chunk writes in small transactions (see ChunkStaging) */
  private readonly staging: ChunkStaging;

  constructor(
    @InjectDataSource() ds: DataSource,
    private readonly tx: TransactionRunner,
    @InjectRepository(VectorStoreEntity) private readonly stores: Repository<VectorStoreEntity>,
    @InjectRepository(KbDocumentEntity) private readonly docs: Repository<KbDocumentEntity>,
    @InjectRepository(KbChunkEntity) private readonly chunks: Repository<KbChunkEntity>,
    @InjectRepository(IngestJobEntity) private readonly jobs: Repository<IngestJobEntity>,
    @InjectRepository(FileBatchEntity) private readonly batches: Repository<FileBatchEntity>,
    private readonly audit: ChangeRecorder,
  ) {
    this.sql = new RawSql(ds);
    this.T = {
      jobs: this.sql.table(IngestJobEntity),
      chunks: this.sql.table(KbChunkEntity),
      stores: this.sql.table(VectorStoreEntity),
    };
    this.staging = new ChunkStaging(tx, this.sql, this.T.chunks);
  }

  // ── knowledge bases ────────────────────────────────────────────────────────────────────────────

  /** Inserts the store; a knowledge base (not a project's internal store) is audited in the same transaction. */
  async insertStore(
    row: Omit<VectorStoreEntity, 'seq' | 'internal' | 'expiresAfterDays'> & {
      internal?: number;
      expiresAfterDays?: number | null;
    },
  ): Promise<void> {
    const full = { internal: 0, expiresAfterDays: null, ...row };
    await this.tx.run(async (m) => {
      await m.insert(VectorStoreEntity, { ...full });
      if (!full.internal) await this.recordStore(m, 'knowledge_base.create', full.teamId, full.id, null, full);
    });
  }

  findStore(teamId: string, id: string): Promise<VectorStoreEntity | null> {
    return this.stores.findOneBy({ teamId, id });
  }

  async listStores(teamId: string, q: PageQuery): Promise<VectorStoreEntity[]> {
    const qb = this.stores.createQueryBuilder('s').where('s.team_id = :teamId AND s.internal = 0', { teamId });
    if (q.after) {
      const cursor = await this.stores.findOneBy({ teamId, id: q.after, internal: 0 });
      if (!cursor) return [];
      qb.andWhere(q.order === 'desc' ? 's.seq < :seq' : 's.seq > :seq', { seq: cursor.seq });
    }
    return qb
      .orderBy('s.seq', q.order === 'desc' ? 'DESC' : 'ASC')
      .limit(q.limit + 1)
      .getMany();
  }

  /** Sets the given columns; a change other than activity (`lastActiveAt`) is audited in the same transaction. */
  async updateStore(
    teamId: string,
    id: string,
    patch: Partial<Pick<VectorStoreEntity, 'name' | 'metadata' | 'description' | 'lastActiveAt' | 'expiresAfterDays'>>,
  ): Promise<VectorStoreEntity | null> {
    const { lastActiveAt: _activity, ...settings } = patch;
    if (Object.keys(settings).length === 0) {
      if (Object.keys(patch).length > 0) await this.stores.update({ teamId, id }, patch);
      return this.findStore(teamId, id);
    }
    return this.tx.run(async (m) => {
      const before = await m.findOneBy(VectorStoreEntity, { teamId, id });
      if (!before) return null;
      await m.update(VectorStoreEntity, { teamId, id }, patch);
      const after = await m.findOneByOrFail(VectorStoreEntity, { teamId, id });
      if (!after.internal) await this.recordStore(m, 'knowledge_base.update', teamId, id, before, after);
      return after;
    });
  }

  /** The knowledge base and everything in it, in one transaction; the store row goes first (the lock order, see lockStore). */
  deleteStore(teamId: string, id: string): Promise<boolean> {
    return this.tx.run(async (m) => {
      const before = await m.findOneBy(VectorStoreEntity, { teamId, id });
      const res = await m.delete(VectorStoreEntity, { teamId, id });
      if ((res.affected ?? 0) === 0) return false;
      await m.delete(KbChunkEntity, { vectorStoreId: id });
      if (!this.sql.pg) await this.staging.deleteAll(m, id);
      await m.delete(IngestJobEntity, { vectorStoreId: id });
      await m.delete(KbDocumentEntity, { vectorStoreId: id });
      await m.delete(FileBatchEntity, { vectorStoreId: id });
      if (before && !before.internal) await this.recordStore(m, 'knowledge_base.delete', teamId, id, before, null);
      return true;
    });
  }

  private recordStore(
    m: EntityManager,
    action: string,
    teamId: string,
    id: string,
    before: VectorStoreEntity | null,
    after: Omit<VectorStoreEntity, 'seq'> | null,
  ): Promise<void> {
    const view = (s: Omit<VectorStoreEntity, 'seq'> | null) =>
      s && {
        name: s.name,
        description: s.description,
        metadata: s.metadata === null ? null : (JSON.parse(s.metadata) as unknown),
        embedding_model: s.embeddingModel,
        expires_after_days: s.expiresAfterDays,
      };
    return this.audit.record(m, {
      teamId,
      action,
      targetType: 'knowledge_base',
      targetId: id,
      before: view(before),
      after: view(after),
    });
  }

  private recordDocument(
    m: EntityManager,
    action: string,
    doc: Omit<KbDocumentEntity, 'seq'>,
    deleted = false,
  ): Promise<void> {
    const view = {
      knowledge_base_id: doc.vectorStoreId,
      kind: doc.kind,
      filename: doc.filename,
      title: doc.title,
      url: doc.url,
      batch_id: doc.batchId,
    };
    return this.audit.record(m, {
      teamId: doc.teamId,
      action,
      targetType: 'document',
      targetId: doc.id,
      before: deleted ? view : null,
      after: deleted ? null : view,
    });
  }

  async storeStats(ids: string[]): Promise<Map<string, StoreStats>> {
    const out = new Map<string, StoreStats>(
      ids.map((id) => [id, { byStatus: EMPTY_STATUS(), byKind: EMPTY_KIND(), usageBytes: 0, chunks: 0 }]),
    );
    if (ids.length === 0) return out;
    const rows = await this.docs
      .createQueryBuilder('d')
      .select('d.vector_store_id', 'store')
      .addSelect('d.status', 'status')
      .addSelect('d.kind', 'kind')
      .addSelect('COUNT(*)', 'n')
      .addSelect('SUM(d.usage_bytes)', 'bytes')
      .addSelect('SUM(d.chunk_count)', 'chunks')
      .where({ vectorStoreId: In(ids) })
      .groupBy('d.vector_store_id')
      .addGroupBy('d.status')
      .addGroupBy('d.kind')
      .getRawMany<{
        store: string;
        status: DocumentStatus;
        kind: DocumentKind;
        n: string | number;
        bytes: string | number | null;
        chunks: string | number | null;
      }>();
    for (const r of rows) {
      const s = out.get(r.store)!;
      s.byStatus[r.status] += Number(r.n);
      s.byKind[r.kind] += Number(r.n);
      s.usageBytes += Number(r.bytes ?? 0);
      s.chunks += Number(r.chunks ?? 0);
    }
    return out;
  }

  // ── documents ──────────────────────────────────────────────────────────────────────────────────

  /**
   * Adds a document and its ingestion job in one transaction, unless the knowledge base already
   * holds `limit` documents of that family (files and texts count together; links separately).
   * The knowledge base row is locked first so concurrent adds cannot both pass the count.
   * With `versions` (a file or text of known content hash): a document of the store with the same
   * content (not failed or cancelled) is answered instead (`duplicate`); otherwise, with
   * `versions.replace`, the newest document of the same name becomes the one the new document
   * replaces (`replacesId`; a replacement does not count against the limit).
   */
  addDocument(
    doc: Omit<KbDocumentEntity, 'seq'>,
    job: NewIngestJob,
    limit: number,
    versions?: { replace: boolean },
  ): Promise<'added' | 'limit' | 'exists' | 'gone' | { duplicate: string }> {
    return this.tx.run(async (m) => {
      if (!(await this.lockStore(m, doc.vectorStoreId))) return 'gone';
      if (await m.findOneBy(KbDocumentEntity, { vectorStoreId: doc.vectorStoreId, id: doc.id })) return 'exists';
      let row = doc;
      if (versions && doc.contentHash) {
        const same = await this.sameContent(m, doc.vectorStoreId, doc.contentHash);
        if (same) return { duplicate: same.id };
        const prior = versions.replace ? await this.sameName(m, doc.vectorStoreId, doc.filename) : null;
        if (prior) row = { ...doc, replacesId: prior.id };
      }
      const kinds: DocumentKind[] = doc.kind === 'link' ? ['link'] : ['file', 'text'];
      const count = await m.countBy(KbDocumentEntity, { vectorStoreId: doc.vectorStoreId, kind: In(kinds) });
      if (count - (row.replacesId ? 1 : 0) >= limit) return 'limit';
      await m.insert(KbDocumentEntity, { ...row });
      await m.insert(IngestJobEntity, job);
      await this.recordDocument(m, 'document.create', row);
      return 'added';
    });
  }

  /** The store's newest file or text document holding exactly this content (failed and cancelled ones aside). */
  findSameContent(vectorStoreId: string, contentHash: string): Promise<KbDocumentEntity | null> {
    return this.sameContent(this.docs.manager, vectorStoreId, contentHash);
  }

  private sameContent(m: EntityManager, vectorStoreId: string, contentHash: string): Promise<KbDocumentEntity | null> {
    return m.findOne(KbDocumentEntity, {
      where: {
        vectorStoreId,
        contentHash,
        kind: In(['file', 'text'] as DocumentKind[]),
        status: Not(In(['failed', 'cancelled'] as DocumentStatus[])),
      },
      order: { seq: 'DESC' },
    });
  }

  private sameName(m: EntityManager, vectorStoreId: string, filename: string): Promise<KbDocumentEntity | null> {
    return m.findOne(KbDocumentEntity, {
      where: {
        vectorStoreId,
        filename,
        kind: In(['file', 'text'] as DocumentKind[]),
        status: Not('cancelled' as DocumentStatus),
      },
      order: { seq: 'DESC' },
    });
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

  /** The largest chunk (in tokens) held by any of the stores; 0 when they hold none. */
  async maxChunkTokens(vectorStoreIds: string[]): Promise<number> {
    if (vectorStoreIds.length === 0) return 0;
    const row = await this.chunks
      .createQueryBuilder('c')
      .select('MAX(c.tokens)', 'max')
      .where('c.vector_store_id IN (:...ids)', { ids: vectorStoreIds })
      .getRawOne<{ max: number | string | null }>();
    return Number(row?.max ?? 0);
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

  /**
   * The lock order of every write transaction under a store: the store row first, then its rows.
   * Deleting the store takes that row first too, so it and a chunk swap, a failed job, a requeue, a
   * batch cancel or a document delete queue behind each other instead of deadlocking on Postgres
   * (each locked chunks, documents and jobs in its own order). False when the store is gone.
   */
  private lockStore(m: EntityManager, id: string): Promise<boolean> {
    return this.sql.lockRow(this.T.stores, id, m);
  }

  findDocument(teamId: string, vectorStoreId: string, id: string): Promise<KbDocumentEntity | null> {
    return this.docs.findOneBy({ teamId, vectorStoreId, id });
  }

  async listDocuments(
    teamId: string,
    vectorStoreId: string,
    q: PageQuery & {
      status?: DocumentStatus;
      batchId?: string;
      kinds?: DocumentKind[];
      /** key → the JSON texts its attribute value may have (see parseAttributeQuery) */
      attributes?: Record<string, string[]>;
      /** OpenAI's attribute filter grammar (see parseFilterQuery) */
      filter?: Filter;
    },
  ): Promise<KbDocumentEntity[]> {
    const qb = this.docs
      .createQueryBuilder('d')
      .where('d.team_id = :teamId AND d.vector_store_id = :vectorStoreId', { teamId, vectorStoreId });
    if (q.status) qb.andWhere('d.status = :status', { status: q.status });
    Object.entries(q.attributes ?? {}).forEach(([key, texts], i) => {
      // the attribute's value as JSON text: Postgres jsonb -> then ::text, SQLite's -> operator
      const value = this.sql.pg ? `CAST(CAST(d.attributes AS jsonb) -> :ak${i} AS text)` : `(d.attributes -> :ak${i})`;
      qb.andWhere(`${value} IN (:...av${i})`, { [`ak${i}`]: this.sql.pg ? key : `$."${key}"`, [`av${i}`]: texts });
    });
    if (q.filter) {
      const params: Record<string, unknown> = {};
      qb.andWhere(attributeFilterSql(q.filter, 'd.attributes', this.sql.pg, params), params);
    }
    if (q.batchId) qb.andWhere('d.batch_id = :batchId', { batchId: q.batchId });
    if (q.kinds) qb.andWhere('d.kind IN (:...kinds)', { kinds: q.kinds });
    if (q.after) {
      const cursor = await this.docs.findOneBy({ teamId, vectorStoreId, id: q.after });
      if (!cursor) return [];
      qb.andWhere(q.order === 'desc' ? 'd.seq < :seq' : 'd.seq > :seq', { seq: cursor.seq });
    }
    return qb
      .orderBy('d.seq', q.order === 'desc' ? 'DESC' : 'ASC')
      .limit(q.limit + 1)
      .getMany();
  }

  documentsByIds(vectorStoreId: string, ids: string[]): Promise<KbDocumentEntity[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.docs.findBy({ vectorStoreId, id: In(ids) });
  }

  /** The document, its chunks and its jobs, in one transaction (search never sees half of it). */
  async deleteDocument(teamId: string, vectorStoreId: string, id: string): Promise<boolean> {
    const deleted = await this.tx.run(async (m) => {
      if (!(await this.lockStore(m, vectorStoreId))) return false;
      const doc = await m.findOneBy(KbDocumentEntity, { teamId, vectorStoreId, id });
      const res = await m.delete(KbDocumentEntity, { teamId, vectorStoreId, id });
      if ((res.affected ?? 0) === 0 || !doc) return false;
      await this.recordDocument(m, 'document.delete', doc, true);
      await m.delete(KbChunkEntity, { vectorStoreId, documentId: id });
      await m.delete(IngestJobEntity, { vectorStoreId, documentId: id });
      await m.increment(VectorStoreEntity, { id: vectorStoreId }, 'revision', 1);
      return true;
    });
    // SQLite: rows a run of the document staged before it was deleted
    if (deleted && !this.sql.pg) await this.staging.purgeStaged(vectorStoreId, id);
    return deleted;
  }

  async updateDocument(vectorStoreId: string, id: string, patch: Partial<KbDocumentEntity>): Promise<void> {
    await this.docs.update({ vectorStoreId, id }, patch);
  }

  /** New attributes of a document, with the audit record of the change, in one transaction. */
  async setDocumentAttributes(
    vectorStoreId: string,
    id: string,
    attributes: string | null,
    now: number,
  ): Promise<void> {
    await this.tx.run(async (m) => {
      const before = await m.findOneBy(KbDocumentEntity, { vectorStoreId, id });
      if (!before) return;
      await m.update(KbDocumentEntity, { vectorStoreId, id }, { attributes, updatedAt: now });
      const parse = (a: string | null) => (a === null ? null : (JSON.parse(a) as unknown));
      await this.audit.record(m, {
        teamId: before.teamId,
        action: 'document.update',
        targetType: 'document',
        targetId: id,
        before: { attributes: parse(before.attributes) },
        after: { attributes: parse(attributes) },
      });
    });
  }

  /**
   * Queue the document again (link refresh, retry of a failed document); false when a job for it is
   * already pending, or when `onlyIf` is given and the document's status (read under the store's
   * lock) is another.
   */
  requeue(doc: KbDocumentEntity, job: NewIngestJob, onlyIf?: DocumentStatus): Promise<boolean> {
    return this.tx.run(async (m) => {
      if (!(await this.lockStore(m, doc.vectorStoreId))) return false;
      if (onlyIf) {
        const now = await m.findOneBy(KbDocumentEntity, { vectorStoreId: doc.vectorStoreId, id: doc.id });
        if (now?.status !== onlyIf) return false;
      }
      const pending = await m.countBy(IngestJobEntity, {
        vectorStoreId: doc.vectorStoreId,
        documentId: doc.id,
        status: In(['queued', 'in_progress']),
      });
      if (pending > 0) return false;
      await m.update(
        KbDocumentEntity,
        { vectorStoreId: doc.vectorStoreId, id: doc.id },
        { status: 'queued', lastErrorCode: null, lastErrorMessage: null, updatedAt: job.createdAt },
      );
      await m.insert(IngestJobEntity, job);
      await this.recordDocument(m, onlyIf === 'failed' ? 'document.retry' : 'document.refresh', doc);
      return true;
    });
  }

  // ── batches ────────────────────────────────────────────────────────────────────────────────────

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

  // ── chunks ─────────────────────────────────────────────────────────────────────────────────────

  /** Embeddings already stored in this knowledge base for these content hashes (identical text is embedded once). */
  async embeddingsByHash(vectorStoreId: string, hashes: string[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    for (let i = 0; i < hashes.length; i += 500) {
      const part = hashes.slice(i, i + 500);
      const rows = await this.chunks.find({
        select: { contentHash: true, embedding: true },
        where: { vectorStoreId, contentHash: In(part) },
      });
      for (const r of rows) if (!out.has(r.contentHash)) out.set(r.contentHash, Buffer.from(r.embedding));
    }
    return out;
  }

  /**
   * Replaces the document's chunks, marks it completed and finishes its job in ONE transaction,
   * so a search sees either the old chunks or the new ones — and, for a new version of a document,
   * the old version (with whatever it was replacing in turn) is deleted in that same transaction.
   * Returns false when the document was deleted meanwhile (nothing written).
   *
   * On Postgres the new rows are inserted before the store lock is taken: the inserts (most of a
   * swap's time: the rows, their tsvector and its GIN entries) of documents ingesting at the same
   * time, on this replica or others, then run side by side instead of one after another behind
   * the lock. The lock order still holds: rows not yet committed are invisible to the deletes that
   * run under the store lock, so nothing waits on them. SQLite has one writer on the event loop's
   * thread: there the rows are staged in small transactions first and the swap only moves keys
   * (swapStaged, ChunkStaging).
   */
  async swapChunks(
    vectorStoreId: string,
    documentId: string,
    chunks: NewChunk[],
    patch: Partial<KbDocumentEntity>,
    jobId: number,
    termsOf: TermsOf = inlineTerms,
  ): Promise<boolean> {
    if (!this.sql.pg) return this.swapStaged(vectorStoreId, documentId, chunks, patch, jobId, termsOf);
    try {
      return await this.tx.run(async (m) => {
        const newIds = await this.insertChunks(m, vectorStoreId, documentId, chunks, termsOf);
        const present =
          (await this.lockStore(m, vectorStoreId)) &&
          (await m.findOneBy(KbDocumentEntity, { vectorStoreId, id: documentId }));
        if (!present) throw new SwapDropped(); // rolls the inserted rows back
        if (present.replacesId) await this.deleteReplaced(m, present);
        // every chunk of the document but the ones just inserted (also those of an earlier run
        // of the same document that committed meanwhile)
        await this.sql.exec(
          `DELETE FROM ${this.T.chunks} WHERE vector_store_id = $1 AND document_id = $2 AND id <> ALL($3::bigint[])`,
          [vectorStoreId, documentId, newIds],
          m,
        );
        await this.completeSwap(m, vectorStoreId, documentId, patch, jobId);
        return true;
      });
    } catch (err) {
      if (err instanceof SwapDropped) return false;
      throw err;
    }
  }

  /**
   * SQLite's swap (see ChunkStaging): the rows are staged in small transactions first, then one
   * short transaction moves them in and the old and replaced rows out; those are purged afterwards.
   */
  private async swapStaged(
    vectorStoreId: string,
    documentId: string,
    chunks: NewChunk[],
    patch: Partial<KbDocumentEntity>,
    jobId: number,
    termsOf: TermsOf,
  ): Promise<boolean> {
    await this.stageChunks(vectorStoreId, documentId, chunks, termsOf);
    const sliced = await this.publishInSlices(vectorStoreId, documentId);
    const swapped =
      sliced !== 'dropped' &&
      (await this.tx.run(async (m) => {
        const present =
          (await this.lockStore(m, vectorStoreId)) &&
          (await m.findOneBy(KbDocumentEntity, { vectorStoreId, id: documentId }));
        if (!present) return false;
        if (present.replacesId) await this.deleteReplaced(m, present);
        await this.staging.publish(m, vectorStoreId, documentId, sliced === 'published');
        await this.completeSwap(m, vectorStoreId, documentId, patch, jobId);
        return true;
      }));
    if (swapped) await this.staging.purgeTrash(vectorStoreId);
    else await this.staging.purgeStaged(vectorStoreId, documentId);
    return swapped;
  }

  /**
   * SQLite, a document with no rows in its knowledge base yet (a first ingestion, replacing no
   * version): its staged rows are moved in PUBLISH_ROWS at a time, the event loop free between the
   * transactions — one UPDATE of a large document's thousands of rows held it for hundreds of ms.
   * Searches may see part of a document that is still in progress meanwhile (there are no old rows
   * to mix with); the swap then marks it completed. A document that has rows there, or replaces a
   * version, is moved in the swap's one transaction, so its searches see the old or the new rows.
   * 'dropped': the document was deleted meanwhile; 'atomic': left to the swap.
   */
  private async publishInSlices(
    vectorStoreId: string,
    documentId: string,
  ): Promise<'published' | 'atomic' | 'dropped'> {
    for (let first = true; ; first = false) {
      const moved = await this.tx.run(async (m) => {
        const present =
          (await this.lockStore(m, vectorStoreId)) &&
          (await m.findOneBy(KbDocumentEntity, { vectorStoreId, id: documentId }));
        if (!present) return 'dropped' as const;
        if (first && (present.replacesId || (await this.staging.hasRows(m, vectorStoreId, documentId))))
          return 'atomic' as const;
        return this.staging.publishSome(m, vectorStoreId, documentId, PUBLISH_ROWS);
      });
      if (typeof moved === 'string') return moved;
      if (moved < PUBLISH_ROWS) return 'published';
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** SQLite: the document's new chunk rows, written out of sight in small transactions (ChunkStaging.stage). */
  async stageChunks(
    vectorStoreId: string,
    documentId: string,
    chunks: NewChunk[],
    termsOf: TermsOf = inlineTerms,
  ): Promise<void> {
    await this.staging.stage(vectorStoreId, documentId, chunks, termsOf);
  }

  /** The swap's last writes: the document, its job, and the knowledge base's revision. */
  private async completeSwap(
    m: EntityManager,
    vectorStoreId: string,
    documentId: string,
    patch: Partial<KbDocumentEntity>,
    jobId: number,
  ): Promise<void> {
    await m.update(KbDocumentEntity, { vectorStoreId, id: documentId }, patch);
    await m.update(
      IngestJobEntity,
      { id: jobId },
      { status: 'completed', leaseOwner: null, leaseUntil: null, updatedAt: patch.updatedAt },
    );
    await m.increment(VectorStoreEntity, { id: vectorStoreId }, 'revision', 1);
  }

  /** Inserts the chunks in batches of 200 rows (Postgres); answers their ids. */
  private async insertChunks(
    m: EntityManager,
    vectorStoreId: string,
    documentId: string,
    chunks: NewChunk[],
    termsOf: TermsOf,
  ): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < chunks.length; i += 200) {
      const batch = chunks.slice(i, i + 200);
      // terms per batch of rows: computed for all chunks at once they would double the chunks' memory
      const terms = await termsOf(batch.map((c) => c.text));
      const insert = m
        .createQueryBuilder()
        .insert()
        .into(KbChunkEntity)
        .values(batch.map((c, k) => ({ ...c, terms: terms[k], vectorStoreId, documentId })))
        .updateEntity(false);
      const res = await (this.sql.pg ? insert.returning(['id']) : insert).execute();
      if (this.sql.pg) for (const r of res.raw as Array<{ id: string }>) ids.push(String(r.id));
    }
    return ids;
  }

  /** The versions a document replaces (the chain of replacesId, at most a store's worth), deleted with their chunks and jobs. */
  private async deleteReplaced(m: EntityManager, doc: KbDocumentEntity): Promise<void> {
    const { vectorStoreId } = doc;
    let id = doc.replacesId;
    for (let hops = 0; id && id !== doc.id && hops < 256; hops++) {
      const old = await m.findOneBy(KbDocumentEntity, { vectorStoreId, id });
      if (!old) return;
      await m.delete(KbDocumentEntity, { vectorStoreId, id });
      // SQLite: out of sight now, deleted after the swap in small transactions
      if (this.sql.pg) await m.delete(KbChunkEntity, { vectorStoreId, documentId: id });
      else await this.staging.discard(m, vectorStoreId, id);
      await m.delete(IngestJobEntity, { vectorStoreId, documentId: id });
      await this.recordDocument(m, 'document.delete', old, true);
      id = old.replacesId;
    }
  }

  async storeRevision(vectorStoreId: string): Promise<number | null> {
    const row = await this.stores.findOne({ select: { revision: true }, where: { id: vectorStoreId } });
    return row ? row.revision : null;
  }

  async loadVectors(vectorStoreId: string): Promise<VectorRow[]> {
    const rows = await this.chunks.find({
      select: { id: true, documentId: true, contentHash: true, embedding: true },
      where: { vectorStoreId },
      order: { id: 'ASC' },
    });
    return rows.map((r) => ({
      id: Number(r.id),
      documentId: r.documentId,
      contentHash: r.contentHash,
      embedding: Buffer.from(r.embedding),
    }));
  }

  async chunksByIds(ids: number[]): Promise<KbChunkEntity[]> {
    if (ids.length === 0) return [];
    return this.chunks.find({
      select: { id: true, documentId: true, ordinal: true, page: true, text: true, tokens: true, contentHash: true },
      where: { id: In(ids) },
    });
  }

  /** Every chunk of one document in order (text, page and tokens only), for reading its full text. */
  async documentChunks(vectorStoreId: string, documentId: string): Promise<KbChunkEntity[]> {
    return this.chunks.find({
      select: { id: true, ordinal: true, page: true, text: true, tokens: true },
      where: { vectorStoreId, documentId },
      order: { ordinal: 'ASC' },
    });
  }

  /**
   * The keyword leg: chunk ids ranked by BM25 over the chunks' stems, best first. `terms` are query
   * stems (`keywordTerms`); they are OR-ed against the stemmed index (`terms` column). SQLite: FTS5
   * `bm25()`. Postgres: Σ over the query terms of the term's BM25 IDF in this knowledge base ×
   * `ts_rank` of that term (frequency, normalised by 1 + log of the chunk's length), so a rare
   * term outranks a common one as in BM25. The document frequencies are kept per knowledge base
   * `revision` (when given) for the terms already counted.
   */
  async keywordSearch(vectorStoreId: string, terms: string[], limit: number, revision?: number): Promise<number[]> {
    const words = terms.map((t) => t.replace(/[^\p{L}\p{N}]/gu, '')).filter(Boolean);
    if (words.length === 0) return [];
    if (this.sql.pg) {
      const stats = await this.termStats(vectorStoreId, words, revision);
      const present = words.map((term) => ({ term, df: stats.df.get(term) ?? 0 })).filter((t) => t.df > 0);
      if (present.length === 0) return [];
      const n = stats.n;
      // Σ idf(term) × ts_rank(term), inline (a per-row subquery costs several times more)
      const first = 4;
      const rank = present
        .map((_, i) => `$${first + present.length + i}::float8 * ts_rank(tsv, to_tsquery('simple', $${first + i}), 1)`)
        .join(' + ');
      const { rows } = await this.sql.exec(
        `SELECT id FROM ${this.T.chunks}
          WHERE vector_store_id = $1 AND tsv @@ to_tsquery('simple', $2)
          ORDER BY ${rank} DESC, id ASC LIMIT $3`,
        [
          vectorStoreId,
          present.map((t) => t.term).join(' | '),
          limit,
          ...present.map((t) => t.term),
          ...present.map((t) => bm25Idf(n, t.df)),
        ],
      );
      return rows.map((r) => Number(r.id));
    }
    const match = words.map((t) => `"${t}"`).join(' OR ');
    const { rows } = await this.sql.exec(
      `SELECT c.id AS id FROM kb_chunks_fts f JOIN ${this.T.chunks} c ON c.id = f.rowid WHERE kb_chunks_fts MATCH $1 AND c.vector_store_id = $2 ORDER BY bm25(kb_chunks_fts) ASC, c.id ASC LIMIT $3`,
      [match, vectorStoreId, limit],
    );
    return rows.map((r) => Number(r.id));
  }

  /** Postgres: chunk count and document frequencies of `terms` in a knowledge base (cached per revision). */
  private async termStats(
    vectorStoreId: string,
    terms: string[],
    revision: number | undefined,
  ): Promise<{ n: number; df: Map<string, number> }> {
    const key = revision === undefined ? null : `${vectorStoreId}@${revision}`;
    let cached = key === null ? undefined : this.termStatsCache.get(key);
    if (cached && cached.df.size + terms.length > TERM_STATS_TERMS) cached = undefined; // start over
    const missing = cached ? terms.filter((t) => !cached.df.has(t)) : terms;
    if (cached && missing.length === 0) return cached;
    // one pass over the knowledge base's chunks for every missing term
    const dfs = missing.map((_, i) => `, count(*) FILTER (WHERE tsv @@ to_tsquery('simple', $${i + 2})) AS df${i}`);
    const { rows } = await this.sql.exec(
      `SELECT count(*) AS n${dfs.join('')} FROM ${this.T.chunks} WHERE vector_store_id = $1`,
      [vectorStoreId, ...missing],
    );
    const row = rows[0] ?? {};
    const stats = cached ?? { n: 0, df: new Map<string, number>() };
    stats.n = Number(row.n ?? 0);
    missing.forEach((t, i) => stats.df.set(t, Number(row[`df${i}`] ?? 0)));
    if (key !== null) {
      this.termStatsCache.delete(key);
      this.termStatsCache.set(key, stats);
      if (this.termStatsCache.size > TERM_STATS_STORES)
        this.termStatsCache.delete(this.termStatsCache.keys().next().value!);
    }
    return stats;
  }

  // ── jobs ───────────────────────────────────────────────────────────────────────────────────────

  /**
   * Claims the oldest runnable job atomically: queued and due, or in progress under an expired
   * lease (its replica crashed). Postgres: `FOR UPDATE SKIP LOCKED`, so workers never wait on or
   * double-take a job; SQLite: the single writer makes the UPDATE … RETURNING atomic.
   */
  async claimJob(owner: string, now: number, leaseMs: number): Promise<IngestJobEntity | null> {
    const lock = this.sql.pg ? 'FOR UPDATE SKIP LOCKED' : '';
    const { rows } = await this.sql.exec(
      `UPDATE ${this.T.jobs} SET status = 'in_progress', lease_owner = $1, lease_until = $2, attempts = attempts + 1, updated_at = $3
       WHERE id = (SELECT id FROM ${this.T.jobs} WHERE (status = 'queued' AND run_after <= $3) OR (status = 'in_progress' AND lease_until < $3) ORDER BY id LIMIT 1 ${lock})
       RETURNING id, vector_store_id, document_id, team_id, attempts, parse_runs`,
      [owner, now + leaseMs, now],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      id: Number(r.id),
      vectorStoreId: String(r.vector_store_id),
      documentId: String(r.document_id),
      teamId: String(r.team_id),
      attempts: Number(r.attempts),
      parseRuns: Number(r.parse_runs),
    } as IngestJobEntity;
  }

  /** Counts a parser run of the job's document before it starts (durable: a replica may die during it). */
  async startParseRun(jobId: number): Promise<void> {
    await this.jobs.increment({ id: jobId }, 'parseRuns', 1);
  }

  /** The parser run finished (with text or an ordinary parse error): no unfinished runs. */
  async endParseRun(jobId: number): Promise<void> {
    await this.jobs.update({ id: jobId }, { parseRuns: 0 });
  }

  async extendLease(jobId: number, owner: string, until: number): Promise<void> {
    await this.jobs.update({ id: jobId, leaseOwner: owner }, { leaseUntil: until });
  }

  async retryJob(jobId: number, runAfter: number, error: string, now: number): Promise<void> {
    await this.jobs.update(
      { id: jobId },
      { status: 'queued', runAfter, lastError: error, leaseOwner: null, leaseUntil: null, updatedAt: now },
    );
  }

  async failJob(
    jobId: number,
    vectorStoreId: string,
    documentId: string,
    code: string,
    message: string,
    now: number,
  ): Promise<void> {
    await this.tx.run(async (m) => {
      if (!(await this.lockStore(m, vectorStoreId))) return;
      await m.update(
        IngestJobEntity,
        { id: jobId },
        { status: 'failed', lastError: `${code}: ${message}`, leaseOwner: null, leaseUntil: null, updatedAt: now },
      );
      await m.update(
        KbDocumentEntity,
        { vectorStoreId, id: documentId },
        { status: 'failed', lastErrorCode: code, lastErrorMessage: message, updatedAt: now },
      );
    });
  }

  /** Ingestion jobs by state, every state present (zeros included): one GROUP BY on the status index. */
  async countJobsByState(): Promise<Record<JobStatus, number>> {
    const { rows } = await this.sql.exec(`SELECT status, COUNT(*) AS n FROM ${this.T.jobs} GROUP BY status`, []);
    const out: Record<JobStatus, number> = { queued: 0, in_progress: 0, completed: 0, failed: 0, cancelled: 0 };
    for (const r of rows) out[String(r.status) as JobStatus] = Number(r.n);
    return out;
  }

  async jobsFor(vectorStoreId: string, documentId: string): Promise<IngestJobEntity[]> {
    return this.jobs.findBy({ vectorStoreId, documentId });
  }
}

/** Knowledge bases whose term statistics are kept (least recently used dropped), and terms per knowledge base. */
const TERM_STATS_STORES = 256;
const TERM_STATS_TERMS = 20_000;

/** BM25's IDF (the FTS5 form): ln(1 + (N − df + 0.5) / (df + 0.5)); positive for every df ≤ N. */
function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}
