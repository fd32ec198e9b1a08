import type { QueryRunner } from 'typeorm';

/**
 * A table's name for raw SQL in a migration, quoted: on Postgres qualified by the connection's
 * schema when one is configured (DATABASE_SCHEMA), on SQLite the bare name.
 */
export function tableName(q: QueryRunner, name: string): string {
  if (q.connection.options.type !== 'postgres') return `"${name}"`;
  const schema = (q.connection.options as { schema?: string }).schema;
  return schema ? `"${schema}"."${name}"` : `"${name}"`;
}
