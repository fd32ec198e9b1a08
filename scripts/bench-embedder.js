#!/usr/bin/env node
/**
 * Micro-benchmark of the offline LexicalEmbedder (libs/providers/src/local/lexical-embedder.ts).
 *
 *   node scripts/bench-embedder.js [sentences=50000] [dimensions=1536]
 *
 * Loads the TypeScript source directly (transpiled in memory with the `typescript` dev dependency,
 * `@app/<lib>/<file>` imports resolved to the libraries' sources),
 * so no build is needed; falls back to the compiled file under dist/ when `typescript` is absent.
 * Prints one JSON line; exits 1 when below the 20,000 sentences/s target.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const source = path.join(root, 'libs/providers/src/local/lexical-embedder.bench.ts');
const compiled = path.join(root, 'dist/libs/providers/src/local/lexical-embedder.bench.js');
const TARGET_PER_SECOND = 20000;

function loadBench() {
  let ts = null;
  try {
    ts = require('typescript');
  } catch {
    ts = null;
  }
  if (ts === null) return require(compiled);
  const previous = require.extensions['.ts'];
  require.extensions['.ts'] = (module, filename) => {
    const text = fs.readFileSync(filename, 'utf8');
    const out = ts.transpileModule(text, {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    // path aliases (@app/<lib>/<file>) → the library's TypeScript source
    const code = out.outputText.replace(
      /require\("@app\/([\w-]+)\/([^"]+)"\)/g,
      (_, lib, file) => `require(${JSON.stringify(path.join(root, 'libs', lib, 'src', file))})`,
    );
    module._compile(code, filename);
  };
  try {
    return require(source);
  } finally {
    if (previous) require.extensions['.ts'] = previous;
    else delete require.extensions['.ts'];
  }
}

const n = Number.parseInt(process.argv[2] ?? '50000', 10);
const dimensions = Number.parseInt(process.argv[3] ?? '1536', 10);
const { benchLexicalEmbedder, LexicalEmbedder } = loadBench();
const result = benchLexicalEmbedder(new LexicalEmbedder(), n, dimensions);
console.log(
  JSON.stringify({
    bench: 'lexical-embedder',
    ...result,
    elapsedMs: Math.round(result.elapsedMs),
    target: TARGET_PER_SECOND,
  }),
);
if (result.perSecond < TARGET_PER_SECOND) process.exitCode = 1;
