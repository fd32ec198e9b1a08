import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Stored responses of /v1/responses (`store`, `previous_response_id`, GET / DELETE and
 * input_items): the response object, its input items and the conversation it continues, per
 * team, until `expires_at` (retention: docs/decisions/openai-conformance-stored-responses.md).
 */
export class StoredResponses1795627137807 implements MigrationInterface {
  name = 'StoredResponses1795627137807';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'stored_responses',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
          // JSON: the response object as answered
          { name: 'body', type: 'text' },
          // JSON: the request's input items, with ids
          { name: 'input_items', type: 'text' },
          // JSON: canonical messages up to and including this answer (what previous_response_id continues)
          { name: 'conversation', type: 'text' },
        ],
      }),
    );
    await q.createIndex(
      'stored_responses',
      new TableIndex({ name: 'stored_responses_expires', columnNames: ['expires_at'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('stored_responses', 'stored_responses_expires');
    await q.dropTable('stored_responses');
  }
}
