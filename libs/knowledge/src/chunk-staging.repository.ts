import { EntityManager } from 'typeorm';
import { RawSql, TransactionRunner } from '@app/database';
import { indexTerms } from '@app/retrieval';
import { KbChunkEntity } from './entities/knowledge.entities';

/** Chunk rows written per transaction while staging (one SQLite transaction stays a few ms long). */
export const STAGE_ROWS = 48;
/** Chunk rows whose keyword terms are asked for at once while staging (a few transactions' worth). */
const TERMS_ROWS = STAGE_ROWS * 8;
/** Chunk rows deleted per transaction while purging staged or replaced rows. */
const PURGE_ROWS = 256;
/** Staged rows of a new document moved under their knowledge base per transaction. */
export const PUBLISH_ROWS = 256;

/** The event loop's turn: other requests' work runs between two small transactions. */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The keyword index's terms of chunk texts, in order (@app/retrieval indexTerms). Ingestion passes
 * its parser's, computed in a worker: stemming a document's chunks is seconds of CPU.
 */
export type TermsOf = (texts: string[]) => Promise<string[]>;

/** Terms computed on this thread: for a few chunks only. */
export const inlineTerms: TermsOf = (texts) => Promise.resolve(texts.map((t) => indexTerms(t)));

export interface StagedChunk {
  ordinal: number;
  page: number | null;
  text: string;
  tokens: number;
  contentHash: string;
  embedding: Buffer;
}

/**
 * SQLite's chunk writes in small transactions. SQLite has one writer on the event loop's thread, so
 * a document's thousands of chunk rows (their keyword terms and FTS entries) written in one
 * transaction held every other request for seconds. Instead the rows are staged — written in
 * transactions of STAGE_ROWS rows, the event loop free between them — under a staging key of their
 * knowledge base that no reader queries (`~` for the first character of its id), and the swap's one
 * transaction only moves them under the knowledge base (an UPDATE of the key: the FTS index, kept on
 * insert and delete, is not touched) and moves the replaced rows to a trash key, which is purged
 * afterwards in small transactions. A search therefore still sees the old chunks or the new ones.
 * Rows of a run that died are purged when the document is staged again or its store is deleted.
 */
export class ChunkStaging {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly sql: RawSql,
    private readonly table: string,
  ) {}

  static stagingKey(vectorStoreId: string): string {
    return `~${vectorStoreId.slice(1)}`;
  }

  static trashKey(vectorStoreId: string): string {
    return `!${vectorStoreId.slice(1)}`;
  }

  /** Writes the document's new rows under the staging key, a few at a time (leftovers of an earlier run first purged). */
  async stage(
    vectorStoreId: string,
    documentId: string,
    chunks: StagedChunk[],
    termsOf: TermsOf = inlineTerms,
  ): Promise<void> {
    const key = ChunkStaging.stagingKey(vectorStoreId);
    await this.purge(key, documentId);
    for (let i = 0; i < chunks.length; i += TERMS_ROWS) {
      // terms per group of rows, never for the whole document at once (they would double its memory)
      const group = chunks.slice(i, i + TERMS_ROWS);
      const terms = await termsOf(group.map((c) => c.text));
      for (let j = 0; j < group.length; j += STAGE_ROWS) {
        const rows = group
          .slice(j, j + STAGE_ROWS)
          .map((c, k) => ({ ...c, terms: terms[j + k], vectorStoreId: key, documentId }));
        await this.tx.run((m) =>
          m.createQueryBuilder().insert().into(KbChunkEntity).values(rows).updateEntity(false).execute(),
        );
        await yieldToLoop();
      }
    }
  }

  /**
   * Inside the swap's transaction: the document's rows to the trash (unless `keepCurrent`: they are
   * its new rows, published a slice at a time), its staged rows in their place.
   */
  async publish(m: EntityManager, vectorStoreId: string, documentId: string, keepCurrent = false): Promise<void> {
    if (!keepCurrent) await this.discard(m, vectorStoreId, documentId);
    await this.sql.exec(
      `UPDATE ${this.table} SET vector_store_id = $1 WHERE vector_store_id = $2 AND document_id = $3`,
      [vectorStoreId, ChunkStaging.stagingKey(vectorStoreId), documentId],
      m,
    );
  }

  /**
   * Inside a transaction: up to `limit` of a document's staged rows moved under the knowledge base
   * (a document that had no rows there: see KnowledgeRepository.swapStaged); answers how many.
   */
  async publishSome(m: EntityManager, vectorStoreId: string, documentId: string, limit: number): Promise<number> {
    const key = ChunkStaging.stagingKey(vectorStoreId);
    const { affected } = await this.sql.exec(
      `UPDATE ${this.table} SET vector_store_id = $1 WHERE id IN (SELECT id FROM ${this.table} WHERE vector_store_id = $2 AND document_id = $3 LIMIT ${Math.trunc(limit)})`,
      [vectorStoreId, key, documentId],
      m,
    );
    return affected;
  }

  /** Inside a transaction: whether the document has rows under its knowledge base (searches see them). */
  async hasRows(m: EntityManager, vectorStoreId: string, documentId: string): Promise<boolean> {
    const { rows } = await this.sql.exec(
      `SELECT 1 AS one FROM ${this.table} WHERE vector_store_id = $1 AND document_id = $2 LIMIT 1`,
      [vectorStoreId, documentId],
      m,
    );
    return rows.length > 0;
  }

  /** Inside a transaction: a document's rows out of sight (to the trash key), purged later by purgeTrash. */
  async discard(m: EntityManager, vectorStoreId: string, documentId: string): Promise<void> {
    await this.sql.exec(
      `UPDATE ${this.table} SET vector_store_id = $1 WHERE vector_store_id = $2 AND document_id = $3`,
      [ChunkStaging.trashKey(vectorStoreId), vectorStoreId, documentId],
      m,
    );
  }

  /** Deletes the knowledge base's trashed rows, a few at a time. */
  purgeTrash(vectorStoreId: string): Promise<void> {
    return this.purge(ChunkStaging.trashKey(vectorStoreId), null);
  }

  /** Deletes a document's staged rows (its run was dropped), a few at a time. */
  purgeStaged(vectorStoreId: string, documentId: string): Promise<void> {
    return this.purge(ChunkStaging.stagingKey(vectorStoreId), documentId);
  }

  /** Inside a transaction: every staged and trashed row of a knowledge base (it is being deleted). */
  async deleteAll(m: EntityManager, vectorStoreId: string): Promise<void> {
    await this.sql.exec(
      `DELETE FROM ${this.table} WHERE vector_store_id IN ($1, $2)`,
      [ChunkStaging.stagingKey(vectorStoreId), ChunkStaging.trashKey(vectorStoreId)],
      m,
    );
  }

  private async purge(key: string, documentId: string | null): Promise<void> {
    const where = documentId === null ? 'vector_store_id = $1' : 'vector_store_id = $1 AND document_id = $2';
    const params = documentId === null ? [key] : [key, documentId];
    for (;;) {
      const { affected } = await this.tx.run((m) =>
        this.sql.exec(
          `DELETE FROM ${this.table} WHERE id IN (SELECT id FROM ${this.table} WHERE ${where} LIMIT ${PURGE_ROWS})`,
          params,
          m,
        ),
      );
      if (affected < PURGE_ROWS) return;
      await yieldToLoop();
    }
  }
}
