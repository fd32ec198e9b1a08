import { LexicalEmbedder } from '@app/providers/local/lexical-embedder';
import { decodeVector, encodeVector } from '@app/retrieval/vector-index';
import { indexTerms } from '@app/retrieval/terms';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { tableName } from './table-name';

/** The built-in offline embedding models, whose vectors changed with stemming. */
const LOCAL_EMBEDDING_MODELS = ['local-embedding-small', 'local-embedding-large'];
const BATCH = 500;

/**
 * Stemmed keyword index. Each chunk gets `terms` (its stems without stop words, @app/retrieval/terms)
 * and the keyword index is rebuilt over that column instead of the raw text, on both drivers:
 * Postgres `tsv` is generated from `to_tsvector('simple', terms)`; SQLite's FTS5 table indexes
 * `terms`. Existing chunks are analysed here, and chunks of knowledge bases on the offline lexical
 * models are embedded again (their vectors now hash stems), so old and new chunks rank alike.
 */
export class SearchTerms1795800000000 implements MigrationInterface {
  name = 'SearchTerms1795800000000';

  async up(q: QueryRunner): Promise<void> {
    const pg = q.connection.options.type === 'postgres';
    const chunks = tableName(q, 'kb_chunks');
    const stores = tableName(q, 'vector_stores');
    // raw DDL: TypeORM's table reader would look for Postgres generated columns in typeorm_metadata
    await q.query(`ALTER TABLE ${chunks} ADD COLUMN terms text NULL`);

    const embedder = new LexicalEmbedder();
    const p = (i: number) => (pg ? `$${i}` : '?');
    const localModels = LOCAL_EMBEDDING_MODELS.map((m) => `'${m}'`).join(', ');
    let last = 0;
    for (;;) {
      const rows = (await q.query(
        `SELECT c.id AS id, c.text AS text, c.embedding AS embedding, s.embedding_model AS model
           FROM ${chunks} c LEFT JOIN ${stores} s ON s.id = c.vector_store_id
          WHERE c.id > ${p(1)} ORDER BY c.id LIMIT ${BATCH}`,
        [last],
      )) as Array<{ id: number | string; text: string; embedding: Buffer; model: string | null }>;
      if (rows.length === 0) break;
      for (const r of rows) {
        const terms = indexTerms(r.text);
        if (r.model !== null && LOCAL_EMBEDDING_MODELS.includes(r.model)) {
          const dims = decodeVector(Buffer.from(r.embedding)).length;
          const embedding = encodeVector(embedder.embed(r.text, dims));
          await q.query(`UPDATE ${chunks} SET terms = ${p(1)}, embedding = ${p(2)} WHERE id = ${p(3)}`, [
            terms,
            embedding,
            r.id,
          ]);
        } else {
          await q.query(`UPDATE ${chunks} SET terms = ${p(1)} WHERE id = ${p(2)}`, [terms, r.id]);
        }
      }
      last = Number(rows[rows.length - 1].id);
    }
    // a search's vector index is rebuilt when its knowledge base's revision moves
    await q.query(`UPDATE ${stores} SET revision = revision + 1 WHERE embedding_model IN (${localModels})`);

    if (pg) {
      await q.query(`ALTER TABLE ${chunks} DROP COLUMN tsv`); // drops its GIN index too
      await q.query(
        `ALTER TABLE ${chunks} ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(terms, ''))) STORED`,
      );
      await q.query(`CREATE INDEX kb_chunks_tsv ON ${chunks} USING GIN (tsv)`);
    } else {
      await this.sqliteFts(q, 'terms', 'remove_diacritics 0');
    }
  }

  async down(q: QueryRunner): Promise<void> {
    const chunks = tableName(q, 'kb_chunks');
    if (q.connection.options.type === 'postgres') {
      await q.query(`ALTER TABLE ${chunks} DROP COLUMN tsv`); // drops its GIN index too
      await q.query(
        `ALTER TABLE ${chunks} ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', "text")) STORED`,
      );
      await q.query(`CREATE INDEX kb_chunks_tsv ON ${chunks} USING GIN (tsv)`);
    } else {
      await this.sqliteFts(q, 'text', 'remove_diacritics 2');
    }
    // the re-embedded vectors of the offline models stay (their new vectors still rank)
    await q.query(`ALTER TABLE ${chunks} DROP COLUMN terms`);
  }

  /** SQLite: the FTS5 table (external content kb_chunks) over `column`, its triggers, rebuilt. */
  private async sqliteFts(q: QueryRunner, column: string, diacritics: string): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS kb_chunks_ai');
    await q.query('DROP TRIGGER IF EXISTS kb_chunks_ad');
    await q.query('DROP TABLE IF EXISTS kb_chunks_fts');
    await q.query(
      `CREATE VIRTUAL TABLE kb_chunks_fts USING fts5(${column}, content='kb_chunks', content_rowid='id', tokenize='unicode61 ${diacritics}')`,
    );
    await q.query(
      `CREATE TRIGGER kb_chunks_ai AFTER INSERT ON kb_chunks BEGIN INSERT INTO kb_chunks_fts(rowid, ${column}) VALUES (new.id, new.${column}); END`,
    );
    await q.query(
      `CREATE TRIGGER kb_chunks_ad AFTER DELETE ON kb_chunks BEGIN INSERT INTO kb_chunks_fts(kb_chunks_fts, rowid, ${column}) VALUES ('delete', old.id, old.${column}); END`,
    );
    await q.query(`INSERT INTO kb_chunks_fts(kb_chunks_fts) VALUES ('rebuild')`);
  }
}
