import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';

/**
 * The MCP gateway (docs/mcp.md): a team's registered MCP servers (headers sealed, the tools last
 * read from the server kept as JSON), the tool allowlist of API keys, and the request log's
 * tool-call records (kind `mcp_tool`).
 */
export class Mcp1797200000000 implements MigrationInterface {
  name = 'Mcp1797200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'mcp_servers',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'name', type: 'varchar', length: '64' },
          { name: 'url', type: 'text' },
          // streamable_http | sse
          { name: 'transport', type: 'varchar', length: '16' },
          // JSON object: header name → sealed value
          { name: 'headers', type: 'text' },
          { name: 'description', type: 'text', isNullable: true },
          { name: 'price_per_call_micro', type: 'bigint', default: 0 },
          // unknown | ok | error
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'status_error', type: 'text', isNullable: true },
          // JSON array of {name, description, input_schema} as last read from the server
          { name: 'tools', type: 'text', isNullable: true },
          { name: 'tools_refreshed_at', type: 'bigint', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        indices: [{ name: 'mcp_servers_team_name', columnNames: ['team_id', 'name'], isUnique: true }],
      }),
    );
    await q.addColumn('api_keys', new TableColumn({ name: 'allowed_mcp_tools', type: 'text', isNullable: true }));
    await q.addColumns('request_log', [
      // null: a model call; `mcp_tool`: a tool call through the MCP gateway
      new TableColumn({ name: 'kind', type: 'varchar', length: '16', isNullable: true }),
      new TableColumn({ name: 'mcp_server', type: 'varchar', length: '64', isNullable: true }),
      new TableColumn({ name: 'mcp_tool', type: 'varchar', length: '200', isNullable: true }),
      new TableColumn({ name: 'bytes', type: 'integer', isNullable: true }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const c of ['bytes', 'mcp_tool', 'mcp_server', 'kind']) await q.dropColumn('request_log', c);
    await q.dropColumn('api_keys', 'allowed_mcp_tools');
    await q.dropTable('mcp_servers');
  }
}
