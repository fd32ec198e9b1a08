import { In, Repository } from 'typeorm';
import { KbChunkEntity, VectorStoreEntity } from '../entities/knowledge.entities';
import { RepoContext, RepoPart, VectorRow } from './rows';

/** Reading chunks: vectors, texts, stored embeddings, and the keyword leg of search (BM25). */
export class ChunkReads extends RepoPart {
  /** Postgres keyword ranking: per `store@revision`, its chunk count and the document frequencies counted so far. */
  private readonly termStatsCache = new Map<string, { n: number; df: Map<string, number> }>();

  constructor(
    ctx: RepoContext,
    private readonly stores: Repository<VectorStoreEntity>,
    private readonly chunks: Repository<KbChunkEntity>,
  ) {
    super(ctx);
  }

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
}

/** Knowledge bases whose term statistics are kept (least recently used dropped), and terms per knowledge base. */
const TERM_STATS_STORES = 256;
const TERM_STATS_TERMS = 20_000;

/** BM25's IDF (the FTS5 form): ln(1 + (N − df + 0.5) / (df + 0.5)); positive for every df ≤ N. */
function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}
