import { EntityManager, In, Not, Repository } from 'typeorm';
import { attributeFilterSql } from '../attribute-filter-sql';
import type { Filter } from '../kb-rules';
import {
  DocumentKind,
  DocumentStatus,
  IngestJobEntity,
  KbChunkEntity,
  KbDocumentEntity,
  VectorStoreEntity,
} from '../entities/knowledge.entities';
import { NewIngestJob, PageQuery, RepoContext, RepoPart } from './rows';

/** The documents of knowledge bases: adding (with versions), reading, listing, attributes, requeueing, deleting. */
export class DocumentRows extends RepoPart {
  constructor(
    ctx: RepoContext,
    private readonly docs: Repository<KbDocumentEntity>,
  ) {
    super(ctx);
  }

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
}
