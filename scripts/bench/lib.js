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
const { monitorEventLoopDelay, performance } = require('node:perf_hooks');
const autocannon = require('autocannon');
const { Pool } = require('undici');

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
function spawnNode(script, { env, ready, label, timeoutMs = 30_000, nodeArgs = [] }) {
  const child = spawn(process.execPath, [...nodeArgs, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  // BENCH_CHILD_OUTPUT_DIR: every child's stdout + stderr also go to <dir>/<label>-<pid>.log (e.g. with
  // BENCH_GATEWAY_NODE_ARGS=--trace-gc, to see the gateway's collections)
  if (process.env.BENCH_CHILD_OUTPUT_DIR) {
    const file = fs.createWriteStream(path.join(process.env.BENCH_CHILD_OUTPUT_DIR, `${label}-${child.pid}.log`));
    child.stdout.on('data', (d) => file.write(d));
    child.stderr.on('data', (d) => file.write(d));
    child.once('exit', () => file.end());
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${label} did not start within ${timeoutMs} ms`)), timeoutMs);
    function fail(err) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${err.message}\n--- ${label} output ---\n${output.slice(-4000)}`));
    }
    let started = false;
    // keep only the tail: a gateway at LOG_LEVEL=info writes an access line per request
    const keep = (text) => {
      output += text;
      if (output.length > 256 * 1024) output = output.slice(-64 * 1024);
    };
    child.stdout.on('data', (d) => {
      const text = d.toString();
      keep(text);
      if (started) return;
      for (const line of text.split('\n')) {
        const value = line.trim() && ready(line.trim());
        if (value) {
          started = true;
          clearTimeout(timer);
          resolve({ child, value, output: () => output });
          break;
        }
      }
    });
    child.stderr.on('data', (d) => keep(d.toString()));
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

/** The `{"port": N}` line the bench's own children print once they listen (else undefined). */
function portLine(line) {
  try {
    return JSON.parse(line).port;
  } catch {
    return undefined;
  }
}

async function startFakeUpstream() {
  const { child, value } = await spawnNode(path.join(__dirname, 'fake-upstream.js'), {
    env: { PATH: process.env.PATH },
    label: 'fake upstream',
    // e.g. BENCH_UPSTREAM_NODE_ARGS=--trace-gc with BENCH_CHILD_OUTPUT_DIR: the upstream's own pauses
    nodeArgs: (process.env.BENCH_UPSTREAM_NODE_ARGS || '').split(' ').filter(Boolean),
    ready: portLine,
  });
  return { url: `http://127.0.0.1:${value}`, stop: () => stopChild(child) };
}

/** A floor in front of `upstreamUrl`, run as a child that prints `{"port": N}` when it listens. */
async function startFloor(script, label, upstreamUrl) {
  const { child, value } = await spawnNode(path.join(__dirname, script), {
    env: { PATH: process.env.PATH, UPSTREAM_URL: upstreamUrl },
    label,
    // e.g. BENCH_FLOOR_NODE_ARGS=--trace-gc-nvp with BENCH_CHILD_OUTPUT_DIR: the floors' collections beside the gateway's
    nodeArgs: (process.env.BENCH_FLOOR_NODE_ARGS || '').split(' ').filter(Boolean),
    ready: portLine,
  });
  return { url: `http://127.0.0.1:${value}`, pid: child.pid, stop: () => stopChild(child) };
}

/** The floor: a bare Node proxy (scripts/bench/bare-proxy.js, undici pool) in front of `upstreamUrl`. */
const startBareProxy = (upstreamUrl) => startFloor('bare-proxy.js', 'bare proxy', upstreamUrl);

/** The stack's floor: Nest + Express + a class-validator DTO + undici + a log line (scripts/bench/nest-floor.js). */
const startNestFloor = (upstreamUrl) => startFloor('nest-floor.js', 'nest floor', upstreamUrl);

/**
 * A peer: Portkey's open-source gateway (scripts/bench/portkey.js: @portkey-ai/gateway's published
 * build, headless, no cache, no retries). It needs no upstream URL: every request names its provider
 * and host in `x-portkey-*` headers (see portkeyHeaders).
 */
async function startPortkey() {
  const port = await freePort();
  const { child } = await spawnNode(path.join(__dirname, 'portkey.js'), {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME || os.homedir(),
      NODE_ENV: 'production',
      PORTKEY_PORT: String(port),
    },
    label: 'portkey',
    ready: portLine,
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => stopChild(child) };
}

/**
 * Pool options for a client of Portkey: its answers carry the upstream's `keep-alive: timeout=65`
 * header while its Node server closes a connection after 5 s idle, so a client that trusts the
 * header reuses sockets Portkey is closing (ECONNRESET). The bench's pool for it keeps an idle
 * socket 4 s at most.
 */
const PORTKEY_POOL = { keepAliveMaxTimeout: 4_000 };

/** The headers that route a Portkey request to an OpenAI-compatible `upstreamUrl` with `apiKey`. */
const portkeyHeaders = (upstreamUrl, apiKey) => ({
  'x-portkey-provider': 'openai',
  'x-portkey-custom-host': `${upstreamUrl}/v1`,
  authorization: `Bearer ${apiKey}`,
});

/** Starts the built gateway with `env` (plus PORT/HOST) and waits for GET /ready. */
const START_TIMEOUT_MS = Number(process.env.BENCH_START_TIMEOUT_MS || 30_000);

/** BENCH_GATEWAY_ENV: a JSON object of environment settings added to the gateway's. */
function gatewayEnvOverrides() {
  const raw = process.env.BENCH_GATEWAY_ENV;
  if (!raw) return {};
  const parsed = JSON.parse(raw);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('BENCH_GATEWAY_ENV must be a JSON object of environment settings');
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
}

/** The node flags a command line gives before the gateway's entry point (dist/apps/api/src/main.js). */
function gatewayFlagsOf(command) {
  const m = /\bnode\s+(.*?)\s*dist\/apps\/api\/src\/main\.js/.exec(command);
  if (!m) throw new Error(`not a command that runs dist/apps/api/src/main.js with node: ${command}`);
  return m[1].split(/\s+/).filter(Boolean);
}

/**
 * The node flags `npm start` runs the gateway with (package.json's start script), so the bench
 * measures the gateway as it is run, runtime settings included.
 */
function gatewayStartFlags() {
  return gatewayFlagsOf(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start);
}

async function startGateway(env) {
  if (!fs.existsSync(GATEWAY_MAIN))
    throw new Error(`${GATEWAY_MAIN} is missing: run \`npm run build\` first (npm run bench does)`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const baseEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME || os.homedir(),
    NODE_ENV: 'production',
    ...(process.env.PGOPTIONS ? { PGOPTIONS: process.env.PGOPTIONS } : {}),
  };
  const { child, output } = await spawnNode(GATEWAY_MAIN, {
    // BENCH_GATEWAY_ENV='{"REQUEST_LOG_FLUSH_MS":"100"}': settings to try, over the bench's own
    env: { ...baseEnv, ...env, ...gatewayEnvOverrides(), PORT: String(port), HOST: '127.0.0.1' },
    label: 'gateway',
    ready: (line) => line.includes('listening on'),
    // BENCH_START_TIMEOUT_MS (30 s): a loaded machine may need longer (migrations of a fresh schema)
    timeoutMs: START_TIMEOUT_MS,
    // e.g. BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (written when the gateway exits)
    nodeArgs: [...gatewayStartFlags(), ...(process.env.BENCH_GATEWAY_NODE_ARGS || '').split(' ').filter(Boolean)],
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const res = await fetch(`${url}/ready`).catch(() => null);
    if (res && res.status === 200) break;
    if (Date.now() > deadline)
      throw new Error(`gateway not ready within ${START_TIMEOUT_MS / 1000} s\n${output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child, pid: child.pid, output, stop: () => stopChild(child) };
}

// ---------------------------------------------------------------------------------------------
// backends

const PG_URL =
  process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
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

/**
 * Commits so far, two ways. `all`: committed transactions of the bench database
 * (pg_stat_database.xact_commit) — database-wide, read-only ones included (every statement outside a
 * transaction is one), and a backend reports its counts once it has been idle for ≈ 1 s, so read
 * this after the clients have been idle that long; the read itself counts once. `writes`:
 * transactions that were given a transaction id (the xmax of a fresh snapshot), i.e. those that
 * wrote — the commits that flush the write-ahead log, the ones the database's commit ceiling is
 * about; server-wide, so on a quiet server they are the gateway's (plus autovacuum's analyses). The
 * read itself assigns none.
 */
async function pgCommits() {
  const { Client } = require('pg');
  const c = new Client({ connectionString: PG_URL });
  await c.connect();
  try {
    const r = await c.query(
      'SELECT xact_commit, pg_snapshot_xmax(pg_current_snapshot())::text AS next_xid FROM pg_stat_database WHERE datname = current_database()',
    );
    return { all: Number(r.rows[0].xact_commit), writes: Number(r.rows[0].next_xid) };
  } finally {
    await c.end();
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
    env: {
      DATABASE_URL: PG_URL,
      DATABASE_SCHEMA: schema,
      DATABASE_POOL_SIZE: '20',
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-')),
    },
    cleanup: async () => {
      const d = new Client({ connectionString: PG_URL });
      await d.connect();
      await d.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await d.end();
      await withRedis(async (client) => {
        for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 }))
          if (keys.length) await client.del(keys);
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
      {
        url,
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        connections,
        duration,
        overallRate: rate,
        title,
      },
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

/** p50 / p90 / p99 / p99.9 / max of `times` (sorted in place). */
function stats(times) {
  times.sort((a, b) => a - b);
  return {
    n: times.length,
    p50: percentile(times, 50),
    p90: percentile(times, 90),
    p99: percentile(times, 99),
    p999: percentile(times, 99.9),
    max: times.length ? times[times.length - 1] : NaN,
  };
}

/**
 * An undici Pool to `url`'s origin for the open-loop generator and the sequential / closed-loop
 * passes. `connections` is large so the generator itself never holds requests back (with fewer
 * sockets than requests in flight undici queues them, and that wait is counted too).
 */
function loadPool(url, connections = 512, options = {}) {
  return new Pool(new URL(url).origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
    ...options,
  });
}

/** One request; resolves with { status, ms } once the whole body has arrived (never rejects). */
async function timedRequest(pool, target, startedAt) {
  try {
    const { statusCode, body } = await pool.request({
      method: 'POST',
      path: target.path,
      headers: target.headers,
      body: target.body,
    });
    await body.arrayBuffer();
    return { status: statusCode, ms: performance.now() - startedAt };
  } catch (err) {
    return { status: 0, ms: performance.now() - startedAt, error: err };
  }
}

/**
 * A load target: POST `url` with JSON `body` and `headers`; the body is serialised once.
 * `poolOptions` are passed to its undici Pool (e.g. keepAliveMaxTimeout).
 * @returns {{ pool: Pool, path: string, headers: Record<string,string>, body: string, close: () => Promise<void> }}
 */
function loadTarget(url, headers, body, connections, poolOptions) {
  const pool = loadPool(url, connections, poolOptions);
  const u = new URL(url);
  return {
    pool,
    path: u.pathname + u.search,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    close: () => pool.close(),
  };
}

function summarize(results, wallMs) {
  const times = [];
  let ok = 0;
  let failed = 0;
  let firstError;
  for (const r of results) {
    if (r.status >= 200 && r.status < 300) {
      ok++;
      times.push(r.ms);
    } else {
      failed++;
      firstError ??= r.error ? r.error.message : `HTTP ${r.status}`;
    }
  }
  const out = { ...stats(times), ok, failed, firstError, rps: ok / (wallMs / 1000), sent: results.length };
  // the sorted latencies, for mergeRuns (not enumerable: kept out of printed and saved results)
  Object.defineProperty(out, 'times', { value: times, enumerable: false });
  return out;
}

/**
 * Several open-loop runs of one target as one sample: the latencies pooled (percentiles over all of
 * them, not averaged per run), counts summed, the load generator's lag the worst of the runs, and
 * Postgres commit counts summed when every run has them.
 */
function mergeRuns(runs) {
  if (runs.length === 1) return runs[0];
  const times = runs.flatMap((r) => r.times);
  const sum = (k) => runs.reduce((a, r) => a + r[k], 0);
  const wallS = runs.reduce((a, r) => a + (r.ok ? r.ok / r.rps : 0), 0);
  const out = {
    ...stats(times),
    ok: sum('ok'),
    failed: sum('failed'),
    firstError: runs.find((r) => r.firstError)?.firstError,
    rps: wallS > 0 ? sum('ok') / wallS : 0,
    sent: sum('sent'),
    runs: runs.length,
  };
  if (runs.every((r) => r.generatorLag))
    out.generatorLag = {
      p99: Math.max(...runs.map((r) => r.generatorLag.p99)),
      max: Math.max(...runs.map((r) => r.generatorLag.max)),
    };
  if (runs.every((r) => Number.isFinite(r.commits))) {
    out.commits = sum('commits');
    out.commitsPerRequest = out.commits / out.sent;
    out.allCommits = sum('allCommits');
  }
  Object.defineProperty(out, 'times', { value: times, enumerable: false });
  return out;
}

/**
 * Open-loop load: request i is sent at t0 + i / rate whatever happened to the earlier ones, and
 * its latency is measured from that SCHEDULED time to the end of its response body, so any
 * queueing (in the gateway, the kernel, or the generator falling behind) shows in the numbers.
 * Waits for every response (or its error) before resolving.
 */
function openLoop(target, { rate, duration }) {
  const total = Math.max(1, Math.round(rate * duration));
  const interval = 1000 / rate;
  const pending = [];
  // the generator's own event-loop delay while it runs (its stalls delay sends and count as latency)
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  return new Promise((resolve) => {
    const t0 = performance.now() + 5;
    let i = 0;
    const tick = () => {
      const now = performance.now();
      while (i < total && t0 + i * interval <= now) {
        pending.push(timedRequest(target.pool, target, t0 + i * interval));
        i++;
      }
      if (i < total) setTimeout(tick, Math.max(0, t0 + i * interval - performance.now()));
      else
        Promise.all(pending).then((results) => {
          lag.disable();
          const out = summarize(results, performance.now() - t0);
          out.generatorLag = { p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 };
          resolve(out);
        });
    };
    setTimeout(tick, 5);
  });
}

/**
 * `count` requests one after another (no queueing anywhere): the per-request cost alone. With
 * `maxMs`, no request starts after that long (a loaded machine bounds the run's time, not its count).
 */
async function sequential(target, count, maxMs = Infinity) {
  const results = [];
  const t0 = performance.now();
  for (let i = 0; i < count && performance.now() - t0 < maxMs; i++)
    results.push(await timedRequest(target.pool, target, performance.now()));
  return summarize(results, performance.now() - t0);
}

/**
 * Closed loop: `concurrency` workers sending back-to-back until `count` requests are done (with
 * `maxMs`: or until that long has passed; `sent` in the result says how many were).
 */
async function closedLoop(target, { count, concurrency, maxMs = Infinity }) {
  const results = [];
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < count && performance.now() - t0 < maxMs) {
      next++;
      results.push(await timedRequest(target.pool, target, performance.now()));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return summarize(results, performance.now() - t0);
}

/**
 * Streaming: `concurrency` workers each open `rounds` SSE streams one after another (so about
 * `concurrency` streams are open at any time); per stream the time to the first body bytes (TTFB)
 * and to its end. Fails a stream that does not end with `data: [DONE]`. Worker k starts after
 * k × `staggerMs`, so with staggerMs ≈ stream length / concurrency the streams open evenly spread
 * out (steady state), not as one burst of `concurrency` requests every stream length.
 */
async function streams(target, { concurrency, rounds, staggerMs = 0 }) {
  const ttfb = [];
  const whole = [];
  let failed = 0;
  let firstError;
  const one = async () => {
    const t = performance.now();
    try {
      const { statusCode, body } = await target.pool.request({
        method: 'POST',
        path: target.path,
        headers: target.headers,
        body: target.body,
      });
      let first = NaN;
      let text = '';
      for await (const chunk of body) {
        if (Number.isNaN(first)) first = performance.now() - t;
        text += chunk.toString('utf8');
      }
      if (statusCode !== 200 || !text.trimEnd().endsWith('data: [DONE]'))
        throw new Error(`HTTP ${statusCode}: ${text.slice(0, 200)}`);
      ttfb.push(first);
      whole.push(performance.now() - t);
    } catch (err) {
      failed++;
      firstError ??= err.message;
    }
  };
  await Promise.all(
    Array.from({ length: concurrency }, async (_, k) => {
      if (staggerMs > 0) await new Promise((r) => setTimeout(r, k * staggerMs));
      for (let r = 0; r < rounds; r++) await one();
    }),
  );
  return { ttfb: stats(ttfb), whole: stats(whole), failed, firstError };
}

// ---------------------------------------------------------------------------------------------
// process readings (Linux /proc)

const CLK_TCK = 100; // USER_HZ: 100 on every Linux the bench runs on (getconf CLK_TCK)

/** user + system CPU time of process `pid` in milliseconds. */
function processCpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // after "pid (comm) ": state is field 3 → index 0; utime = field 14 → index 11, stime = 15 → 12
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** resident set size of process `pid` in MiB. */
function processRssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

// ---------------------------------------------------------------------------------------------
// sequential measuring loop over server-timing (knowledge, chat-context sections)

/** Deterministic pseudo-words: `n` words from `vocabulary`, each with a numeric suffix below `mod`. */
function words(seed, n, vocabulary, mod) {
  let x = seed;
  const out = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out.push(vocabulary[x % vocabulary.length] + (x % mod));
  }
  return out.join(' ');
}

/** JSON (or multipart when `isForm`) call with the key in both auth headers; throws on non-2xx. */
async function call(method, url, apiKey, body, isForm = false) {
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      'api-key': apiKey,
      ...(isForm || body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: isForm ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return { json, headers: res.headers };
}

/** Nearest-rank percentile (floor rank) of an unsorted array. */
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** A `server-timing` header's `<name>;dur=` value (NaN when absent). */
function serverTiming(headers, name) {
  const timing = headers.get('server-timing') ?? '';
  return Number(new RegExp(`(?:^|, )${name};dur=([\\d.]+)`).exec(timing)?.[1] ?? NaN);
}

/**
 * The measuring loop: `warmup + runs` sequential calls of `send(i)`, the first `warmup` discarded;
 * for each kept call its wall time and the named `server-timing` durations.
 * @returns {Promise<{ wall: number[], json: unknown[], [timing: string]: number[] }>}
 */
async function measureSequential({ warmup, runs, send, timings }) {
  const out = { wall: [], json: [] };
  for (const t of timings) out[t] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const t0 = performance.now();
    const r = await send(i);
    const wall = performance.now() - t0;
    if (i < warmup) continue;
    out.wall.push(wall);
    out.json.push(r.json);
    for (const t of timings) out[t].push(serverTiming(r.headers, t));
  }
  return out;
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
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

function table(rows, columns) {
  const widths = columns.map((c) => Math.max(c.title.length, ...rows.map((r) => String(r[c.key] ?? '').length)));
  const line = (cells) =>
    cells
      .map((cell, i) =>
        columns[i].align === 'left' ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]),
      )
      .join('  ');
  return [
    line(columns.map((c) => c.title)),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map((r) => line(columns.map((c) => r[c.key] ?? ''))),
  ].join('\n');
}

const ms = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const signedMs = (x) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(2)}` : 'n/a');

const toMicro = (rub) => Math.round(rub * 1_000_000);

/** The gateway bootstrap team's balance in µRUB once no reservation is open (waits up to 10 s). */
async function settledBalanceMicro(gateway) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const b = await getJson(`${gateway.url}/api/v1/balance`, { authorization: `Bearer ${gateway.apiKey}` });
    if (b.reserved_rub === 0) return toMicro(b.balance_rub);
    if (Date.now() > deadline) throw new Error(`reservations still open after 10 s: ${JSON.stringify(b)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

module.exports = {
  toMicro,
  settledBalanceMicro,
  ROOT,
  startFakeUpstream,
  startBareProxy,
  startNestFloor,
  startPortkey,
  portkeyHeaders,
  PORTKEY_POOL,
  startGateway,
  gatewayFlagsOf,
  gatewayStartFlags,
  stopChild,
  postgresReachable,
  redisReachable,
  sqliteBackend,
  postgresBackend,
  pgCommits,
  measure,
  stats,
  loadTarget,
  openLoop,
  mergeRuns,
  sequential,
  closedLoop,
  streams,
  processCpuMs,
  processRssMb,
  words,
  call,
  pct,
  serverTiming,
  measureSequential,
  getJson,
  postJson,
  table,
  ms,
  signedMs,
  PG_URL,
  REDIS_URL,
};
