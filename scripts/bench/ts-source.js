/**
 * Loads a TypeScript module of the repository from its source (transpiled in memory with `typescript`, relative
 * imports followed), for bench sections that time library code without a build. Only relative imports are
 * transpiled; packages load from node_modules as usual.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

const ROOT = path.join(__dirname, '..', '..');
const cache = new Map();

function load(file) {
  const abs = path.resolve(ROOT, file);
  const resolved = fs.existsSync(abs) ? abs : fs.existsSync(`${abs}.ts`) ? `${abs}.ts` : path.join(abs, 'index.ts');
  if (cache.has(resolved)) return cache.get(resolved).exports;
  const ts = require('typescript');
  const js = ts.transpileModule(fs.readFileSync(resolved, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: resolved,
  }).outputText;
  const m = new Module(resolved);
  m.filename = resolved;
  m.paths = Module._nodeModulePaths(path.dirname(resolved));
  cache.set(resolved, m);
  const parentRequire = m.require.bind(m);
  m.require = (id) => (id.startsWith('.') ? load(path.resolve(path.dirname(resolved), id)) : parentRequire(id));
  m._compile(js, resolved);
  return m.exports;
}

module.exports = { loadTs: load };
