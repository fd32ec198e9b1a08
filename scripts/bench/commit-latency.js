/**
 * The single-row commit latency of a backend's database, measured beside the gateway in the same
 * run: `count` sequential one-row INSERTs, each its own transaction, on a table of their own —
 *   - Postgres: a table in the bench's schema on the same server the gateway writes to (a durable
 *     commit: the WAL is flushed before the INSERT returns);
 *   - SQLite: a database file of its own in the gateway's DATA_DIR (same disk), with the gateway's
 *     settings (WAL, synchronous = NORMAL, so a commit appends to the WAL without an fsync).
 * The table (or file) is removed afterwards. Returns { n, p50, p99, mean } in ms, and with
 * `spacingMs` also `paced`: the same figures for commits sent one every `spacingMs` (the moderate
 * rate's spacing), so each finds the database idle, as a charge at that rate does — back to back the
 * server and the client stay awake between commits, which is cheaper than a commit at 200 req/s.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  return { n: sorted.length, p50: at(50), p99: at(99), mean: sorted.reduce((a, t) => a + t, 0) / sorted.length };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `count` commits by `commit` back to back, then (with `spacingMs`) `count` more that far apart. */
async function timeCommits(commit, count, spacingMs) {
  const once = async () => {
    const t0 = performance.now();
    const pending = commit();
    // a synchronous commit (SQLite) is timed without a turn of the microtask queue
    if (pending && typeof pending.then === 'function') await pending;
    return performance.now() - t0;
  };
  const times = [];
  for (let i = 0; i < count; i++) times.push(await once());
  if (!spacingMs) return summary(times);
  const paced = [];
  for (let i = 0; i < count; i++) {
    await sleep(spacingMs);
    paced.push(await once());
  }
  return { ...summary(times), paced: summary(paced) };
}

async function postgresCommitLatency(env, count, spacingMs) {
  const { Client } = require('pg');
  const c = new Client({ connectionString: env.DATABASE_URL });
  await c.connect();
  const table = `${env.DATABASE_SCHEMA ? `${env.DATABASE_SCHEMA}.` : ''}bench_commit_latency`;
  try {
    await c.query(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, at bigint NOT NULL)`);
    // a few first: connection and plan warm
    for (let i = 0; i < 10; i++) await c.query(`INSERT INTO ${table} (at) VALUES ($1)`, [Date.now()]);
    return await timeCommits(() => c.query(`INSERT INTO ${table} (at) VALUES ($1)`, [Date.now()]), count, spacingMs);
  } finally {
    await c.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await c.end();
  }
}

async function sqliteCommitLatency(env, count, spacingMs) {
  const Database = require('better-sqlite3');
  const file = path.join(env.DATA_DIR, 'bench-commit-latency.db');
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO t (at) VALUES (?)');
    for (let i = 0; i < 10; i++) insert.run(Date.now());
    return await timeCommits(() => insert.run(Date.now()), count, spacingMs);
  } finally {
    db.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  }
}

/**
 * @param {{ name: string }} backend @param {Record<string, string>} env the gateway's backend env
 * @param {number} [spacingMs] also measure commits sent this far apart (`paced`)
 */
async function commitLatency(backend, env, count = 300, spacingMs = 0) {
  return backend.name === 'postgres'
    ? postgresCommitLatency(env, count, spacingMs)
    : sqliteCommitLatency(env, count, spacingMs);
}

module.exports = { commitLatency };
