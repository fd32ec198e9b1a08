import { DataSource, QueryFailedError } from 'typeorm';
import { DatabaseLogger, DatabaseLogSink } from './database-logger';

/** Records what the logger writes, as the JSON a log line would carry. */
function recordingSink(): { sink: DatabaseLogSink; lines: string[] } {
  const lines: string[] = [];
  const record = (...args: unknown[]): void => void lines.push(JSON.stringify(args));
  return { sink: { log: record, warn: record, error: record, debug: record }, lines };
}

describe('DatabaseLogger', () => {
  const SECRET = 'c0ffee-key-hash-that-must-not-be-logged';
  let ds: DataSource;
  let lines: string[];

  beforeEach(async () => {
    const rec = recordingSink();
    lines = rec.lines;
    // 'all': every kind TypeORM can report is enabled, so nothing is filtered out before the logger
    ds = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      logger: new DatabaseLogger('all', rec.sink),
      maxQueryExecutionTime: -1,
    }).initialize();
    await ds.query('CREATE TABLE api_keys (id TEXT PRIMARY KEY, key_hash TEXT NOT NULL)');
  });
  afterEach(() => ds.destroy());

  it('logs a failed insert with its SQL and error, never its parameters', async () => {
    await ds.query('INSERT INTO api_keys (id, key_hash) VALUES (?, ?)', ['k1', SECRET]);
    lines.length = 0;
    const err = await ds
      .query('INSERT INTO api_keys (id, key_hash) VALUES (?, ?)', ['k1', SECRET])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryFailedError);
    // the error itself carries the values (that is what must not reach a log line)
    expect((err as QueryFailedError).parameters).toContain(SECRET);

    const logged = lines.join('\n');
    expect(logged).toContain('INSERT INTO api_keys (id, key_hash) VALUES (?, ?)');
    expect(logged).toContain('UNIQUE constraint failed: api_keys.id');
    expect(logged).toContain('query-error');
    expect(logged).not.toContain(SECRET);
  });

  it('logs queries and slow queries without parameters', async () => {
    lines.length = 0;
    await ds.query('SELECT * FROM api_keys WHERE key_hash = ?', [SECRET]);
    const logged = lines.join('\n');
    expect(logged).toContain('SELECT * FROM api_keys WHERE key_hash = ?');
    expect(logged).toContain('query-slow'); // maxQueryExecutionTime -1: every query counts as slow
    expect(logged).not.toContain(SECRET);
  });

  it('respects the logging option: nothing but migrations and slow queries when logging is off', async () => {
    const rec = recordingSink();
    const quiet = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      logger: new DatabaseLogger(false, rec.sink),
    }).initialize();
    try {
      await quiet.query('CREATE TABLE t (id TEXT PRIMARY KEY)');
      await quiet.query('INSERT INTO t (id) VALUES (?)', ['a']);
      await quiet.query('INSERT INTO t (id) VALUES (?)', ['a']).catch(() => undefined);
      expect(rec.lines).toEqual([]);
    } finally {
      await quiet.destroy();
    }
  });
});
