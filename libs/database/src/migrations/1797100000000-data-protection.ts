import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';

/**
 * Data protection (docs/data-protection.md): a team's data policy (residency, personal-data mode,
 * entities, custom patterns, allow list) as one JSON row per team; an API key's own, stricter policy
 * on the key; and, per request-log record, the policy applied and the entity counts (never values).
 */
export class DataProtection1797100000000 implements MigrationInterface {
  name = 'DataProtection1797100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'team_data_policies',
        columns: [
          { name: 'team_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'policy', type: 'text' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
    await q.addColumn('api_keys', new TableColumn({ name: 'data_policy', type: 'text', isNullable: true }));
    await q.addColumn('request_log', new TableColumn({ name: 'data_protection', type: 'text', isNullable: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('request_log', 'data_protection');
    await q.dropColumn('api_keys', 'data_policy');
    await q.dropTable('team_data_policies');
  }
}
