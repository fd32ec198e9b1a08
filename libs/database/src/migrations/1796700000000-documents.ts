import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Company documents (docs/documents.md): the seller's and teams' requisites, invoices numbered
 * without gaps per year (a counter row moved in the issuing transaction, unique (year, seq)), the
 * uploaded bank statements with each payment's outcome, and the frozen acts of closed months.
 */
export class Documents1796700000000 implements MigrationInterface {
  name = 'Documents1796700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'seller_requisites',
        columns: [
          { name: 'id', type: 'varchar', length: '16', isPrimary: true },
          { name: 'data', type: 'text' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'team_requisites',
        columns: [
          { name: 'team_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'data', type: 'text' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'invoice_counters',
        columns: [
          { name: 'year', type: 'integer', isPrimary: true },
          { name: 'last_number', type: 'integer' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'invoices',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'number', type: 'varchar', length: '32' },
          { name: 'year', type: 'integer' },
          { name: 'seq', type: 'integer' },
          { name: 'amount_kopecks', type: 'bigint' },
          { name: 'vat_kopecks', type: 'bigint' },
          { name: 'vat_rate', type: 'varchar', length: '8' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'parties', type: 'text' },
          { name: 'issued_at', type: 'bigint' },
          { name: 'paid_at', type: 'bigint', isNullable: true },
          { name: 'paid_reference', type: 'varchar', length: '200', isNullable: true },
        ],
      }),
    );
    await q.createIndex(
      'invoices',
      new TableIndex({ name: 'invoices_number', columnNames: ['number'], isUnique: true }),
    );
    await q.createIndex(
      'invoices',
      new TableIndex({ name: 'invoices_year_seq', columnNames: ['year', 'seq'], isUnique: true }),
    );
    await q.createIndex('invoices', new TableIndex({ name: 'invoices_team', columnNames: ['team_id', 'issued_at'] }));
    await q.createTable(
      new Table({
        name: 'bank_statements',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'account', type: 'varchar', length: '40' },
          { name: 'date_from', type: 'varchar', length: '10', isNullable: true },
          { name: 'date_to', type: 'varchar', length: '10', isNullable: true },
          { name: 'sha256', type: 'varchar', length: '64' },
          { name: 'payments', type: 'text' },
          { name: 'credited_kopecks', type: 'bigint' },
          { name: 'uploaded_at', type: 'bigint' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'acts',
        columns: [
          { name: 'team_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'month', type: 'varchar', length: '7', isPrimary: true },
          { name: 'data', type: 'text' },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['acts', 'bank_statements', 'invoices', 'invoice_counters', 'team_requisites', 'seller_requisites'])
      await q.dropTable(t);
  }
}
