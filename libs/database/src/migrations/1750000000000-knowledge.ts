import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { binaryColumnType } from '../columns';
import { tableName } from './table-name';

/**
 * Files, knowledge bases (= OpenAI vector stores), their documents, chunks with Float32 vectors,
 * a keyword index (SQLite FTS5 / Postgres tsvector + GIN, `simple` configuration) and the durable
 * ingestion job queue. Same migration on both drivers.
 */
export class Knowledge1750000000000 implements MigrationInterface {
  name = 'Knowledge1750000000000';

  async up(q: QueryRunner): Promise<void> {
    const driver = q.connection.options.type;
    const pk = driver === 'postgres' ? 'bigint' : 'integer';
    const bin = binaryColumnType(driver);
    const seq = { name: 'seq', type: pk, isPrimary: true, isGenerated: true, generationStrategy: 'increment' as const };

    await q.createTable(
      new Table({
        name: 'files',
        columns: [
          seq,
          { name: 'id', type: 'varchar', length: '40', isUnique: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'filename', type: 'varchar', length: '255' },
          { name: 'purpose', type: 'varchar', length: '32' },
          { name: 'mime', type: 'varchar', length: '100' },
          { name: 'byte_size', type: 'integer' },
          { name: 'sha256', type: 'varchar', length: '64' },
          { name: 'bytes', type: bin },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [{ name: 'files_team_seq', columnNames: ['team_id', 'seq'] }],
      }),
    );

    await q.createTable(
      new Table({
        name: 'vector_stores',
        columns: [
          seq,
          { name: 'id', type: 'varchar', length: '40', isUnique: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'name', type: 'varchar', length: '256', isNullable: true },
          { name: 'description', type: 'text', isNullable: true },
          { name: 'metadata', type: 'text', isNullable: true },
          { name: 'embedding_model', type: 'varchar', length: '200' },
          { name: 'dimensions', type: 'integer' },
          { name: 'revision', type: 'integer', default: 0 },
          { name: 'created_at', type: 'bigint' },
          { name: 'last_active_at', type: 'bigint' },
        ],
        indices: [{ name: 'vector_stores_team_seq', columnNames: ['team_id', 'seq'] }],
      }),
    );

    await q.createTable(
      new Table({
        name: 'kb_documents',
        columns: [
          seq,
          { name: 'id', type: 'varchar', length: '40' },
          { name: 'vector_store_id', type: 'varchar', length: '40' },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'kind', type: 'varchar', length: '8' },
          { name: 'filename', type: 'varchar', length: '255' },
          { name: 'title', type: 'varchar', length: '512', isNullable: true },
          { name: 'url', type: 'text', isNullable: true },
          { name: 'final_url', type: 'text', isNullable: true },
          { name: 'attributes', type: 'text', isNullable: true },
          { name: 'chunking', type: 'varchar', length: '64' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'last_error_code', type: 'varchar', length: '40', isNullable: true },
          { name: 'last_error_message', type: 'text', isNullable: true },
          { name: 'pages', type: 'integer', default: 0 },
          { name: 'tokens', type: 'integer', default: 0 },
          { name: 'chunk_count', type: 'integer', default: 0 },
          { name: 'usage_bytes', type: 'bigint', default: 0 },
          { name: 'content_hash', type: 'varchar', length: '64', isNullable: true },
          { name: 'batch_id', type: 'varchar', length: '40', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        uniques: [{ name: 'kb_documents_store_id', columnNames: ['vector_store_id', 'id'] }],
        indices: [{ name: 'kb_documents_batch', columnNames: ['batch_id'] }],
      }),
    );

    await q.createTable(
      new Table({
        name: 'kb_chunks',
        columns: [
          { name: 'id', type: pk, isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'vector_store_id', type: 'varchar', length: '40' },
          { name: 'document_id', type: 'varchar', length: '40' },
          { name: 'ordinal', type: 'integer' },
          { name: 'page', type: 'integer', isNullable: true },
          { name: 'text', type: 'text' },
          { name: 'tokens', type: 'integer' },
          { name: 'content_hash', type: 'varchar', length: '64' },
          { name: 'embedding', type: bin },
        ],
        indices: [
          { name: 'kb_chunks_store_doc', columnNames: ['vector_store_id', 'document_id'] },
          { name: 'kb_chunks_store_hash', columnNames: ['vector_store_id', 'content_hash'] },
        ],
      }),
    );

    if (driver === 'postgres') {
      const table = tableName(q, 'kb_chunks');
      await q.query(
        `ALTER TABLE ${table} ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', "text")) STORED`,
      );
      await q.query(`CREATE INDEX kb_chunks_tsv ON ${table} USING GIN (tsv)`);
    } else {
      await q.query(
        `CREATE VIRTUAL TABLE kb_chunks_fts USING fts5(text, content='kb_chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2')`,
      );
      await q.query(
        `CREATE TRIGGER kb_chunks_ai AFTER INSERT ON kb_chunks BEGIN INSERT INTO kb_chunks_fts(rowid, text) VALUES (new.id, new.text); END`,
      );
      await q.query(
        `CREATE TRIGGER kb_chunks_ad AFTER DELETE ON kb_chunks BEGIN INSERT INTO kb_chunks_fts(kb_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text); END`,
      );
    }

    await q.createTable(
      new Table({
        name: 'ingest_jobs',
        columns: [
          { name: 'id', type: pk, isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'vector_store_id', type: 'varchar', length: '40' },
          { name: 'document_id', type: 'varchar', length: '40' },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'run_after', type: 'bigint' },
          { name: 'lease_owner', type: 'varchar', length: '64', isNullable: true },
          { name: 'lease_until', type: 'bigint', isNullable: true },
          { name: 'last_error', type: 'text', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        indices: [{ name: 'ingest_jobs_status_run', columnNames: ['status', 'run_after'] }],
      }),
    );
    await q.createIndex(
      'ingest_jobs',
      new TableIndex({ name: 'ingest_jobs_doc', columnNames: ['vector_store_id', 'document_id'] }),
    );

    await q.createTable(
      new Table({
        name: 'file_batches',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'vector_store_id', type: 'varchar', length: '40' },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'cancelled', type: 'integer', default: 0 },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('file_batches');
    await q.dropTable('ingest_jobs');
    if (q.connection.options.type !== 'postgres') {
      await q.query('DROP TABLE IF EXISTS kb_chunks_fts');
    }
    await q.dropTable('kb_chunks');
    await q.dropTable('kb_documents');
    await q.dropTable('vector_stores');
    await q.dropTable('files');
  }
}
