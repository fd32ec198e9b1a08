import { EntityManager } from 'typeorm';
import { ChangeRecorder, RawSql, TransactionRunner } from '@app/database';
import type { ChunkStaging } from '../chunk-staging.repository';
import type { DocumentKind, DocumentStatus, IngestJobEntity, KbDocumentEntity } from '../entities/knowledge.entities';

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

export const EMPTY_STATUS = (): Record<DocumentStatus, number> => ({
  queued: 0,
  in_progress: 0,
  completed: 0,
  failed: 0,
  cancelled: 0,
});
export const EMPTY_KIND = (): Record<DocumentKind, number> => ({ file: 0, text: 0, link: 0 });

/** A job as it is queued (no unfinished parser runs yet: the column's default). */
export type NewIngestJob = Omit<IngestJobEntity, 'id' | 'parseRuns'>;

/** What the parts of the knowledge repository share: the SQL helper, transactions, audit and table names. */
export interface RepoContext {
  sql: RawSql;
  tx: TransactionRunner;
  audit: ChangeRecorder;
  T: { jobs: string; chunks: string; stores: string };
  /** SQLite: chunk writes in small transactions (see ChunkStaging) */
  staging: ChunkStaging;
}

/** A part of the knowledge repository (KnowledgeRepository composes them): the shared context, the lock order, the document audit. */
export abstract class RepoPart {
  protected readonly sql: RawSql;
  protected readonly tx: TransactionRunner;
  protected readonly audit: ChangeRecorder;
  protected readonly T: RepoContext['T'];
  protected readonly staging: ChunkStaging;

  constructor(protected readonly ctx: RepoContext) {
    this.sql = ctx.sql;
    this.tx = ctx.tx;
    this.audit = ctx.audit;
    this.T = ctx.T;
    this.staging = ctx.staging;
  }

  /**
   * The lock order of every write transaction under a store: the store row first, then its rows.
   * Deleting the store takes that row first too, so it and a chunk swap, a failed job, a requeue, a
   * batch cancel or a document delete queue behind each other instead of deadlocking on Postgres
   * (each locked chunks, documents and jobs in its own order). False when the store is gone.
   */
  protected lockStore(m: EntityManager, id: string): Promise<boolean> {
    return this.sql.lockRow(this.T.stores, id, m);
  }

  protected recordDocument(
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
}
