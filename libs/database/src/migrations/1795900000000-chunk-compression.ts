import { MigrationInterface, QueryRunner } from 'typeorm';
import { tableName } from './table-name';

/** The columns of a chunk row that are large enough to be compressed (a row holds about 10 KB). */
const COLUMNS = ['text', 'terms', 'embedding', 'tsv'];

/**
 * Postgres: chunk rows compressed with lz4 instead of the default pglz. A chunk row (its text, its
 * terms, a vector of up to 12 KB and the tsvector) is past the 2 KB at which Postgres compresses
 * values; pglz spent a large part of the database's CPU on an ingestion, lz4 a fraction of it, and
 * it decompresses faster for searches. Only where the server is built with lz4 (Postgres 14 and
 * later list it in default_toast_compression's values); elsewhere, and on SQLite, nothing changes.
 * Rows written before keep their pglz values, which Postgres reads as before.
 */
export class ChunkCompression1795900000000 implements MigrationInterface {
  name = 'ChunkCompression1795900000000';

  async up(q: QueryRunner): Promise<void> {
    if (!(await this.lz4(q))) return;
    for (const c of COLUMNS)
      await q.query(`ALTER TABLE ${tableName(q, 'kb_chunks')} ALTER COLUMN "${c}" SET COMPRESSION lz4`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (!(await this.lz4(q))) return;
    for (const c of COLUMNS)
      await q.query(`ALTER TABLE ${tableName(q, 'kb_chunks')} ALTER COLUMN "${c}" SET COMPRESSION default`);
  }

  private async lz4(q: QueryRunner): Promise<boolean> {
    if (q.connection.options.type !== 'postgres') return false;
    const rows = (await q.query(
      `SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)`,
    )) as unknown[];
    return rows.length > 0;
  }
}
