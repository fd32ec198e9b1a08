#!/usr/bin/env node
/**
 * `npm run bench` (builds first): the BUILT gateway (dist/apps/api/src/main.js) as a child process
 * in front of a minimal OpenAI-compatible fake upstream (another child process), loaded with
 * autocannon on loopback at a fixed rate. Runs on SQLite (embedded) and — when reachable — on
 * Postgres + Redis (fresh schema and key prefix, removed afterwards).
 *
 * Sections: every `scripts/bench/sections/*.js` runs in file-name order against the same gateway
 * (add e.g. `20-rerank.js` exporting `{ name, title, run(ctx) }`; see BenchContext below and
 * 10-chat-completions.js). `run` returns `{ rows, comparison?, checks }`: rows are printed in one
 * table per section; a comparison `{ ratio, addedP50, addedP99, serialAddedP50?, serialAddedP99?,
 * meetsTarget, target }` (or `note` instead of a target) adds a gateway-vs-direct line per backend. A section may also export
 * `report(results, lib, log)`: called once at the end with its `{ backend, ...run() }` results of
 * every backend, for a summary of its own (05-overhead.js prints the overhead table there).
 *
 * Settings (env): BENCH_RATE (500 req/s; also the overhead section's moderate rate, 200 there when unset), BENCH_CONNECTIONS (20), BENCH_DURATION (10 s),
 * BENCH_WARMUP (3 s), BENCH_LOG_LEVEL (the gateway's LOG_LEVEL, default info: access log on), BENCH_LOW_RATE (50 req/s on 1 connection, 0 = skip that serial pass), BENCH_LOW_DURATION (4 s), BENCH_BACKENDS ("sqlite,postgres"), BENCH_SECTIONS (comma-separated names;
 * default all), BENCH_DATABASE_URL / BENCH_REDIS_URL (default TEST_* or local defaults), BENCH_START_TIMEOUT_MS (30 s: how long
 * a gateway child may take to start).
 * Exit code 1 when a check fails (errors, billing not moving); latency targets are reported only.
 *
 * @typedef {object} BenchContext
 * @property {{ name: string, label: string, env: Record<string, string> }} backend   env: the backend's settings given to the gateway (DATA_DIR, DATABASE_URL, DATABASE_SCHEMA, …)
 * @property {{ url: string, apiKey: string, adminToken: string, pid: number }} gateway   bootstrap key with a large balance; pid of the gateway child
 * @property {(env?: Record<string, string>) => Promise<{ url: string, pid: number, stop: () => Promise<void> }>} startGateway   another gateway child on a fresh backend of the same kind (new SQLite directory, or new Postgres schema and Redis prefix), same keys and settings plus `env`, for a section that needs a fresh process; the section stops it (which removes that backend)
 * @property {{ url: string, apiKey: string, usage: { prompt_tokens: number, completion_tokens: number } }} upstream
 * @property {{ rate: number, connections: number, duration: number, warmup: number, lowRate: number, lowDuration: number }} settings
 * @property {typeof import('./bench/lib')} lib
 * @property {(line: string) => void} log
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const lib = require('./bench/lib');
const { API_KEY: UPSTREAM_KEY, USAGE } = require('./bench/fake-upstream');

const num = (name, dflt) => {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number`);
  return v;
};
const settings = {
  rate: num('BENCH_RATE', 500),
  connections: num('BENCH_CONNECTIONS', 20),
  duration: num('BENCH_DURATION', 10),
  warmup: num('BENCH_WARMUP', 3),
  /** informational serial pass on one connection (gateway overhead without queueing); BENCH_LOW_RATE=0 skips it */
  lowRate: Number(process.env.BENCH_LOW_RATE ?? 50),
  lowDuration: num('BENCH_LOW_DURATION', 4),
};
const wantedBackends = (process.env.BENCH_BACKENDS || 'sqlite,postgres').split(',').map((s) => s.trim());
const wantedSections = process.env.BENCH_SECTIONS ? process.env.BENCH_SECTIONS.split(',').map((s) => s.trim()) : null;

const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const BOOTSTRAP_KEY = 'sk-bench-bootstrap-key-000000000000';
const log = (line = '') => process.stdout.write(`${line}\n`);

function loadSections() {
  const dir = path.join(__dirname, 'bench', 'sections');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => require(path.join(dir, f)))
    .filter((s) => !wantedSections || wantedSections.includes(s.name));
}

async function backends() {
  const out = [];
  if (wantedBackends.includes('sqlite')) out.push(() => lib.sqliteBackend());
  if (wantedBackends.includes('postgres')) {
    const [pg, redis] = await Promise.all([lib.postgresReachable(), lib.redisReachable()]);
    if (pg && redis) out.push(() => lib.postgresBackend());
    else
      log(
        `Postgres + Redis skipped: ${pg ? '' : `Postgres (${lib.PG_URL}) unreachable `}${redis ? '' : `Redis (${lib.REDIS_URL}) unreachable`}`.trim(),
      );
  }
  return out;
}

/** The gateway's environment on a backend: admin token, bootstrap key and the fake upstream. */
function gatewayEnv(backendEnv, upstream) {
  return {
    ...backendEnv,
    ADMIN_TOKEN,
    BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    BOOTSTRAP_BALANCE_RUB: '1000000',
    OPENAI_API_KEY: UPSTREAM_KEY,
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    ANTHROPIC_API_KEY: UPSTREAM_KEY,
    ANTHROPIC_BASE_URL: upstream.url,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info', // the normal config: one access-log line per request
    SHUTDOWN_GRACE_MS: '2000',
  };
}

async function main() {
  const started = Date.now();
  const sections = loadSections();
  log(
    `bench: ${sections.map((s) => s.name).join(', ')} | ${settings.rate} req/s, ${settings.connections} connections, ${settings.duration} s (+${settings.warmup} s warm-up) | node ${process.version}, ${require('node:os').cpus().length} CPUs`,
  );
  const upstream = await lib.startFakeUpstream();
  const results = [];
  let failed = false;
  try {
    for (const makeBackend of await backends()) {
      const backend = await makeBackend();
      log(`\n=== ${backend.label} ===`);
      let gw;
      try {
        gw = await lib.startGateway(gatewayEnv(backend.env, upstream));
        const ctx = {
          backend: { name: backend.name, label: backend.label, env: backend.env },
          gateway: { url: gw.url, apiKey: BOOTSTRAP_KEY, adminToken: ADMIN_TOKEN, pid: gw.pid },
          startGateway: async (env = {}) => {
            const fresh = backend.name === 'sqlite' ? lib.sqliteBackend() : await lib.postgresBackend();
            const other = await lib.startGateway({ ...gatewayEnv(fresh.env, upstream), ...env });
            return {
              ...other,
              stop: async () => {
                await other.stop();
                await fresh.cleanup();
              },
            };
          },
          upstream: { url: upstream.url, apiKey: UPSTREAM_KEY, usage: USAGE },
          settings,
          lib,
          log,
        };
        for (const section of sections) {
          log(`-- ${section.title}`);
          const r = await section.run(ctx);
          if (r.checks.some((c) => !c.ok)) failed = true;
          results.push({ section, backend, ...r });
        }
      } finally {
        if (gw) await gw.stop();
        await backend.cleanup();
      }
    }
  } finally {
    await upstream.stop();
  }

  log('\n=== results ===');
  for (const section of sections) {
    const mine = results.filter((r) => r.section === section);
    if (!mine.length) continue;
    log(`\n${section.title}`);
    const rows = mine.flatMap((r) =>
      r.rows.map((row) => ({
        backend: r.backend.label,
        target: row.target,
        rps: row.rps.toFixed(1),
        p50: lib.ms(row.p50),
        p99: lib.ms(row.p99),
        max: lib.ms(row.max),
        failures: row.non2xx + row.errors + row.timeouts,
      })),
    );
    log(
      lib.table(rows, [
        { key: 'backend', title: 'backend', align: 'left' },
        { key: 'target', title: 'target', align: 'left' },
        { key: 'rps', title: 'req/s' },
        { key: 'p50', title: 'p50 ms' },
        { key: 'p99', title: 'p99 ms' },
        { key: 'max', title: 'max ms' },
        { key: 'failures', title: 'non-2xx/err' },
      ]),
    );
    if (section.report) section.report(mine, lib, log);
    const comparisons = mine.filter((r) => r.comparison);
    if (comparisons.length) {
      log('');
      log(
        lib.table(
          comparisons.map((r) => ({
            backend: r.backend.label,
            ratio: r.comparison.ratio.toFixed(3),
            p50: lib.signedMs(r.comparison.addedP50),
            p99: lib.signedMs(r.comparison.addedP99),
            sp50: lib.signedMs(r.comparison.serialAddedP50),
            sp99: lib.signedMs(r.comparison.serialAddedP99),
            verdict: r.comparison.target
              ? `${r.comparison.meetsTarget ? 'meets' : 'MISSES'} target (${r.comparison.target})`
              : (r.comparison.note ?? ''),
          })),
          [
            { key: 'backend', title: 'backend', align: 'left' },
            { key: 'ratio', title: 'req/s gateway/direct' },
            { key: 'p50', title: 'added p50 ms' },
            { key: 'p99', title: 'added p99 ms' },
            { key: 'sp50', title: 'serial added p50' },
            { key: 'sp99', title: 'serial added p99' },
            { key: 'verdict', title: 'target (at full rate) / note', align: 'left' },
          ],
        ),
      );
    }
  }
  log(
    `\nchecks: ${failed ? 'SOME FAILED (see above)' : 'all passed'} | total ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  process.exitCode = failed ? 1 : 0;
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 1;
});
