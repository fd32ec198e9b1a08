import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Database } from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { DataSource } from 'typeorm';

/** How often the worker checkpoints the write-ahead log (ms). */
const CHECKPOINT_EVERY_MS = 100;

/**
 * The WAL size (pages) past which the gateway's own connection checkpoints after a commit, as SQLite
 * does by default at 1,000: a safety net for a worker that cannot keep up (a long reader holding
 * old frames), not the usual path.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 8_000;

/**
 * The worker's code (an eval'd CommonJS script, so it runs the same from the built app and under the
 * test runner): its own connection to the database file, a PASSIVE checkpoint every interval, and
 * what each did posted back.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
const tick = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (r && r.log > 0) parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed, busy: r.busy });
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
};
const timer = setInterval(tick, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m === 'stop') { clearInterval(timer); db.close(); process.exit(0); }
});
`;

export interface CheckpointStats {
  /** checkpoints that found frames to copy */
  runs: number;
  /** frames copied into the database file, all runs together */
  frames: number;
  /** the WAL's size in frames at the last run */
  lastLog: number;
  errors: number;
}

/**
 * Embedded SQLite: the write-ahead log is checkpointed (its pages copied into the database file,
 * which is then synced) by a worker thread, not by the commit that happens to cross 1,000 pages.
 * SQLite runs on the event loop's thread, and that commit held every request for 7–22 ms every half
 * second at 200 req/s. The worker's PASSIVE checkpoints run beside the gateway's writers; the log is
 * restarted by the next writer once a checkpoint has caught up. The gateway's connection keeps an
 * automatic checkpoint at FALLBACK_AUTOCHECKPOINT_PAGES, should the worker fall behind. Off for an
 * in-memory database and on Postgres.
 */
@Injectable()
export class SqliteCheckpointer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SqliteCheckpointer.name);
  private worker: Worker | null = null;
  readonly stats: CheckpointStats = { runs: 0, frames: 0, lastLog: 0, errors: 0 };

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  onApplicationBootstrap(): void {
    if (this.ds.options.type !== 'better-sqlite3') return;
    const file = String(this.ds.options.database);
    if (!file || file === ':memory:') return;
    const db = (this.ds.driver as unknown as { databaseConnection: Database }).databaseConnection;
    db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { file, driver: require.resolve('better-sqlite3'), everyMs: CHECKPOINT_EVERY_MS },
    });
    worker.unref();
    worker.on('message', (m: { log?: number; checkpointed?: number; error?: string }) => {
      if (m.error !== undefined) {
        if (this.stats.errors++ === 0) this.logger.warn(`WAL checkpoint failed: ${m.error}`);
        return;
      }
      this.stats.runs++;
      this.stats.frames += m.checkpointed ?? 0;
      this.stats.lastLog = m.log ?? 0;
    });
    worker.on('error', (err) => this.logger.warn(`WAL checkpoint worker stopped: ${err.message}`));
    this.worker = worker;
  }

  async onModuleDestroy(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000).unref())]);
    await worker.terminate().catch(() => undefined);
  }
}
