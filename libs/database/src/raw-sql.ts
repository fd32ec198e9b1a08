import { DataSource, EntityManager, EntityTarget } from 'typeorm';

export type SqlRow = Record<string, unknown>;

/**
 * Raw statements that run unchanged on both drivers, for the few queries the query builder cannot
 * express (claims with SKIP LOCKED, full-text search, UPDATE … RETURNING). Placeholders are `$n`
 * (rewritten to `?` in order for SQLite); table names come from `table(Entity)`, schema-qualified
 * and escaped.
 */
export class RawSql {
  readonly pg: boolean;

  constructor(private readonly ds: DataSource) {
    this.pg = ds.options.type === 'postgres';
  }

  table(entity: EntityTarget<object>): string {
    return this.ds
      .getMetadata(entity)
      .tablePath.split('.')
      .map((p) => this.ds.driver.escape(p))
      .join('.');
  }

  /**
   * Locks the row `id` of `table` (from `table(Entity)`) until `m`'s transaction ends — Postgres
   * `FOR UPDATE`; SQLite has one writer, which already serialises transactions, so the row is only
   * read. False when there is no such row. Callers use it to give their writes one lock order.
   */
  async lockRow(table: string, id: string, m: EntityManager): Promise<boolean> {
    const { rows } = await this.exec(`SELECT id FROM ${table} WHERE id = $1${this.pg ? ' FOR UPDATE' : ''}`, [id], m);
    return rows.length > 0;
  }

  async exec(sql: string, params: unknown[], m?: EntityManager): Promise<{ rows: SqlRow[]; affected: number }> {
    let text = sql;
    let args = params;
    if (!this.pg) {
      args = [];
      text = sql.replace(/\$(\d+)(::\w+)?/g, (_, n: string) => {
        args.push(params[Number(n) - 1]);
        return '?';
      });
    }
    return this.execNative(text, args, m);
  }

  /**
   * `sql` in the driver's own placeholder style (`?` in order on SQLite, `$n` on Postgres), run as
   * is: for statements generated per driver, e.g. a long multi-row INSERT that the `$n` rewrite of
   * `exec` would otherwise scan on every call.
   */
  async execNative(sql: string, params: unknown[], m?: EntityManager): Promise<{ rows: SqlRow[]; affected: number }> {
    const qr = m?.queryRunner ?? this.ds.createQueryRunner();
    try {
      const r = await qr.query(sql, params, true);
      const rows = Array.isArray(r.records) ? (r.records as SqlRow[]) : [];
      return { rows, affected: r.affected ?? rows.length };
    } finally {
      if (!m?.queryRunner) await qr.release();
    }
  }
}
