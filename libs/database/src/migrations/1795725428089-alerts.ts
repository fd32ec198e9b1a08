import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Team alerts (docs/alerts.md): rules, the events they fired — unique per (rule, threshold, period
 * key), which is what makes a threshold fire once across replicas — and one delivery per channel
 * of an event with every attempt recorded.
 */
export class Alerts1795725428089 implements MigrationInterface {
  name = 'Alerts1795725428089';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'alert_rules',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'kind', type: 'varchar', length: '16' },
          // JSON: the kind's parameters as given (threshold_rub | api_key_id, period, percent, budget_rub | percent, window_minutes)
          { name: 'params', type: 'text' },
          // JSON: the channels, secrets sealed
          { name: 'channels', type: 'text' },
          { name: 'enabled', type: 'integer', default: 1 },
          // crossings of a balance or error-rate threshold: the period key of the next event (re-armed when the value recovers)
          { name: 'crossing', type: 'integer', default: 0 },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
    await q.createIndex('alert_rules', new TableIndex({ name: 'alert_rules_team', columnNames: ['team_id'] }));
    await q.createTable(
      new Table({
        name: 'alert_events',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'rule_id', type: 'varchar', length: '40' },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'threshold', type: 'varchar', length: '32' },
          { name: 'period_key', type: 'varchar', length: '32' },
          // JSON: what was observed (value, threshold, message)
          { name: 'payload', type: 'text' },
          { name: 'fired_at', type: 'bigint' },
        ],
      }),
    );
    await q.createIndex(
      'alert_events',
      new TableIndex({
        name: 'alert_events_once',
        columnNames: ['rule_id', 'threshold', 'period_key'],
        isUnique: true,
      }),
    );
    await q.createIndex(
      'alert_events',
      new TableIndex({ name: 'alert_events_team', columnNames: ['team_id', 'fired_at'] }),
    );
    await q.createTable(
      new Table({
        name: 'alert_deliveries',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'event_id', type: 'varchar', length: '40' },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'channel_type', type: 'varchar', length: '16' },
          // JSON: the channel as it was when the event fired (secrets sealed)
          { name: 'channel', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'next_attempt_at', type: 'bigint' },
          { name: 'lease_until', type: 'bigint', isNullable: true },
          { name: 'last_error', type: 'text', isNullable: true },
          { name: 'delivered_at', type: 'bigint', isNullable: true },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
    await q.createIndex(
      'alert_deliveries',
      new TableIndex({ name: 'alert_deliveries_due', columnNames: ['status', 'next_attempt_at'] }),
    );
    await q.createIndex(
      'alert_deliveries',
      new TableIndex({ name: 'alert_deliveries_event', columnNames: ['event_id'] }),
    );
    await q.createTable(
      new Table({
        name: 'alert_delivery_attempts',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'delivery_id', type: 'varchar', length: '40' },
          { name: 'attempt', type: 'integer' },
          { name: 'at', type: 'bigint' },
          { name: 'ok', type: 'integer' },
          { name: 'status_code', type: 'integer', isNullable: true },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'duration_ms', type: 'integer' },
        ],
      }),
    );
    await q.createIndex(
      'alert_delivery_attempts',
      new TableIndex({ name: 'alert_delivery_attempts_delivery', columnNames: ['delivery_id'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('alert_delivery_attempts');
    await q.dropTable('alert_deliveries');
    await q.dropTable('alert_events');
    await q.dropTable('alert_rules');
  }
}
