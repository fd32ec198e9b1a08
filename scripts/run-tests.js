#!/usr/bin/env node
/**
 * npm test: every tier (unit, medium, e2e) on the embedded default (SQLite + in-process cache), then —
 * when TEST_DATABASE_URL is set — the medium and e2e tiers again on Postgres (+ Redis when
 * TEST_REDIS_URL is set). Extra arguments are passed to jest. Then the web console's tests (Vitest): component
 * tests in jsdom and browser tests in Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) against the
 * built server on the embedded default; `npm run build` runs first when dist/ lacks the server or the console.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const jest = require.resolve('jest/bin/jest');
const extra = process.argv.slice(2);
const base = { ...process.env };
for (const k of ['DATABASE_URL', 'REDIS_URL', 'DATABASE_SCHEMA', 'REDIS_KEY_PREFIX', 'GW_TEST_BACKEND']) delete base[k];

const totals = { passed: 0, failed: 0, skipped: 0 };
/** one tier's wall-clock bound (default 40 min; JEST_TIER_TIMEOUT_MIN overrides) */
const TIER_TIMEOUT_MS = Number(process.env.JEST_TIER_TIMEOUT_MIN || 40) * 60_000;

function run(label, env, args) {
  process.stdout.write(`\n=== ${label} ===\n`);
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gw-jest-')), 'report.json');
  // --forceExit: once the report is written Jest exits even if a client a suite forgot to close is still open.
  // The timeout turns any other hang into a failure of this tier instead of a stalled run.
  const r = spawnSync(process.execPath, [jest, ...args, '--forceExit', '--json', `--outputFile=${report}`, ...extra], {
    stdio: 'inherit',
    env,
    timeout: TIER_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  if (r.error) process.stdout.write(`\n${label}: ${r.error.message}\n`);
  try {
    const j = JSON.parse(fs.readFileSync(report, 'utf8'));
    totals.passed += j.numPassedTests;
    totals.failed += j.numFailedTests;
    totals.skipped += j.numPendingTests + j.numTodoTests;
  } catch {
    totals.failed += r.status === 0 ? 0 : 1;
  }
  if (r.status !== 0) {
    process.stdout.write(
      `\n${label}: FAILED\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`,
    );
    process.exit(r.status ?? 1);
  }
}

run('embedded default (SQLite + in-process cache): unit, medium, e2e', { ...base, GW_TEST_BACKEND: 'embedded' }, []);
if (process.env.TEST_DATABASE_URL) {
  const what = process.env.TEST_REDIS_URL ? 'Postgres + Redis' : 'Postgres';
  run(`${what}: medium, e2e`, { ...base, GW_TEST_BACKEND: 'postgres' }, ['--selectProjects', 'medium', 'e2e']);
} else {
  process.stdout.write('\nTEST_DATABASE_URL not set: Postgres/Redis pass skipped (suites ran on SQLite + memory).\n');
}

function runConsole() {
  process.stdout.write(
    '\n=== web console: component tests (jsdom) and browser tests (Chromium, embedded default) ===\n',
  );
  const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!fs.existsSync(chromium)) {
    process.stdout.write(
      `\nChromium is missing at ${chromium}: the console's browser tests need it (apt-get install -y chromium, or set CHROMIUM_PATH).\n`,
    );
    process.exit(1);
  }
  const root = path.join(__dirname, '..');
  const built = ['dist/apps/api/src/main.js', 'dist/console/index.html'].every((f) =>
    fs.existsSync(path.join(root, f)),
  );
  if (!built) {
    process.stdout.write('dist/ lacks the server or the console: npm run build\n');
    const b = spawnSync('npm', ['run', '-s', 'build'], { stdio: 'inherit', cwd: root });
    if (b.status !== 0) process.exit(b.status ?? 1);
  }
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gw-vitest-')), 'report.json');
  const vitest = path.join(path.dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
  const r = spawnSync(
    process.execPath,
    [
      vitest,
      'run',
      '--config',
      'apps/console/vite.config.ts',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
    ],
    { stdio: 'inherit', cwd: root, env: base, timeout: TIER_TIMEOUT_MS, killSignal: 'SIGKILL' },
  );
  if (r.error) process.stdout.write(`\nweb console: ${r.error.message}\n`);
  try {
    const j = JSON.parse(fs.readFileSync(report, 'utf8'));
    totals.passed += j.numPassedTests;
    totals.failed += j.numFailedTests;
    totals.skipped += j.numPendingTests + (j.numTodoTests ?? 0);
  } catch {
    totals.failed += r.status === 0 ? 0 : 1;
  }
  if (r.status !== 0) {
    process.stdout.write(
      `\nweb console: FAILED\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`,
    );
    process.exit(r.status ?? 1);
  }
}
runConsole();
process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
