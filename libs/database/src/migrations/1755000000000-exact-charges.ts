import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Exact charges: a settle charges what the provider reported even past the hold, so a balance may
 * go below zero by that excess (the team is then refused until topped up) — the non-negative
 * balance check goes. Ledger charges name their reservation, unique, so a settle retried from the
 * durable spool can never charge twice.
 */
export class ExactCharges1755000000000 implements MigrationInterface {
  name = 'ExactCharges1755000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.dropCheckConstraint('teams', 'teams_balance_nonneg');
    await q.addColumn(
      'ledger_entries',
      new TableColumn({ name: 'reservation_id', type: 'varchar', length: '36', isNullable: true }),
    );
    await q.createIndex(
      'ledger_entries',
      new TableIndex({ name: 'ledger_entries_reservation', columnNames: ['reservation_id'], isUnique: true }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('ledger_entries', 'ledger_entries_reservation');
    await q.dropColumn('ledger_entries', 'reservation_id');
  }
}
