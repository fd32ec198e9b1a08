import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';

/**
 * Projects: the project record, its materials, attached knowledge bases (as materials), API
 * integrations (webhooks and scheduled external APIs with a durable `next_run_at` claim) and the
 * received webhook events. A project's text materials are documents of one project-owned vector
 * store, marked `internal` so the knowledge-base and vector-store APIs never list or serve it.
 * Same migration on both drivers.
 */
export class Projects1760000000000 implements MigrationInterface {
  name = 'Projects1760000000000';

  async up(q: QueryRunner): Promise<void> {
    const driver = q.connection.options.type;
    const pk = driver === 'postgres' ? 'bigint' : 'integer';
    const seq = { name: 'seq', type: pk, isPrimary: true, isGenerated: true, generationStrategy: 'increment' as const };

    await q.addColumn('vector_stores', new TableColumn({ name: 'internal', type: 'integer', default: 0 }));

    await q.createTable(
      new Table({
        name: 'projects',
        columns: [
          seq,
          { name: 'id', type: 'varchar', length: '40', isUnique: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'name', type: 'varchar', length: '256' },
          { name: 'description', type: 'text', isNullable: true },
          { name: 'mode', type: 'varchar', length: '32' },
          { name: 'rag', type: 'text' },
          { name: 'store_id', type: 'varchar', length: '40' },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        indices: [{ name: 'projects_team_seq', columnNames: ['team_id', 'seq'] }],
      }),
    );

    await q.createTable(
      new Table({
        name: 'project_materials',
        columns: [
          seq,
          { name: 'id', type: 'varchar', length: '40', isUnique: true },
          { name: 'project_id', type: 'varchar', length: '40' },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'title', type: 'varchar', length: '512' },
          { name: 'document_id', type: 'varchar', length: '40', isNullable: true },
          { name: 'knowledge_base_id', type: 'varchar', length: '40', isNullable: true },
          { name: 'integration_id', type: 'varchar', length: '40', isNullable: true },
          { name: 'url', type: 'text', isNullable: true },
          { name: 'mime', type: 'varchar', length: '100', isNullable: true },
          { name: 'owns_file', type: 'integer', default: 0 },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [
          { name: 'project_materials_project_seq', columnNames: ['project_id', 'seq'] },
          { name: 'project_materials_kb', columnNames: ['knowledge_base_id'] },
        ],
      }),
    );

    await q.createTable(
      new Table({
        name: 'project_integrations',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'project_id', type: 'varchar', length: '40' },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'material_id', type: 'varchar', length: '40' },
          { name: 'type', type: 'varchar', length: '16' },
          { name: 'name', type: 'varchar', length: '256' },
          { name: 'secret_enc', type: 'text', isNullable: true },
          { name: 'url', type: 'text', isNullable: true },
          { name: 'method', type: 'varchar', length: '8', isNullable: true },
          { name: 'headers_enc', type: 'text', isNullable: true },
          { name: 'header_names', type: 'text', isNullable: true },
          { name: 'body', type: 'text', isNullable: true },
          { name: 'json_path', type: 'varchar', length: '512', isNullable: true },
          { name: 'interval_seconds', type: 'integer', isNullable: true },
          { name: 'next_run_at', type: 'bigint', isNullable: true },
          { name: 'lease_owner', type: 'varchar', length: '64', isNullable: true },
          { name: 'lease_until', type: 'bigint', isNullable: true },
          { name: 'content_hash', type: 'varchar', length: '64', isNullable: true },
          { name: 'last_run_at', type: 'bigint', isNullable: true },
          { name: 'last_error', type: 'text', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [
          { name: 'project_integrations_due', columnNames: ['type', 'next_run_at'] },
          { name: 'project_integrations_project', columnNames: ['project_id'] },
        ],
      }),
    );

    await q.createTable(
      new Table({
        name: 'project_webhook_events',
        columns: [
          seq,
          { name: 'integration_id', type: 'varchar', length: '40' },
          { name: 'webhook_id', type: 'varchar', length: '256' },
          { name: 'received_at', type: 'bigint' },
          { name: 'payload', type: 'text' },
        ],
        uniques: [{ name: 'project_webhook_events_id', columnNames: ['integration_id', 'webhook_id'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('project_webhook_events');
    await q.dropTable('project_integrations');
    await q.dropTable('project_materials');
    await q.dropTable('projects');
    await q.dropColumn('vector_stores', 'internal');
  }
}
