#!/usr/bin/env node
/**
 * npm test: every tier (unit, medium, e2e) on the embedded default (SQLite + in-process cache), then —
 * when TEST_DATABASE_URL is set — the medium and e2e tiers again on Postgres (+ Redis when
 * TEST_REDIS_URL is set). Extra arguments are passed to jest.
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

function run(label, env, args) {
  process.stdout.write(`\n=== ${label} ===\n`);
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gw-jest-')), 'report.json');
  const r = spawnSync(process.execPath, [jest, ...args, '--json', `--outputFile=${report}`, ...extra], {
    stdio: 'inherit',
    env,
  });
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
process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
