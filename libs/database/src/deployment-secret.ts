import { RawSql } from './raw-sql';

/**
 * The named per-deployment secret (table gateway_secrets): the first replica to ask stores
 * `candidate`, every replica then reads the same value.
 */
export async function deploymentSecret(sql: RawSql, name: string, candidate: string, now: number): Promise<string> {
  const table = sql.table('gateway_secrets');
  await sql.exec(`INSERT INTO ${table} (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`, [
    name,
    candidate,
    now,
  ]);
  const { rows } = await sql.exec(`SELECT value FROM ${table} WHERE name = $1`, [name]);
  return rows[0] ? String(rows[0].value) : candidate;
}
