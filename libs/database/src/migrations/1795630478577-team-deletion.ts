import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Deleted teams: the row stays (its ledger and usage history reference it) and is marked with
 * `deleted_at`; a deleted team answers 404 everywhere (docs/decisions/accounts-team-delete.md).
 */
export class TeamDeletion1795630478577 implements MigrationInterface {
  name = 'TeamDeletion1795630478577';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('teams', new TableColumn({ name: 'deleted_at', type: 'bigint', isNullable: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('teams', 'deleted_at');
  }
}
