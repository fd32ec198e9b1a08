import { MigrationInterface, QueryRunner } from 'typeorm';
import { tableName } from './table-name';

const BATCH = 500;

/**
 * Alert channels get the language their messages are written in (docs/alerts.md): a `language`
 * member of each channel in `alert_rules.channels` and of the channel copied into each
 * `alert_deliveries.channel` (both JSON text). Existing channels keep English: `"en"` is written
 * into each, so every stored channel names its language.
 */
export class AlertChannelLanguage1798200000000 implements MigrationInterface {
  name = 'AlertChannelLanguage1798200000000';

  async up(q: QueryRunner): Promise<void> {
    await rewrite(q, 'alert_rules', 'channels', (list) =>
      Array.isArray(list) ? list.map((c: Record<string, unknown>) => ({ ...c, language: c.language ?? 'en' })) : list,
    );
    await rewrite(q, 'alert_deliveries', 'channel', (c) =>
      c && typeof c === 'object' && !Array.isArray(c)
        ? { ...c, language: (c as { language?: string }).language ?? 'en' }
        : c,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const drop = (c: unknown) => {
      if (!c || typeof c !== 'object' || Array.isArray(c)) return c;
      const { language: _language, ...rest } = c as Record<string, unknown>;
      return rest;
    };
    await rewrite(q, 'alert_rules', 'channels', (list) => (Array.isArray(list) ? list.map(drop) : list));
    await rewrite(q, 'alert_deliveries', 'channel', drop);
  }
}

/** Rewrites the JSON text column of every row (in batches by id), leaving rows whose JSON is unchanged. */
async function rewrite(q: QueryRunner, table: string, column: string, change: (v: unknown) => unknown): Promise<void> {
  const pg = q.connection.options.type === 'postgres';
  const p = (i: number) => (pg ? `$${i}` : '?');
  const t = tableName(q, table);
  let last = '';
  for (;;) {
    const rows = (await q.query(
      `SELECT id, ${column} AS value FROM ${t} WHERE id > ${p(1)} ORDER BY id LIMIT ${BATCH}`,
      [last],
    )) as { id: string; value: string }[];
    if (rows.length === 0) return;
    for (const r of rows) {
      const next = JSON.stringify(change(JSON.parse(r.value)));
      if (next !== r.value) await q.query(`UPDATE ${t} SET ${column} = ${p(1)} WHERE id = ${p(2)}`, [next, r.id]);
    }
    last = rows[rows.length - 1].id;
  }
}
