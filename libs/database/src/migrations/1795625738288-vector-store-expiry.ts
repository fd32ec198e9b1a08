import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Vector store expiry (OpenAI `expires_after: {anchor: "last_active_at", days}`): the number of
 * days of inactivity after which the store expires; NULL = never.
 */
export class VectorStoreExpiry1795625738288 implements MigrationInterface {
  name = 'VectorStoreExpiry1795625738288';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'vector_stores',
      new TableColumn({ name: 'expires_after_days', type: 'integer', isNullable: true }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('vector_stores', 'expires_after_days');
  }
}
