#!/usr/bin/env node
/**
 * Regenerates the console screenshots shown in the README: runs the console's browser tests (which
 * save every flow's screenshots under test-results/console/) and copies the chosen ones to
 * docs/images/console/. Needs a build (`npm run build`) and Chromium (/usr/bin/chromium or CHROMIUM_PATH).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const from = path.join(root, 'test-results', 'console');
const to = path.join(root, 'docs', 'images', 'console');
const CHOSEN = [
  'overview-en-light',
  'overview-ru-dark',
  'project-api-requests-en',
  'playground-en',
  'usage-en',
  'requests-drawer-en',
  'operator-key-created-en',
];

const vitest = path.join(path.dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const r = spawnSync(
  process.execPath,
  [vitest, 'run', '--config', 'apps/console/vite.config.ts', '--project', 'browser-e2e'],
  { stdio: 'inherit', cwd: root },
);
if (r.status !== 0) process.exit(r.status ?? 1);
fs.mkdirSync(to, { recursive: true });
for (const name of CHOSEN) {
  fs.copyFileSync(path.join(from, `${name}.png`), path.join(to, `${name}.png`));
  process.stdout.write(`docs/images/console/${name}.png\n`);
}
