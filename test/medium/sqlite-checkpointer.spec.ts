import { statSync } from 'node:fs';
import { FALLBACK_AUTOCHECKPOINT_PAGES, SqliteCheckpointer, SqliteGroupCommit } from '@app/database';
import type { Database } from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

/**
 * Embedded SQLite: the write-ahead log is checkpointed by a worker thread, so no commit of the
 * gateway's own connection copies the log into the database file (each such commit held the event
 * loop for 7–22 ms). The log is still copied and restarted, so it stays small.
 */
const onSqlite = backendKind() === 'embedded' ? describe : describe.skip;
onSqlite('the WAL is checkpointed off the event loop', () => {
  let t: TestApp;
  let ds: DataSource;
  let db: Database;
  let checkpointer: SqliteCheckpointer;
  let batch: SqliteGroupCommit;

  beforeAll(async () => {
    t = await createTestApp({});
    ds = t.get(DataSource);
    db = (ds.driver as unknown as { databaseConnection: Database }).databaseConnection;
    checkpointer = t.get(SqliteCheckpointer);
    batch = t.get(SqliteGroupCommit);
    await batch.run((q) => q.run('CREATE TABLE ckpt_probe (id INTEGER PRIMARY KEY, pad BLOB NOT NULL)', []));
  });
  afterAll(() => t?.close());

  it("leaves the gateway's connection only the fallback automatic checkpoint", () => {
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
  });

  it('copies the log into the database while the gateway writes, and the log restarts: it stays far below the fallback', async () => {
    const before = { ...checkpointer.stats };
    const wal = `${String(ds.options.database)}-wal`;
    let largest = 0;
    // 3,000 rows of a page each and the pages above them, over ≈ 2.4 s: about as many frames as the
    // fallback threshold — without the worker these commits would have crossed SQLite's default
    // 1,000 pages several times, or the log would have grown to the fallback's size
    for (let i = 0; i < 120; i++) {
      await batch.run((q) => {
        for (let j = 0; j < 25; j++) q.run('INSERT INTO ckpt_probe (pad) VALUES ($1)', [Buffer.alloc(4000, i)]);
        return null;
      });
      largest = Math.max(largest, statSync(wal).size);
      await new Promise((r) => setTimeout(r, 20));
    }
    const deadline = Date.now() + 5_000;
    while (checkpointer.stats.frames - before.frames < 3_000 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(checkpointer.stats.errors).toBe(0);
    expect(checkpointer.stats.runs).toBeGreaterThan(before.runs);
    // every row's page went into the database file, copied by the worker
    expect(checkpointer.stats.frames - before.frames).toBeGreaterThanOrEqual(3_000);
    // the log was restarted as it went: never near the fallback's size (8,000 pages of 4 KiB)
    expect(largest).toBeLessThan((FALLBACK_AUTOCHECKPOINT_PAGES / 2) * 4096);
    expect(await batch.run((q) => q.all('SELECT COUNT(*) AS n FROM ckpt_probe', []))).toEqual([{ n: 3000 }]);
  });
});
