import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Document versions in a knowledge base: a document added under the name of an existing one with
 * other content names the document it replaces (`replaces_id`); the replaced one is deleted in the
 * transaction that makes the new chunks searchable. Content hashes (already on documents) are
 * looked up per store to return the existing document for content uploaded again. Same migration on
 * both drivers.
 */
export class DocumentVersions1795729346029 implements MigrationInterface {
  name = 'DocumentVersions1795729346029';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'kb_documents',
      new TableColumn({ name: 'replaces_id', type: 'varchar', length: '40', isNullable: true }),
    );
    await q.createIndex(
      'kb_documents',
      new TableIndex({ name: 'kb_documents_store_hash', columnNames: ['vector_store_id', 'content_hash'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('kb_documents', 'kb_documents_store_hash');
    await q.dropColumn('kb_documents', 'replaces_id');
  }
}
