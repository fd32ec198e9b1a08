import { EntityManager } from 'typeorm';
import { inlineTerms, PUBLISH_ROWS, TermsOf } from '../chunk-staging.repository';
import { IngestJobEntity, KbChunkEntity, KbDocumentEntity, VectorStoreEntity } from '../entities/knowledge.entities';
import { NewChunk, RepoContext, RepoPart } from './rows';

/** A chunk swap whose document or store was deleted meanwhile: its transaction rolls back. */
class SwapDropped extends Error {}

/** Writes the chunks of an ingested document and publishes them in one swap. */
export class ChunkSwap extends RepoPart {
  constructor(
    ctx: RepoContext,
    /** SQLite: stages the rows (KnowledgeRepository.stageChunks, so the swap goes through the repository's own method) */
    private readonly stage: (
      vectorStoreId: string,
      documentId: string,
      chunks: NewChunk[],
      termsOf: TermsOf,
    ) => Promise<void>,
  ) {
    super(ctx);
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
    await this.stage(vectorStoreId, documentId, chunks, termsOf);
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
}
