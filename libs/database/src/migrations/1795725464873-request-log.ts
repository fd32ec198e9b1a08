import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';

/**
 * The team request log: one row per model call (refused and failed ones included), with the
 * optional request / response bodies (team setting `request_log_bodies`), and the team's log
 * settings: the body level and the retention of records and of bodies (NULL = the env default).
 * Each row carries the instants its record and its bodies expire (taken from the team's retention
 * when it was written), which the retention job deletes in bounded batches.
 */
export class RequestLog1795725464873 implements MigrationInterface {
  name = 'RequestLog1795725464873';

  async up(q: QueryRunner): Promise<void> {
    const pk = q.connection.options.type === 'postgres' ? 'bigint' : 'integer';
    await q.createTable(
      new Table({
        name: 'request_log',
        columns: [
          { name: 'seq', type: pk, isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          // the response's x-request-id (a caller may reuse one: not unique)
          { name: 'id', type: 'varchar', length: '128' },
          { name: 'team_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
          { name: 'bodies_expire_at', type: 'bigint', isNullable: true },
          { name: 'method', type: 'varchar', length: '8' },
          { name: 'endpoint', type: 'varchar', length: '200' },
          { name: 'model', type: 'varchar', length: '200', isNullable: true },
          { name: 'served_model', type: 'varchar', length: '200', isNullable: true },
          { name: 'provider', type: 'varchar', length: '64', isNullable: true },
          { name: 'attempts', type: 'integer', default: 0 },
          // JSON array of the catalog models tried, in order
          { name: 'fallback_path', type: 'text', isNullable: true },
          { name: 'status', type: 'integer' },
          { name: 'error_code', type: 'varchar', length: '100', isNullable: true },
          { name: 'stream', type: 'integer', default: 0 },
          { name: 'input_tokens', type: 'integer', default: 0 },
          { name: 'output_tokens', type: 'integer', default: 0 },
          { name: 'cache_read_tokens', type: 'integer', default: 0 },
          { name: 'cache_write_tokens', type: 'integer', default: 0 },
          { name: 'reasoning_tokens', type: 'integer', default: 0 },
          { name: 'cost_micro', type: 'bigint', default: 0 },
          { name: 'latency_ms', type: 'integer' },
          { name: 'ttft_ms', type: 'integer', isNullable: true },
          { name: 'api_key_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'key_prefix', type: 'varchar', length: '32', isNullable: true },
          { name: 'session_user_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'end_user', type: 'varchar', length: '256', isNullable: true },
          { name: 'project_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'knowledge_base_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'client_ip', type: 'varchar', length: '64', isNullable: true },
          { name: 'user_agent', type: 'varchar', length: '512', isNullable: true },
          { name: 'request_body', type: 'text', isNullable: true },
          { name: 'response_body', type: 'text', isNullable: true },
          { name: 'body_truncated', type: 'integer', default: 0 },
        ],
        indices: [
          { name: 'request_log_team_created', columnNames: ['team_id', 'created_at', 'seq'] },
          { name: 'request_log_created', columnNames: ['created_at', 'seq'] },
          { name: 'request_log_team_id', columnNames: ['team_id', 'id'] },
          { name: 'request_log_expires', columnNames: ['expires_at'] },
          { name: 'request_log_bodies_expire', columnNames: ['bodies_expire_at'] },
        ],
      }),
    );
    await q.addColumns('teams', [
      new TableColumn({ name: 'request_log_bodies', type: 'varchar', length: '16', isNullable: true }),
      new TableColumn({ name: 'request_log_retention_days', type: 'integer', isNullable: true }),
      new TableColumn({ name: 'request_log_body_retention_days', type: 'integer', isNullable: true }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('teams', 'request_log_body_retention_days');
    await q.dropColumn('teams', 'request_log_retention_days');
    await q.dropColumn('teams', 'request_log_bodies');
    await q.dropTable('request_log');
  }
}
