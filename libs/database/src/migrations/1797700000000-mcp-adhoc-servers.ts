import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/** The team setting that lets /v1/responses reach MCP servers the team has not registered (null: no). */
export class McpAdhocServers1797700000000 implements MigrationInterface {
  name = 'McpAdhocServers1797700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('teams', new TableColumn({ name: 'mcp_adhoc_servers', type: 'boolean', isNullable: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('teams', 'mcp_adhoc_servers');
  }
}
