#!/usr/bin/env node
/**
 * The console's initial JavaScript: the entry script of dist/console/index.html plus every chunk it
 * imports statically (modulepreload), gzip-compressed as the server sends them. Lazy chunks (pages
 * other than the first, charts) load later and are reported apart. Fails above the 350 KB budget.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { gzipSync } = require('node:zlib');

const BUDGET_KB = 350;
const dir = path.join(__dirname, '..', 'dist', 'console');
const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
const initial = new Set();
for (const m of html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="([^"]+\.js)"/g))
  initial.add(m[1]);
const gz = (f) => gzipSync(fs.readFileSync(path.join(dir, f)), { level: 9 }).length;
const kb = (n) => (n / 1024).toFixed(1);
let initialBytes = 0;
for (const f of initial) initialBytes += gz(f);
let lazyBytes = 0;
for (const f of fs.readdirSync(path.join(dir, 'assets'))) {
  if (f.endsWith('.js') && !initial.has(`/assets/${f}`)) lazyBytes += gz(`assets/${f}`);
}
const css = fs.readdirSync(path.join(dir, 'assets')).filter((f) => f.endsWith('.css'));
const cssBytes = css.reduce((s, f) => s + gz(`assets/${f}`), 0);
process.stdout.write(
  `console: initial JS ${kb(initialBytes)} KB gzip (${initial.size} file(s), budget ${BUDGET_KB} KB); ` +
    `lazy JS ${kb(lazyBytes)} KB; CSS ${kb(cssBytes)} KB\n`,
);
if (initialBytes > BUDGET_KB * 1024) {
  process.stderr.write(`console: initial JavaScript exceeds ${BUDGET_KB} KB gzip\n`);
  process.exit(1);
}
