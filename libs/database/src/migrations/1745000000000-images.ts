import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { binaryColumnType } from '../columns';

/** Generated images kept for signed URLs, and per-deployment secrets (the URL signing key). */
export class Images1745000000000 implements MigrationInterface {
  name = 'Images1745000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'image_files',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'mime', type: 'varchar', length: '40' },
          { name: 'byte_size', type: 'integer' },
          { name: 'bytes', type: binaryColumnType(q.connection.options.type) },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
        ],
      }),
    );
    await q.createIndex('image_files', new TableIndex({ name: 'image_files_expires_at', columnNames: ['expires_at'] }));
    await q.createTable(
      new Table({
        name: 'gateway_secrets',
        columns: [
          { name: 'name', type: 'varchar', length: '64', isPrimary: true },
          { name: 'value', type: 'varchar', length: '128' },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('gateway_secrets');
    await q.dropTable('image_files');
  }
}
