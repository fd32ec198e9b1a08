/**
 * Plumbing for `npm run bench`: child processes (fake upstream, built gateway), backends
 * (SQLite temp dir | Postgres schema + Redis prefix), autocannon runs with exact latency
 * percentiles, HTTP helpers and table printing. Plain Node.js (no TypeScript, no build step).
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const autocannon = require('autocannon');

const ROOT = path.resolve(__dirname, '..', '..');
const GATEWAY_MAIN = path.join(ROOT, 'dist/apps/api/src/main.js');

// ---------------------------------------------------------------------------------------------
// child processes

const children = new Set();

function killAll() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
}
process.once('exit', killAll);

/** Spawns `node <script>` and resolves with the first stdout line that `ready` accepts. */
function spawnNode(script, { env, ready, label, timeoutMs = 30_000 }) {
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${label} did not start within ${timeoutMs} ms`)), timeoutMs);
    function fail(err) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${err.message}\n--- ${label} output ---\n${output.slice(-4000)}`));
    }
    child.stdout.on('data', (d) => {
      const text = d.toString();
      output += text;
      for (const line of text.split('\n')) {
        const value = line.trim() && ready(line.trim());
        if (value) {
          clearTimeout(timer);
          resolve({ child, value, output: () => output });
        }
      }
    });
    child.stderr.on('data', (d) => {
      output += d.toString();
    });
    child.once('exit', (code, signal) => fail(new Error(`${label} exited early (code ${code}, signal ${signal})`)));
  });
}

function stopChild(child, timeoutMs = 10_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function startFakeUpstream() {
  const { child, value } = await spawnNode(path.join(__dirname, 'fake-upstream.js'), {
    env: { PATH: process.env.PATH },
    label: 'fake upstream',
    ready: (line) => {
      try {
        return JSON.parse(line).port;
      } catch {
        return undefined;
      }
    },
  });
  return { url: `http://127.0.0.1:${value}`, stop: () => stopChild(child) };
}

/** Starts the built gateway with `env` (plus PORT/HOST) and waits for GET /ready. */
async function startGateway(env) {
  if (!fs.existsSync(GATEWAY_MAIN)) throw new Error(`${GATEWAY_MAIN} is missing: run \`npm run build\` first (npm run bench does)`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME || os.homedir(), NODE_ENV: 'production' };
  const { child, output } = await spawnNode(GATEWAY_MAIN, {
    env: { ...baseEnv, ...env, PORT: String(port), HOST: '127.0.0.1' },
    label: 'gateway',
    ready: (line) => line.includes('listening on'),
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${url}/ready`).catch(() => null);
    if (res && res.status === 200) break;
    if (Date.now() > deadline) throw new Error(`gateway not ready within 30 s\n${output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child, output, stop: () => stopChild(child) };
}

// ---------------------------------------------------------------------------------------------
// backends

const PG_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL || process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

async function postgresReachable() {
  const { Client } = require('pg');
  const c = new Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function withRedis(fn) {
  const { createClient } = require('@redis/client');
  const client = createClient({ url: REDIS_URL, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await fn(client);
  } finally {
    client.destroy();
  }
}

async function redisReachable() {
  try {
    return (await withRedis((c) => c.ping())) === 'PONG';
  } catch {
    return false;
  }
}

/** SQLite in a fresh temp DATA_DIR + in-process cache. */
function sqliteBackend() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  return {
    name: 'sqlite',
    label: 'SQLite (embedded)',
    env: { DATA_DIR: dir },
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** A fresh Postgres schema + Redis key prefix, both removed afterwards. */
async function postgresBackend() {
  const { Client } = require('pg');
  const id = randomBytes(4).toString('hex');
  const schema = `bench_${id}`;
  const prefix = `gwbench-${id}`;
  const c = new Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
  return {
    name: 'postgres',
    label: 'Postgres + Redis',
    env: { DATABASE_URL: PG_URL, DATABASE_SCHEMA: schema, DATABASE_POOL_SIZE: '20', REDIS_URL, REDIS_KEY_PREFIX: prefix, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-')) },
    cleanup: async () => {
      const d = new Client({ connectionString: PG_URL });
      await d.connect();
      await d.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await d.end();
      await withRedis(async (client) => {
        for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) if (keys.length) await client.del(keys);
      }).catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// load

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/**
 * One autocannon run at a fixed overall rate. Latency percentiles are computed from every 2xx
 * response time (sub-millisecond precision; autocannon's own histogram keeps whole milliseconds).
 */
function measure({ url, method = 'POST', headers = {}, body, rate, connections, duration, title }) {
  return new Promise((resolve, reject) => {
    const times = [];
    const instance = autocannon(
      { url, method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body), connections, duration, overallRate: rate, title },
      (err, result) => {
        if (err) return reject(err);
        times.sort((a, b) => a - b);
        const ok = result['2xx'];
        resolve({
          rps: ok / result.duration,
          sent: result.requests.sent,
          ok,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          p50: percentile(times, 50),
          p90: percentile(times, 90),
          p99: percentile(times, 99),
          max: times.length ? times[times.length - 1] : NaN,
          duration: result.duration,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// http + output

async function getJson(url, headers = {}) {
  const res = await fetch(url, { headers });
  const body = await res.json();
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function postJson(url, headers, body) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

function table(rows, columns) {
  const widths = columns.map((c) => Math.max(c.title.length, ...rows.map((r) => String(r[c.key] ?? '').length)));
  const line = (cells) => cells.map((cell, i) => (columns[i].align === 'left' ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ');
  return [line(columns.map((c) => c.title)), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => line(columns.map((c) => r[c.key] ?? '')))].join('\n');
}

const ms = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const signedMs = (x) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(2)}` : 'n/a');

module.exports = {
  ROOT,
  startFakeUpstream,
  startGateway,
  stopChild,
  postgresReachable,
  redisReachable,
  sqliteBackend,
  postgresBackend,
  measure,
  getJson,
  postJson,
  table,
  ms,
  signedMs,
  PG_URL,
  REDIS_URL,
};
