import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Sign-in throttle counters in the database (docs/accounts.md): where they live on Postgres without
 * REDIS_URL, so that every replica counts the same attempts. One row per counter key, its count and
 * the end of its window.
 */
export class LoginThrottle1797500000000 implements MigrationInterface {
  name = 'LoginThrottle1797500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'login_throttle',
        columns: [
          { name: 'throttle_key', type: 'varchar', length: '400', isPrimary: true },
          { name: 'count', type: 'integer' },
          { name: 'reset_at', type: 'bigint' },
        ],
      }),
    );
    await q.createIndex('login_throttle', new TableIndex({ name: 'login_throttle_reset', columnNames: ['reset_at'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('login_throttle');
  }
}
