import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

/**
 * Governance: rate limits on keys and teams (requests and tokens per minute; NULL = the env default),
 * RUB budgets per key per UTC day / month (NULL = none), per-key spend counters per period that
 * reservations hold against (so concurrent requests cannot overshoot a budget), and the ledger
 * indexes the usage summary groups on.
 */
export class Governance1765000000000 implements MigrationInterface {
  name = 'Governance1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('api_keys', [
      new TableColumn({ name: 'rpm_limit', type: 'integer', isNullable: true }),
      new TableColumn({ name: 'tpm_limit', type: 'integer', isNullable: true }),
      new TableColumn({ name: 'budget_day_micro', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'budget_month_micro', type: 'bigint', isNullable: true }),
    ]);
    await q.addColumns('teams', [
      new TableColumn({ name: 'rpm_limit', type: 'integer', isNullable: true }),
      new TableColumn({ name: 'tpm_limit', type: 'integer', isNullable: true }),
    ]);
    // which key a hold was taken for and which budget periods it counts against (NULL: none)
    await q.addColumns('reservations', [
      new TableColumn({ name: 'api_key_id', type: 'varchar', length: '36', isNullable: true }),
      new TableColumn({ name: 'budget_day', type: 'varchar', length: '16', isNullable: true }),
      new TableColumn({ name: 'budget_month', type: 'varchar', length: '16', isNullable: true }),
    ]);
    await q.createTable(
      new Table({
        name: 'api_key_spend',
        columns: [
          { name: 'api_key_id', type: 'varchar', length: '36', isPrimary: true },
          // 'd:2026-11-23' or 'm:2026-11' (UTC)
          { name: 'period', type: 'varchar', length: '16', isPrimary: true },
          { name: 'spent_micro', type: 'bigint', default: 0 },
          { name: 'held_micro', type: 'bigint', default: 0 },
        ],
      }),
    );
    await q.createIndex(
      'ledger_entries',
      new TableIndex({ name: 'ledger_team_created', columnNames: ['team_id', 'created_at'] }),
    );
    await q.createIndex(
      'ledger_entries',
      new TableIndex({ name: 'ledger_key_created', columnNames: ['api_key_id', 'created_at'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('ledger_entries', 'ledger_key_created');
    await q.dropIndex('ledger_entries', 'ledger_team_created');
    await q.dropTable('api_key_spend');
    for (const c of ['budget_month', 'budget_day', 'api_key_id']) await q.dropColumn('reservations', c);
    for (const c of ['tpm_limit', 'rpm_limit']) await q.dropColumn('teams', c);
    for (const c of ['budget_month_micro', 'budget_day_micro', 'tpm_limit', 'rpm_limit'])
      await q.dropColumn('api_keys', c);
  }
}
