import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { BinaryColumn, bigintNumber } from '@app/database';

/** A knowledge base = an OpenAI vector store. `revision` moves whenever its chunks change. */
@Entity('vector_stores')
export class VectorStoreEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) seq: number | string;
  @Column({ type: 'varchar', length: 40, unique: true }) id: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 256, nullable: true }) name: string | null;
  @Column({ type: 'text', nullable: true }) description: string | null;
  /** JSON object of string values (OpenAI: ≤ 16 pairs) */
  @Column({ type: 'text', nullable: true }) metadata: string | null;
  @Column({ name: 'embedding_model', type: 'varchar', length: 200 }) embeddingModel: string;
  @Column({ type: 'integer' }) dimensions: number;
  @Column({ type: 'integer', default: 0 }) revision: number;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'last_active_at', type: 'bigint', transformer: bigintNumber }) lastActiveAt: number;
  /** OpenAI expires_after (anchor last_active_at): days of inactivity until the store expires; null = never */
  @Column({ name: 'expires_after_days', type: 'integer', nullable: true }) expiresAfterDays: number | null;
  /** 1 = owned by a project (its materials): never listed or served by the knowledge-base / vector-store APIs */
  @Column({ type: 'integer', default: 0 }) internal: number;
}

export type DocumentKind = 'file' | 'text' | 'link';
export type DocumentStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

/** A document of a knowledge base (= a vector store file): an uploaded file, a text or a web link. */
@Entity('kb_documents')
export class KbDocumentEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) seq: number | string;
  /** the file id (links and texts are stored as files too) */
  @Column({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'vector_store_id', type: 'varchar', length: 40 }) vectorStoreId: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 8 }) kind: DocumentKind;
  /** the file name (links: the last path segment of the URL) */
  @Column({ type: 'varchar', length: 255 }) filename: string;
  /** extracted title (PDF metadata, HTML <title>, first heading), else the name */
  @Column({ type: 'varchar', length: 512, nullable: true }) title: string | null;
  @Column({ type: 'text', nullable: true }) url: string | null;
  @Column({ name: 'final_url', type: 'text', nullable: true }) finalUrl: string | null;
  /** JSON: OpenAI attributes / REST metadata */
  @Column({ type: 'text', nullable: true }) attributes: string | null;
  /** "auto" or "static:<max>:<overlap>" */
  @Column({ type: 'varchar', length: 64 }) chunking: string;
  @Column({ type: 'varchar', length: 16 }) status: DocumentStatus;
  @Column({ name: 'last_error_code', type: 'varchar', length: 40, nullable: true }) lastErrorCode: string | null;
  @Column({ name: 'last_error_message', type: 'text', nullable: true }) lastErrorMessage: string | null;
  @Column({ type: 'integer', default: 0 }) pages: number;
  @Column({ type: 'integer', default: 0 }) tokens: number;
  @Column({ name: 'chunk_count', type: 'integer', default: 0 }) chunkCount: number;
  @Column({ name: 'usage_bytes', type: 'bigint', default: 0, transformer: bigintNumber }) usageBytes: number;
  /** sha256 of the document's bytes (for a link: of the copy fetched last) */
  @Column({ name: 'content_hash', type: 'varchar', length: 64, nullable: true }) contentHash: string | null;
  /** the document of the same name this one replaces once its chunks are searchable (then deleted) */
  @Column({ name: 'replaces_id', type: 'varchar', length: 40, nullable: true }) replacesId: string | null;
  @Column({ name: 'batch_id', type: 'varchar', length: 40, nullable: true }) batchId: string | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}

/** One chunk of a document with its embedding (little-endian Float32 bytes). */
@Entity('kb_chunks')
export class KbChunkEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id: number | string;
  @Column({ name: 'vector_store_id', type: 'varchar', length: 40 }) vectorStoreId: string;
  @Column({ name: 'document_id', type: 'varchar', length: 40 }) documentId: string;
  @Column({ type: 'integer' }) ordinal: number;
  @Column({ type: 'integer', nullable: true }) page: number | null;
  @Column({ type: 'text' }) text: string;
  /** what the keyword index holds: the text's stems without stop words (@app/retrieval indexTerms) */
  @Column({ type: 'text', nullable: true, select: false }) terms?: string | null;
  @Column({ type: 'integer' }) tokens: number;
  @Column({ name: 'content_hash', type: 'varchar', length: 64 }) contentHash: string;
  @BinaryColumn() embedding: Buffer;
}

export type JobStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

/** The durable ingestion queue: any replica claims a job atomically and holds it under a lease. */
@Entity('ingest_jobs')
export class IngestJobEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id: number | string;
  @Column({ name: 'vector_store_id', type: 'varchar', length: 40 }) vectorStoreId: string;
  @Column({ name: 'document_id', type: 'varchar', length: 40 }) documentId: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'varchar', length: 16 }) status: JobStatus;
  @Column({ type: 'integer', default: 0 }) attempts: number;
  /** parser runs of this job's document that did not finish (stopped for memory or time, or the replica died) */
  @Column({ name: 'parse_runs', type: 'integer', default: 0 }) parseRuns: number;
  @Column({ name: 'run_after', type: 'bigint', transformer: bigintNumber }) runAfter: number;
  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true }) leaseOwner: string | null;
  @Column({ name: 'lease_until', type: 'bigint', nullable: true, transformer: bigintNumber }) leaseUntil: number | null;
  @Column({ name: 'last_error', type: 'text', nullable: true }) lastError: string | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
  @Column({ name: 'updated_at', type: 'bigint', transformer: bigintNumber }) updatedAt: number;
}

@Entity('file_batches')
export class FileBatchEntity {
  @PrimaryColumn({ type: 'varchar', length: 40 }) id: string;
  @Column({ name: 'vector_store_id', type: 'varchar', length: 40 }) vectorStoreId: string;
  @Column({ name: 'team_id', type: 'varchar', length: 36 }) teamId: string;
  @Column({ type: 'integer', default: 0 }) cancelled: number;
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber }) createdAt: number;
}
