import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';

/**
 * People: users (e-mail stored lower-case, unique), server-side sessions (only the SHA-256 of the
 * cookie value is stored), team memberships with a role, invitations (token stored hashed), the
 * append-only audit log, and three new API key columns: who created it, when it expires and which
 * models it may call (JSON array, NULL = all). Same migration on both drivers.
 */
export class Accounts1795625253943 implements MigrationInterface {
  name = 'Accounts1795625253943';

  async up(q: QueryRunner): Promise<void> {
    const driver = q.connection.options.type;
    const pk = driver === 'postgres' ? 'bigint' : 'integer';

    await q.createTable(
      new Table({
        name: 'users',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'email', type: 'varchar', length: '320', isUnique: true },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'password_hash', type: 'varchar', length: '255', isNullable: true },
          { name: 'operator', type: 'integer', default: 0 },
          { name: 'disabled', type: 'integer', default: 0 },
          { name: 'created_at', type: 'bigint' },
          { name: 'last_login_at', type: 'bigint', isNullable: true },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'sessions',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'user_id', type: 'varchar', length: '36' },
          { name: 'csrf_token', type: 'varchar', length: '64' },
          { name: 'via', type: 'varchar', length: '16' },
          { name: 'ip', type: 'varchar', length: '64', isNullable: true },
          { name: 'user_agent', type: 'varchar', length: '500', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'last_seen_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
        ],
        indices: [{ name: 'sessions_user', columnNames: ['user_id'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'memberships',
        columns: [
          { name: 'team_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'user_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'role', type: 'varchar', length: '16' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [{ name: 'memberships_user', columnNames: ['user_id'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'invitations',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'team_id', type: 'varchar', length: '36' },
          { name: 'email', type: 'varchar', length: '320' },
          { name: 'role', type: 'varchar', length: '16' },
          { name: 'token_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'created_by', type: 'varchar', length: '36', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
          { name: 'accepted_at', type: 'bigint', isNullable: true },
          { name: 'accepted_by', type: 'varchar', length: '36', isNullable: true },
          { name: 'revoked_at', type: 'bigint', isNullable: true },
        ],
        indices: [{ name: 'invitations_team', columnNames: ['team_id', 'created_at'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'audit_log',
        columns: [
          { name: 'seq', type: pk, isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'id', type: 'varchar', length: '36', isUnique: true },
          { name: 'at', type: 'bigint' },
          { name: 'actor_type', type: 'varchar', length: '16' },
          { name: 'actor_id', type: 'varchar', length: '320', isNullable: true },
          { name: 'ip', type: 'varchar', length: '64', isNullable: true },
          { name: 'user_agent', type: 'varchar', length: '500', isNullable: true },
          { name: 'team_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'action', type: 'varchar', length: '64' },
          { name: 'target_type', type: 'varchar', length: '32', isNullable: true },
          { name: 'target_id', type: 'varchar', length: '320', isNullable: true },
          { name: 'diff', type: 'text', isNullable: true },
        ],
        indices: [
          { name: 'audit_team_seq', columnNames: ['team_id', 'seq'] },
          { name: 'audit_at', columnNames: ['at'] },
        ],
      }),
    );
    await q.addColumns('api_keys', [
      new TableColumn({ name: 'created_by', type: 'varchar', length: '36', isNullable: true }),
      new TableColumn({ name: 'expires_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'allowed_models', type: 'text', isNullable: true }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const c of ['allowed_models', 'expires_at', 'created_by']) await q.dropColumn('api_keys', c);
    for (const t of ['audit_log', 'invitations', 'memberships', 'sessions', 'users']) await q.dropTable(t);
  }
}
