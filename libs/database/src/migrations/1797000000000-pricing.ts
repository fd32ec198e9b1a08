import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { tableName } from './table-name';

const FX_COLUMNS = () => [
  new TableColumn({ name: 'fx_rate', type: 'varchar', length: '32', isNullable: true }),
  new TableColumn({ name: 'fx_date', type: 'varchar', length: '10', isNullable: true }),
];

/**
 * Pricing (docs/billing.md): operators' catalog overrides and per-team prices, a version row every
 * replica polls to pick up their changes, the CBR rates by date with the fetcher's status, and the
 * rate each charge of a USD-priced model used (ledger entries and request-log records).
 */
export class Pricing1797000000000 implements MigrationInterface {
  name = 'Pricing1797000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'catalog_overrides',
        columns: [
          { name: 'model_key', type: 'varchar', length: '200', isPrimary: true },
          { name: 'data', type: 'text' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'team_pricing',
        columns: [
          { name: 'team_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'data', type: 'text' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'pricing_versions',
        columns: [
          { name: 'id', type: 'varchar', length: '16', isPrimary: true },
          { name: 'version', type: 'bigint' },
        ],
      }),
    );
    await q.query(`INSERT INTO ${tableName(q, 'pricing_versions')} (id, version) VALUES ('pricing', 0)`);
    await q.createTable(
      new Table({
        name: 'fx_rates',
        columns: [
          { name: 'currency', type: 'varchar', length: '3', isPrimary: true },
          { name: 'rate_date', type: 'varchar', length: '10', isPrimary: true },
          { name: 'rate', type: 'varchar', length: '32' },
          { name: 'nominal', type: 'integer' },
          { name: 'value', type: 'varchar', length: '32' },
          { name: 'fetched_at', type: 'bigint' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'fx_status',
        columns: [
          { name: 'currency', type: 'varchar', length: '3', isPrimary: true },
          { name: 'last_attempt_at', type: 'bigint', isNullable: true },
          { name: 'last_success_at', type: 'bigint', isNullable: true },
          { name: 'last_error', type: 'text', isNullable: true },
          { name: 'alert_raised_at', type: 'bigint', isNullable: true },
        ],
      }),
    );
    await q.addColumns('ledger_entries', FX_COLUMNS());
    await q.addColumns('request_log', FX_COLUMNS());
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['request_log', 'ledger_entries']) {
      await q.dropColumn(t, 'fx_date');
      await q.dropColumn(t, 'fx_rate');
    }
    for (const t of ['fx_status', 'fx_rates', 'pricing_versions', 'team_pricing', 'catalog_overrides'])
      await q.dropTable(t);
  }
}
