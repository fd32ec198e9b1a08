import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { tableName } from './table-name';

/**
 * Money in (docs/payments.md): YooKassa payments — one row per local payment, the YooKassa id unique,
 * polled under a lease until final — and redemption codes, stored hashed, each used at most once.
 * The ledger's (team, reference) key is completed by a unique index on the references of money
 * coming in from outside (`yookassa:<id>`, `code:<id>`) across teams.
 */
export class Payments1796600000000 implements MigrationInterface {
  name = 'Payments1796600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'payments',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'provider', type: 'varchar', length: '16' },
          // the provider's payment id, once its creation answered
          { name: 'provider_payment_id', type: 'varchar', length: '64', isNullable: true },
          // creating | pending | succeeded | canceled | failed
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'amount_micro', type: 'bigint' },
          { name: 'credited_micro', type: 'bigint', isNullable: true },
          { name: 'confirmation_url', type: 'text', isNullable: true },
          { name: 'receipt_email', type: 'varchar', length: '320', isNullable: true },
          { name: 'cancellation_reason', type: 'varchar', length: '64', isNullable: true },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'created_by', type: 'varchar', length: '64', isNullable: true },
          { name: 'checks', type: 'integer', default: 0 },
          // when the reconciliation next polls it (null: final, or given up after 24 h)
          { name: 'next_check_at', type: 'bigint', isNullable: true },
          { name: 'lease_until', type: 'bigint', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
          { name: 'paid_at', type: 'bigint', isNullable: true },
        ],
      }),
    );
    await q.createIndex(
      'payments',
      new TableIndex({
        name: 'payments_provider_id',
        columnNames: ['provider', 'provider_payment_id'],
        isUnique: true,
      }),
    );
    await q.createIndex('payments', new TableIndex({ name: 'payments_team', columnNames: ['team_id', 'created_at'] }));
    await q.createIndex('payments', new TableIndex({ name: 'payments_due', columnNames: ['status', 'next_check_at'] }));
    await q.createTable(
      new Table({
        name: 'redemption_codes',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'batch_id', type: 'varchar', length: '40' },
          // SHA-256 of the normalised code (hex)
          { name: 'code_hash', type: 'varchar', length: '64' },
          // the code's last four characters, to tell codes apart in lists
          { name: 'hint', type: 'varchar', length: '8' },
          { name: 'amount_micro', type: 'bigint' },
          { name: 'note', type: 'text', isNullable: true },
          { name: 'expires_at', type: 'bigint', isNullable: true },
          { name: 'disabled_at', type: 'bigint', isNullable: true },
          { name: 'used_at', type: 'bigint', isNullable: true },
          { name: 'used_by_team', type: 'varchar', length: '36', isNullable: true },
          { name: 'used_by_user', type: 'varchar', length: '64', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
    await q.createIndex(
      'redemption_codes',
      new TableIndex({ name: 'redemption_codes_hash', columnNames: ['code_hash'], isUnique: true }),
    );
    await q.createIndex(
      'redemption_codes',
      new TableIndex({ name: 'redemption_codes_batch', columnNames: ['batch_id'] }),
    );
    // partial unique index: the same syntax on Postgres and SQLite
    await q.query(
      `CREATE UNIQUE INDEX ledger_money_in_reference ON ${tableName(q, 'ledger_entries')} (reference)
       WHERE reference LIKE 'yookassa:%' OR reference LIKE 'code:%'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const table = tableName(q, 'ledger_entries');
    const schema = table.includes('.') ? `${table.split('.')[0]}.` : '';
    await q.query(`DROP INDEX ${schema}ledger_money_in_reference`);
    await q.dropTable('redemption_codes');
    await q.dropTable('payments');
  }
}
