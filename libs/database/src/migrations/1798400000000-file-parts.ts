import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { binaryColumnType } from '../columns';

/**
 * A large file's bytes in parts of their own (`file_parts`), so that storing and reading it are
 * statements of about a megabyte each rather than one of ten; `files.parts` says how many (0: the
 * bytes are in `files.bytes`, as for every file stored before).
 */
export class FileParts1798400000000 implements MigrationInterface {
  name = 'FileParts1798400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('files', new TableColumn({ name: 'parts', type: 'integer', default: 0 }));
    await q.createTable(
      new Table({
        name: 'file_parts',
        columns: [
          { name: 'file_id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'ordinal', type: 'integer', isPrimary: true },
          { name: 'bytes', type: binaryColumnType(q.connection.options.type) },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('file_parts');
    await q.dropColumn('files', 'parts');
  }
}
