import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

/**
 * Foundation schema. Written with TypeORM's driver-neutral Table API so the SAME migration runs on
 * Postgres and SQLite. Money: bigint µRUB. Time: bigint epoch milliseconds.
 */
export class Foundation1732000000000 implements MigrationInterface {
  name = 'Foundation1732000000000';

  async up(q: QueryRunner): Promise<void> {
    const pk = q.connection.options.type === 'postgres' ? 'bigint' : 'integer';

    await q.createTable(
      new Table({
        name: 'teams',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'balance_micro', type: 'bigint', default: 0 },
          { name: 'reserved_micro', type: 'bigint', default: 0 },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        checks: [
          { name: 'teams_balance_nonneg', expression: 'balance_micro >= 0' },
          { name: 'teams_reserved_nonneg', expression: 'reserved_micro >= 0' },
        ],
      }),
    );

    await q.createTable(
      new Table({
        name: 'api_keys',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'name', type: 'varchar', length: '200', isNullable: true },
          { name: 'prefix', type: 'varchar', length: '32' },
          { name: 'key_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'revoked_at', type: 'bigint', isNullable: true },
          { name: 'last_used_at', type: 'bigint', isNullable: true },
        ],
        indices: [{ name: 'api_keys_team', columnNames: ['team_id'] }],
      }),
    );
    await q.createForeignKey(
      'api_keys',
      new TableForeignKey({ columnNames: ['team_id'], referencedTableName: 'teams', referencedColumnNames: ['id'] }),
    );

    await q.createTable(
      new Table({
        name: 'reservations',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'request_id', type: 'varchar', length: '128' },
          { name: 'amount_micro', type: 'bigint' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'charged_micro', type: 'bigint', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
          { name: 'closed_at', type: 'bigint', isNullable: true },
        ],
      }),
    );
    await q.createIndex(
      'reservations',
      new TableIndex({ name: 'reservations_open_expiry', columnNames: ['status', 'expires_at'] }),
    );
    await q.createForeignKey(
      'reservations',
      new TableForeignKey({ columnNames: ['team_id'], referencedTableName: 'teams', referencedColumnNames: ['id'] }),
    );

    await q.createTable(
      new Table({
        name: 'ledger_entries',
        columns: [
          { name: 'id', type: pk, isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'request_id', type: 'varchar', length: '128', isNullable: true },
          { name: 'reference', type: 'varchar', length: '200', isNullable: true },
          { name: 'api_key_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'endpoint', type: 'varchar', length: '100', isNullable: true },
          { name: 'model', type: 'varchar', length: '200', isNullable: true },
          { name: 'prompt_tokens', type: 'integer', default: 0 },
          { name: 'completion_tokens', type: 'integer', default: 0 },
          { name: 'total_tokens', type: 'integer', default: 0 },
          { name: 'amount_micro', type: 'bigint' },
          { name: 'balance_after_micro', type: 'bigint' },
          { name: 'details', type: 'text', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [
          { name: 'ledger_team_id', columnNames: ['team_id', 'id'] },
          { name: 'ledger_team_reference', columnNames: ['team_id', 'reference'], isUnique: true },
        ],
      }),
    );
    await q.createForeignKey(
      'ledger_entries',
      new TableForeignKey({ columnNames: ['team_id'], referencedTableName: 'teams', referencedColumnNames: ['id'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('ledger_entries');
    await q.dropTable('reservations');
    await q.dropTable('api_keys');
    await q.dropTable('teams');
  }
}
