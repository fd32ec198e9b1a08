import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { ChangeRecorder, RawSql, TransactionRunner } from '@app/database';
import { ChunkStaging, inlineTerms, TermsOf } from './chunk-staging.repository';
import {
  DocumentKind,
  DocumentStatus,
  FileBatchEntity,
  IngestJobEntity,
  KbChunkEntity,
  KbDocumentEntity,
  VectorStoreEntity,
} from './entities/knowledge.entities';
import { BatchRows } from './repository/batch-rows';
import { ChunkReads } from './repository/chunk-reads';
import { ChunkSwap } from './repository/chunk-swap';
import { DocumentRows } from './repository/document-rows';
import { IngestJobs } from './repository/ingest-jobs';
import { EMPTY_KIND, EMPTY_STATUS, NewChunk, PageQuery, RepoContext, RepoPart, StoreStats } from './repository/rows';

export type { NewChunk, NewIngestJob, PageQuery, StoreStats, VectorRow } from './repository/rows';

/**
 * Knowledge bases, their documents and chunks, batches and the ingestion queue. The stores are kept
 * here; documents, batches, chunk writes and reads, and jobs are parts in ./repository that this
 * repository answers for (one injectable, one lock order).
 */
@Injectable()
export class KnowledgeRepository extends RepoPart {
  private readonly documents: DocumentRows;
  private readonly batchRows: BatchRows;
  private readonly swap: ChunkSwap;
  private readonly reads: ChunkReads;
  private readonly queue: IngestJobs;

  constructor(
    @InjectDataSource() ds: DataSource,
    tx: TransactionRunner,
    @InjectRepository(VectorStoreEntity) private readonly stores: Repository<VectorStoreEntity>,
    @InjectRepository(KbDocumentEntity) private readonly docs: Repository<KbDocumentEntity>,
    @InjectRepository(KbChunkEntity) chunks: Repository<KbChunkEntity>,
    @InjectRepository(IngestJobEntity) jobs: Repository<IngestJobEntity>,
    @InjectRepository(FileBatchEntity) batches: Repository<FileBatchEntity>,
    audit: ChangeRecorder,
  ) {
    super(KnowledgeRepository.context(ds, tx, audit));
    this.documents = new DocumentRows(this.ctx, docs);
    this.batchRows = new BatchRows(this.ctx, docs, batches);
    this.swap = new ChunkSwap(this.ctx, (vs, doc, rows, termsOf) => this.stageChunks(vs, doc, rows, termsOf));
    this.reads = new ChunkReads(this.ctx, stores, chunks);
    this.queue = new IngestJobs(this.ctx, jobs);
  }

  private static context(ds: DataSource, tx: TransactionRunner, audit: ChangeRecorder): RepoContext {
    const sql = new RawSql(ds);
    const T = {
      jobs: sql.table(IngestJobEntity),
      chunks: sql.table(KbChunkEntity),
      stores: sql.table(VectorStoreEntity),
    };
    return { sql, tx, audit, T, staging: new ChunkStaging(tx, sql, T.chunks) };
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

  // ── documents (./repository/document-rows) ─────────────────────────────────────────────────────

  addDocument(...a: Parameters<DocumentRows['addDocument']>) {
    return this.documents.addDocument(...a);
  }

  findSameContent(...a: Parameters<DocumentRows['findSameContent']>) {
    return this.documents.findSameContent(...a);
  }

  findDocument(...a: Parameters<DocumentRows['findDocument']>) {
    return this.documents.findDocument(...a);
  }

  listDocuments(...a: Parameters<DocumentRows['listDocuments']>) {
    return this.documents.listDocuments(...a);
  }

  documentsByIds(...a: Parameters<DocumentRows['documentsByIds']>) {
    return this.documents.documentsByIds(...a);
  }

  deleteDocument(...a: Parameters<DocumentRows['deleteDocument']>) {
    return this.documents.deleteDocument(...a);
  }

  updateDocument(...a: Parameters<DocumentRows['updateDocument']>) {
    return this.documents.updateDocument(...a);
  }

  setDocumentAttributes(...a: Parameters<DocumentRows['setDocumentAttributes']>) {
    return this.documents.setDocumentAttributes(...a);
  }

  requeue(...a: Parameters<DocumentRows['requeue']>) {
    return this.documents.requeue(...a);
  }

  // ── batches (./repository/batch-rows) ──────────────────────────────────────────────────────────

  addBatch(...a: Parameters<BatchRows['addBatch']>) {
    return this.batchRows.addBatch(...a);
  }

  existingDocumentIds(...a: Parameters<BatchRows['existingDocumentIds']>) {
    return this.batchRows.existingDocumentIds(...a);
  }

  insertBatch(...a: Parameters<BatchRows['insertBatch']>) {
    return this.batchRows.insertBatch(...a);
  }

  findBatch(...a: Parameters<BatchRows['findBatch']>) {
    return this.batchRows.findBatch(...a);
  }

  cancelBatch(...a: Parameters<BatchRows['cancelBatch']>) {
    return this.batchRows.cancelBatch(...a);
  }

  batchCounts(...a: Parameters<BatchRows['batchCounts']>) {
    return this.batchRows.batchCounts(...a);
  }

  // ── chunks (./repository/chunk-swap, ./repository/chunk-reads) ─────────────────────────────────

  swapChunks(...a: Parameters<ChunkSwap['swapChunks']>) {
    return this.swap.swapChunks(...a);
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

  embeddingsByHash(...a: Parameters<ChunkReads['embeddingsByHash']>) {
    return this.reads.embeddingsByHash(...a);
  }

  maxChunkTokens(...a: Parameters<ChunkReads['maxChunkTokens']>) {
    return this.reads.maxChunkTokens(...a);
  }

  storeRevision(...a: Parameters<ChunkReads['storeRevision']>) {
    return this.reads.storeRevision(...a);
  }

  loadVectors(...a: Parameters<ChunkReads['loadVectors']>) {
    return this.reads.loadVectors(...a);
  }

  chunksByIds(...a: Parameters<ChunkReads['chunksByIds']>) {
    return this.reads.chunksByIds(...a);
  }

  documentChunks(...a: Parameters<ChunkReads['documentChunks']>) {
    return this.reads.documentChunks(...a);
  }

  keywordSearch(...a: Parameters<ChunkReads['keywordSearch']>) {
    return this.reads.keywordSearch(...a);
  }

  // ── jobs (./repository/ingest-jobs) ────────────────────────────────────────────────────────────

  claimJob(...a: Parameters<IngestJobs['claimJob']>) {
    return this.queue.claimJob(...a);
  }

  startParseRun(...a: Parameters<IngestJobs['startParseRun']>) {
    return this.queue.startParseRun(...a);
  }

  endParseRun(...a: Parameters<IngestJobs['endParseRun']>) {
    return this.queue.endParseRun(...a);
  }

  extendLease(...a: Parameters<IngestJobs['extendLease']>) {
    return this.queue.extendLease(...a);
  }

  retryJob(...a: Parameters<IngestJobs['retryJob']>) {
    return this.queue.retryJob(...a);
  }

  failJob(...a: Parameters<IngestJobs['failJob']>) {
    return this.queue.failJob(...a);
  }

  countJobsByState(...a: Parameters<IngestJobs['countJobsByState']>) {
    return this.queue.countJobsByState(...a);
  }

  jobsFor(...a: Parameters<IngestJobs['jobsFor']>) {
    return this.queue.jobsFor(...a);
  }
}
