import { Clock } from '@app/common';
import type { ModelCatalogService, ModelEntry } from '@app/providers';
import type { DocumentParser } from '../document-parser';
import type {
  DocumentKind,
  DocumentStatus,
  KbChunkEntity,
  KbDocumentEntity,
  VectorStoreEntity,
} from '../entities/knowledge.entities';
import type { StoredFileEntity } from '../entities/stored-file.entity';
import type { FileListQuery, FileRow, FilesRepository } from '../files.repository';
import { FilesService } from '../files.service';
import type { IngestionSignal } from '../ingestion-signal';
import type { KnowledgeRepository, NewIngestJob, StoreStats } from '../knowledge.repository';
import { KnowledgeService } from '../knowledge.service';
import { Attributes, Filter, matchesFilter } from '../kb-rules';

type PageQuery = { after?: string; limit: number; order: 'asc' | 'desc' };

/** Newest or oldest first after the cursor row, limit + 1 rows (as the SQL repositories page). */
function page<T extends { id: string }>(rows: T[], q: PageQuery): T[] {
  const ordered = q.order === 'desc' ? [...rows].reverse() : rows;
  const from = q.after ? ordered.findIndex((r) => r.id === q.after) + 1 : 0;
  if (q.after && from === 0) return [];
  return ordered.slice(from, from + q.limit + 1);
}

/** The files table in memory, for unit specs of the knowledge services. */
export class InMemoryFilesRepository implements Pick<
  FilesRepository,
  'insert' | 'findOwned' | 'content' | 'list' | 'replace' | 'delete'
> {
  readonly rows: Omit<StoredFileEntity, 'seq'>[] = [];

  async insert(row: Omit<StoredFileEntity, 'seq'>): Promise<void> {
    this.rows.push({ ...row });
  }
  async findOwned(teamId: string, id: string): Promise<FileRow | null> {
    const row = this.rows.find((r) => r.teamId === teamId && r.id === id);
    if (!row) return null;
    const { bytes: _bytes, ...file } = row;
    return { seq: 0, ...file };
  }
  async content(teamId: string, id: string): Promise<Buffer | null> {
    return this.rows.find((r) => r.teamId === teamId && r.id === id)?.bytes ?? null;
  }
  async list(teamId: string, q: FileListQuery): Promise<FileRow[]> {
    const own = this.rows.filter((r) => r.teamId === teamId && (!q.purpose || r.purpose === q.purpose));
    return page(own, q).map(({ bytes: _bytes, ...file }) => ({ seq: 0, ...file }));
  }
  async replace(row: Omit<StoredFileEntity, 'seq'>): Promise<void> {
    const at = this.rows.findIndex((r) => r.id === row.id);
    if (at >= 0) this.rows[at] = { ...row };
    else this.rows.push({ ...row });
  }
  async delete(teamId: string, id: string): Promise<boolean> {
    const at = this.rows.findIndex((r) => r.teamId === teamId && r.id === id);
    if (at < 0) return false;
    this.rows.splice(at, 1);
    return true;
  }
}

const emptyStats = (): StoreStats => ({
  byStatus: { queued: 0, in_progress: 0, completed: 0, failed: 0, cancelled: 0 },
  byKind: { file: 0, text: 0, link: 0 },
  usageBytes: 0,
  chunks: 0,
});

/** Stores, documents, chunks and queued jobs in memory: what the knowledge services read and write. */
export class InMemoryKnowledgeRepository {
  readonly stores: VectorStoreEntity[] = [];
  readonly docs: KbDocumentEntity[] = [];
  readonly chunks: KbChunkEntity[] = [];
  readonly jobs: NewIngestJob[] = [];
  private seq = 0;

  async insertStore(
    row: Omit<VectorStoreEntity, 'seq' | 'internal' | 'expiresAfterDays'> & {
      internal?: number;
      expiresAfterDays?: number | null;
    },
  ): Promise<void> {
    this.stores.push({ internal: 0, expiresAfterDays: null, ...row, seq: ++this.seq });
  }
  async findStore(teamId: string, id: string): Promise<VectorStoreEntity | null> {
    return this.stores.find((s) => s.teamId === teamId && s.id === id) ?? null;
  }
  async listStores(teamId: string, q: PageQuery): Promise<VectorStoreEntity[]> {
    return page(
      this.stores.filter((s) => s.teamId === teamId && !s.internal),
      q,
    );
  }
  async updateStore(teamId: string, id: string, patch: Partial<VectorStoreEntity>): Promise<VectorStoreEntity | null> {
    const store = await this.findStore(teamId, id);
    if (store) Object.assign(store, patch);
    return store;
  }
  async deleteStore(teamId: string, id: string): Promise<boolean> {
    const at = this.stores.findIndex((s) => s.teamId === teamId && s.id === id);
    if (at < 0) return false;
    this.stores.splice(at, 1);
    this.remove(this.docs, (d) => d.vectorStoreId === id);
    this.remove(this.chunks, (c) => c.vectorStoreId === id);
    return true;
  }
  async storeStats(ids: string[]): Promise<Map<string, StoreStats>> {
    const out = new Map(ids.map((id) => [id, emptyStats()]));
    for (const d of this.docs) {
      const s = out.get(d.vectorStoreId);
      if (!s) continue;
      s.byStatus[d.status]++;
      s.byKind[d.kind]++;
      s.usageBytes += d.usageBytes;
      s.chunks += d.chunkCount;
    }
    return out;
  }
  async addDocument(
    doc: Omit<KbDocumentEntity, 'seq'>,
    job: NewIngestJob,
    limit: number,
    versions?: { replace: boolean },
  ): Promise<'added' | 'limit' | 'exists' | 'gone' | { duplicate: string }> {
    if (!this.stores.some((s) => s.id === doc.vectorStoreId)) return 'gone';
    const inStore = this.docs.filter((d) => d.vectorStoreId === doc.vectorStoreId);
    if (inStore.some((d) => d.id === doc.id)) return 'exists';
    let row = doc;
    if (versions && doc.contentHash) {
      const same = await this.findSameContent(doc.vectorStoreId, doc.contentHash);
      if (same) return { duplicate: same.id };
      const prior = versions.replace
        ? inStore.filter((d) => d.kind !== 'link' && d.filename === doc.filename && d.status !== 'cancelled').pop()
        : undefined;
      if (prior) row = { ...doc, replacesId: prior.id };
    }
    const kinds: DocumentKind[] = doc.kind === 'link' ? ['link'] : ['file', 'text'];
    if (inStore.filter((d) => kinds.includes(d.kind)).length - (row.replacesId ? 1 : 0) >= limit) return 'limit';
    this.docs.push({ ...row, seq: ++this.seq });
    this.jobs.push(job);
    return 'added';
  }
  async findSameContent(vectorStoreId: string, contentHash: string): Promise<KbDocumentEntity | null> {
    const same = this.docs.filter(
      (d) =>
        d.vectorStoreId === vectorStoreId &&
        d.kind !== 'link' &&
        d.contentHash === contentHash &&
        d.status !== 'failed' &&
        d.status !== 'cancelled',
    );
    return same.pop() ?? null;
  }
  async findDocument(teamId: string, vectorStoreId: string, id: string): Promise<KbDocumentEntity | null> {
    return this.docs.find((d) => d.teamId === teamId && d.vectorStoreId === vectorStoreId && d.id === id) ?? null;
  }
  async listDocuments(
    teamId: string,
    vectorStoreId: string,
    q: PageQuery & {
      status?: DocumentStatus;
      batchId?: string;
      kinds?: DocumentKind[];
      attributes?: Record<string, string[]>;
      filter?: Filter;
    },
  ): Promise<KbDocumentEntity[]> {
    const attrsMatch = (d: KbDocumentEntity) => {
      const a = (d.attributes ? JSON.parse(d.attributes) : {}) as Record<string, unknown>;
      return Object.entries(q.attributes ?? {}).every(([k, texts]) => k in a && texts.includes(JSON.stringify(a[k])));
    };
    const rows = this.docs.filter(
      (d) =>
        d.teamId === teamId &&
        d.vectorStoreId === vectorStoreId &&
        (!q.status || d.status === q.status) &&
        (!q.batchId || d.batchId === q.batchId) &&
        (!q.kinds || q.kinds.includes(d.kind)) &&
        attrsMatch(d) &&
        matchesFilter(q.filter ?? null, d.attributes ? (JSON.parse(d.attributes) as Attributes) : null),
    );
    return page(rows, q);
  }
  async documentsByIds(vectorStoreId: string, ids: string[]): Promise<KbDocumentEntity[]> {
    return this.docs.filter((d) => d.vectorStoreId === vectorStoreId && ids.includes(d.id));
  }
  async deleteDocument(teamId: string, vectorStoreId: string, id: string): Promise<boolean> {
    const before = this.docs.length;
    this.remove(this.docs, (d) => d.teamId === teamId && d.vectorStoreId === vectorStoreId && d.id === id);
    if (this.docs.length === before) return false;
    this.remove(this.chunks, (c) => c.vectorStoreId === vectorStoreId && c.documentId === id);
    return true;
  }
  async requeue(doc: KbDocumentEntity, job: NewIngestJob, onlyIf?: DocumentStatus): Promise<boolean> {
    if (onlyIf && this.docs.find((d) => d.vectorStoreId === doc.vectorStoreId && d.id === doc.id)?.status !== onlyIf)
      return false;
    const row = await this.findDocument(doc.teamId, doc.vectorStoreId, doc.id);
    if (!row) return false;
    Object.assign(row, { status: 'queued', lastErrorCode: null, lastErrorMessage: null, updatedAt: job.createdAt });
    this.jobs.push(job);
    return true;
  }
  async documentChunks(vectorStoreId: string, documentId: string): Promise<KbChunkEntity[]> {
    return this.chunks
      .filter((c) => c.vectorStoreId === vectorStoreId && c.documentId === documentId)
      .sort((a, b) => a.ordinal - b.ordinal);
  }
  async maxChunkTokens(vectorStoreIds: string[]): Promise<number> {
    return Math.max(0, ...this.chunks.filter((c) => vectorStoreIds.includes(c.vectorStoreId)).map((c) => c.tokens));
  }

  /** What the ingestion worker would leave behind: the document completed with these chunks. */
  ingest(vectorStoreId: string, documentId: string, texts: string[]): void {
    const doc = this.docs.find((d) => d.vectorStoreId === vectorStoreId && d.id === documentId)!;
    texts.forEach((text, ordinal) =>
      this.chunks.push({
        id: ++this.seq,
        vectorStoreId,
        documentId,
        ordinal,
        page: null,
        text,
        tokens: text.split(/\s+/).length,
        contentHash: `h${this.seq}`,
        embedding: Buffer.alloc(4),
      }),
    );
    Object.assign(doc, { status: 'completed', chunkCount: texts.length, tokens: texts.join(' ').split(/\s+/).length });
  }

  private remove<T>(rows: T[], match: (row: T) => boolean): void {
    for (let i = rows.length - 1; i >= 0; i--) if (match(rows[i])) rows.splice(i, 1);
  }
}

/** A KnowledgeService over in-memory repositories, with the local embedding model as the default. */
export function inMemoryKnowledge(clock: Clock = new Clock()) {
  const repo = new InMemoryKnowledgeRepository();
  const filesRepo = new InMemoryFilesRepository();
  const files = new FilesService(filesRepo as unknown as FilesRepository, clock);
  const model = { key: 'local-embedding-small', dimensions: 1536 } as ModelEntry;
  const catalog = {
    find: () => undefined,
    isAvailable: () => true,
    require: () => model,
  } as unknown as ModelCatalogService;
  const parser = { sniff: async () => 'text' } as unknown as DocumentParser;
  const signal = { nudge: () => undefined } as unknown as IngestionSignal;
  const knowledge = new KnowledgeService(repo as unknown as KnowledgeRepository, files, parser, catalog, signal, clock);
  return { repo, filesRepo, files, knowledge };
}
