#!/usr/bin/env node
/**
 * The npm registry reachable here does not serve every platform build of packages with native
 * optional dependencies (@swc/core-*, @unrs/resolver-binding-*), so `npm install` writes a lock
 * file without them and `npm ci` then refuses it as "out of sync". This adds a lock entry (version,
 * os, cpu, libc, optional) for each missing platform package; npm ci skips them on any machine
 * whose platform does not match, exactly as with a complete lock.
 * Run after changing dependencies: `node scripts/lock-platform-stubs.js`.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const pkgs = lock.packages;

const OS = {
  darwin: 'darwin',
  linux: 'linux',
  win32: 'win32',
  freebsd: 'freebsd',
  android: 'android',
  openharmony: 'openharmony',
};
const CPU = {
  arm64: 'arm64',
  x64: 'x64',
  arm: 'arm',
  ia32: 'ia32',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  wasm32: 'wasm32',
};

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS[p]);
  const cpu = parts.find((p) => CPU[p]);
  const libc = parts.some((p) => p.startsWith('musl'))
    ? 'musl'
    : parts.some((p) => p === 'gnu' || p === 'gnueabihf')
      ? 'glibc'
      : null;
  return { os, cpu, libc };
}

let added = 0;
for (const [where, entry] of Object.entries(pkgs)) {
  for (const [dep, spec] of Object.entries(entry.optionalDependencies || {})) {
    const key = `node_modules/${dep}`;
    if (pkgs[key]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os || !cpu) continue; // not a platform build: leave it to npm
    pkgs[key] = {
      version: spec.replace(/^[\^~=]/, ''),
      cpu: [cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(libc ? { libc: [libc] } : {}),
      optional: true,
      os: [os],
    };
    added++;
    process.stdout.write(
      `stub ${dep}@${pkgs[key].version} (${os}/${cpu}${libc ? '/' + libc : ''}) for ${where || 'root'}\n`,
    );
  }
}
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
process.stdout.write(`${added} platform stub(s) added\n`);
