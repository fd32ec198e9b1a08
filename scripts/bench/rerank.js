#!/usr/bin/env node
/**
 * Rerank bench: POST /api/v1/rerank with 1,000 documents × 1536 dimensions against the
 * BUILT gateway (dist/apps/api/src/main.js, a child process) in front of a minimal inline
 * OpenAI-compatible embeddings upstream (plain node:http in this process: deterministic base64
 * float32 vectors, usage = whitespace word counts).
 *
 * Per backend (SQLite + in-process cache; Postgres + Redis when reachable) it starts its own
 * gateway on a fresh database / key prefix and reports:
 *   - cold (cache miss, embeddings fetched and stored): client latency and the gateway's own
 *     `processing_time_seconds`, median of COLD_RUNS distinct contents;
 *   - cache hit on the same 1,000 documents: both figures, median of HIT_RUNS (target: server
 *     time ≤ 15 ms; reported, not enforced);
 *   - memory per cached document: cache-stats total_bytes / documents held, the gateway's RSS
 *     delta (`ps -o rss`) across the fill, and Redis `used_memory` delta for the Redis backend;
 * and once: the cosine loop alone over 1,000 × 1536 (compiled dist/libs/rerank/src/engine/scoring.js).
 * Checks (exit code 1 in bench.js when one fails): every call 200, miss → stored, hit → only the
 * query embedded and billed (exact cost), cache-stats bytes = entries × 1000 × 1536 × 4.
 *
 * Used as a bench.js section (scripts/bench/sections/20-rerank.js) or alone:
 *   node scripts/bench/rerank.js            (needs `npm run build` first)
 *   BENCH_BACKENDS=sqlite node scripts/bench/rerank.js
 */
'use strict';
const http = require('node:http');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const lib = require('./lib');

const DOCS = 1000;
const DIMS = 1536;
const COLD_RUNS = Number(process.env.BENCH_RERANK_COLD_RUNS || 8);
const HIT_RUNS = Number(process.env.BENCH_RERANK_HIT_RUNS || 20);
const TARGET_HIT_SERVER_MS = 15;
const PRICE_SMALL_MICRO_PER_TOKEN = 200; // the catalog price of text-embedding-3-small: 200 RUB per 1M tokens
const UPSTREAM_KEY = 'sk-bench-embeddings-upstream';
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const API_KEY = 'sk-bench-rerank-bootstrap-key-0000000000';
const QUERY = 'how do I rotate the api keys used by the billing service';

// ---------------------------------------------------------------------------------------------
// deterministic data

const VOCAB = (
  'api key rotate billing service invoice account user password reset token session cache database ' +
  'backup restore region cluster node replica latency throughput request response error retry timeout ' +
  'limit quota balance ledger charge refund payment currency ruble report monthly daily weekly export ' +
  'import schema migration index query document chunk table column row embedding vector model small large ' +
  'rerank score threshold search project knowledge base link file image upload download storage bucket policy ' +
  'team member role admin audit log metric alert dashboard deploy release version rollback config secret'
).split(' ');

function lcg(seed) {
  let s = seed >>> 0 || 1;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

/** 1,000 documents of 40 words (~300 characters); `salt` changes document 0 only. */
function makeDocs(salt) {
  const rnd = lcg(12345);
  return Array.from({ length: DOCS }, (_, i) => {
    const words = Array.from({ length: 40 }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]);
    const data = (i === 0 ? `variant ${salt} ` : '') + words.join(' ');
    return { id: `doc-${i}`, data, metadata: { n: i } };
  });
}

function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Deterministic L2-normalised float32 vector of `text`, as base64 little-endian bytes. */
function vectorBase64(text, dims) {
  let s = fnv1a(text) || 1;
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const x = ((s >>> 0) / 4294967296) * 2 - 1;
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i] /= norm;
  return Buffer.from(v.buffer).toString('base64'); // x86/ARM hosts are little-endian
}

const words = (t) => t.split(/\s+/).filter(Boolean).length;

// ---------------------------------------------------------------------------------------------
// inline fake upstream: POST /v1/embeddings only

function startEmbeddingsUpstream() {
  const memo = new Map();
  const stats = { requests: 0, inputs: 0 };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (status, body) => {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      };
      if (req.headers.authorization !== `Bearer ${UPSTREAM_KEY}`)
        return send(
          401,
          JSON.stringify({
            error: { message: 'bad key', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
          }),
        );
      if (req.method !== 'POST' || req.url !== '/v1/embeddings')
        return send(
          404,
          JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error', param: null, code: null } }),
        );
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(
          400,
          JSON.stringify({ error: { message: 'bad json', type: 'invalid_request_error', param: null, code: null } }),
        );
      }
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      const dims = body.dimensions || DIMS;
      stats.requests++;
      stats.inputs += input.length;
      let tokens = 0;
      const data = input.map((text, index) => {
        const key = `${dims}:${text}`;
        let b64 = memo.get(key);
        if (b64 === undefined) {
          b64 = vectorBase64(text, dims);
          memo.set(key, b64);
        }
        tokens += Math.max(1, words(text));
        return `{"object":"embedding","index":${index},"embedding":"${b64}"}`;
      });
      send(
        200,
        `{"object":"list","data":[${data.join(',')}],"model":"${body.model}","usage":{"prompt_tokens":${tokens},"total_tokens":${tokens}}}`,
      );
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        stats,
        stop: () => new Promise((r) => server.close(() => r()) && server.closeAllConnections()),
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// measurement helpers

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN;
};

function rssBytes(pid) {
  try {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024;
  } catch {
    return NaN;
  }
}

async function redisUsedMemory() {
  const { createClient } = require('@redis/client');
  const client = createClient({ url: lib.REDIS_URL, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const info = await client.info('memory');
    const m = /used_memory:(\d+)/.exec(info);
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  } finally {
    client.destroy();
  }
}

async function rerankOnce(url, body) {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/v1/rerank`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-key': API_KEY },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  return { status: res.status, body: json, clientMs: performance.now() - t0 };
}

let cosineFigures = null;
/** The cosine loop alone (compiled engine), 1,000 × 1536, median of 20 after warm-up. */
function measureCosine() {
  if (cosineFigures) return cosineFigures;
  const scoring = require(path.join(lib.ROOT, 'dist/libs/rerank/src/engine/scoring.js'));
  const rnd = lcg(7);
  const vec = () => Float32Array.from({ length: DIMS }, () => rnd() * 2 - 1);
  const q = vec();
  const vectors = Array.from({ length: DOCS }, vec);
  const items = vectors.map((_, i) => ({ id: String(i), data: `d${i}`, metadata: {} }));
  const loop = [];
  const rank = [];
  let sink = 0;
  for (let r = 0; r < 25; r++) {
    let t0 = performance.now();
    for (const v of vectors) sink += scoring.cosine(q, v);
    const a = performance.now() - t0;
    t0 = performance.now();
    sink += scoring.rankResults(items, q, vectors, { threshold: 0, topK: 10 }).returned_documents;
    const b = performance.now() - t0;
    if (r >= 5) {
      loop.push(a);
      rank.push(b);
    }
  }
  if (Number.isNaN(sink)) throw new Error('unreachable');
  cosineFigures = { loopMs: median(loop), rankMs: median(rank) };
  return cosineFigures;
}

// ---------------------------------------------------------------------------------------------
// the section

/** @param {import('../bench').BenchContext | { backend: { name: string, label: string }, log: (l: string) => void }} ctx */
async function run(ctx) {
  const log = ctx.log || ((l) => process.stdout.write(`${l}\n`));
  const checks = [];
  const check = (ok, text) => {
    checks.push({ ok, text });
    log(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
  };
  const backendName = ctx.backend && ctx.backend.name === 'postgres' ? 'postgres' : 'sqlite';
  const backend = backendName === 'postgres' ? await lib.postgresBackend() : lib.sqliteBackend();
  const upstream = await startEmbeddingsUpstream();
  let gw;
  try {
    gw = await lib.startGateway({
      ...backend.env,
      ADMIN_TOKEN,
      BOOTSTRAP_API_KEY: API_KEY,
      BOOTSTRAP_BALANCE_RUB: '1000000',
      OPENAI_API_KEY: UPSTREAM_KEY,
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '2000',
    });
    const statsUrl = `${gw.url}/api/v1/rerank/cache-stats`;
    const stats0 = await lib.getJson(statsUrl, { 'api-key': API_KEY });
    const cacheBackend = stats0.backend;
    log(
      `  gateway pid ${gw.child.pid}, cache backend: ${cacheBackend}; ${DOCS} documents × ${DIMS} dims, ${COLD_RUNS} cold runs, ${HIT_RUNS} hits`,
    );

    // warm the gateway's code paths (JIT, tokenizer, DB) on small content, uncached
    for (let i = 0; i < 3; i++)
      await rerankOnce(gw.url, { query: QUERY, content: makeDocs(`warm-${i}`).slice(0, 50), caching: false });

    // cold: distinct contents → miss, embeddings fetched and stored
    const rss0 = rssBytes(gw.child.pid);
    const redis0 = cacheBackend === 'redis' ? await redisUsedMemory() : NaN;
    const cold = [];
    let coldOk = true;
    let lastDocs;
    for (let i = 0; i < COLD_RUNS; i++) {
      lastDocs = makeDocs(`${backendName}-${i}`);
      const r = await rerankOnce(gw.url, { query: QUERY, content: lastDocs });
      coldOk =
        coldOk && r.status === 200 && r.body.cache_info.cache_status === 'stored' && r.body.usage.document_tokens > 0;
      cold.push(r);
    }
    check(coldOk, `cold: ${COLD_RUNS} × 200, cache_status "stored", documents embedded and billed`);
    const rss1 = rssBytes(gw.child.pid);
    const redis1 = cacheBackend === 'redis' ? await redisUsedMemory() : NaN;
    const stats1 = await lib.getJson(statsUrl, { 'api-key': API_KEY });
    const docsHeld = stats1.entries * DOCS;
    check(
      stats1.entries === COLD_RUNS && stats1.total_bytes === COLD_RUNS * DOCS * DIMS * 4,
      `cache-stats: ${stats1.entries} entries, total_bytes ${stats1.total_bytes} = ${COLD_RUNS} × ${DOCS} × ${DIMS} × 4`,
    );

    // hits on the last content: only the query is embedded and billed
    const requestsBefore = upstream.stats.requests;
    const inputsBefore = upstream.stats.inputs;
    for (let i = 0; i < 3; i++) await rerankOnce(gw.url, { query: QUERY, content: lastDocs }); // warm the hit path
    const hits = [];
    for (let i = 0; i < HIT_RUNS; i++) hits.push(await rerankOnce(gw.url, { query: QUERY, content: lastDocs }));
    const qTokens = words(QUERY);
    const hitOk = hits.every(
      (r) =>
        r.status === 200 &&
        r.body.cache_info.cache_hit === true &&
        r.body.usage.document_tokens === 0 &&
        r.body.usage.query_tokens === qTokens &&
        Math.round(r.body.usage.cost_rub * 1e6) === qTokens * PRICE_SMALL_MICRO_PER_TOKEN,
    );
    check(hitOk, `hits: ${HIT_RUNS} × 200, cache_hit, document_tokens 0, cost = ${qTokens} query tokens × 200 µRUB`);
    const upstreamCalls = upstream.stats.requests - requestsBefore;
    const upstreamInputs = upstream.stats.inputs - inputsBefore;
    check(
      upstreamCalls === HIT_RUNS + 3 && upstreamInputs === HIT_RUNS + 3,
      `hits: the upstream saw only the query (${upstreamCalls} calls, ${upstreamInputs} inputs for ${HIT_RUNS + 3} requests)`,
    );
    const same = hits.every(
      (r) => JSON.stringify(r.body.results) === JSON.stringify(cold[cold.length - 1].body.results),
    );
    check(same, 'hits return the same ranking as the miss that filled the entry');

    const cos = measureCosine();
    const coldServer = cold.map((r) => r.body.processing_time_seconds * 1000);
    const coldClient = cold.map((r) => r.clientMs);
    const hitServer = hits.map((r) => r.body.processing_time_seconds * 1000);
    const hitClient = hits.map((r) => r.clientMs);
    const hitServerP50 = median(hitServer);
    const figures = {
      backend: ctx.backend ? ctx.backend.label : backend.label,
      cache: cacheBackend,
      coldServerP50: median(coldServer),
      coldClientP50: median(coldClient),
      hitServerP50,
      hitServerP90: pct(hitServer, 90),
      hitClientP50: median(hitClient),
      cosineLoopMs: cos.loopMs,
      rankMs: cos.rankMs,
      bytesPerDocStats: stats1.total_bytes / docsHeld,
      rssPerDoc: (rss1 - rss0) / docsHeld,
      redisPerDoc: (redis1 - redis0) / docsHeld,
      meetsTarget: hitServerP50 <= TARGET_HIT_SERVER_MS,
    };
    printFigures(log, figures);
    const row = (target, xs) => ({
      target,
      rps: 1000 / (xs.reduce((a, b) => a + b, 0) / xs.length),
      p50: median(xs),
      p99: pct(xs, 99),
      max: Math.max(...xs),
      non2xx: 0,
      errors: 0,
      timeouts: 0,
    });
    return {
      rows: [
        row(`rerank ${DOCS}×${DIMS} cold (miss), sequential`, coldClient),
        row(`rerank ${DOCS}×${DIMS} cache hit, sequential`, hitClient),
      ],
      checks,
      figures,
    };
  } finally {
    if (gw) await gw.stop();
    await upstream.stop();
    await backend.cleanup();
  }
}

function printFigures(log, f) {
  const ms = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
  const bytes = (x) => (Number.isFinite(x) ? `${Math.round(x)}` : 'n/a');
  const rows = [
    { what: 'cold (miss: embed + store), median', server: ms(f.coldServerP50), client: ms(f.coldClientP50) },
    { what: 'cache hit, median', server: ms(f.hitServerP50), client: ms(f.hitClientP50) },
    { what: 'cache hit, p90', server: ms(f.hitServerP90), client: '' },
    { what: `cosine loop alone (${DOCS} × ${DIMS})`, server: ms(f.cosineLoopMs), client: '' },
    { what: 'cosine + threshold + sort (rankResults)', server: ms(f.rankMs), client: '' },
  ];
  log('');
  log(
    lib
      .table(rows, [
        { key: 'what', title: `rerank, ${f.backend} (cache: ${f.cache})`, align: 'left' },
        { key: 'server', title: 'server ms' },
        { key: 'client', title: 'client ms' },
      ])
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n'),
  );
  const mem = [
    { what: 'cache-stats total_bytes / cached document', value: bytes(f.bytesPerDocStats) },
    { what: 'gateway RSS delta / cached document', value: bytes(f.rssPerDoc) },
  ];
  if (f.cache === 'redis') mem.push({ what: 'Redis used_memory delta / cached document', value: bytes(f.redisPerDoc) });
  log('');
  log(
    lib
      .table(mem, [
        { key: 'what', title: 'memory per cached document', align: 'left' },
        { key: 'value', title: 'bytes' },
      ])
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n'),
  );
  log(
    `  target: cache hit on ${DOCS} × ${DIMS} ≤ ${TARGET_HIT_SERVER_MS} ms server time → ${f.meetsTarget ? 'meets' : 'MISSES'} (median ${ms(f.hitServerP50)} ms)`,
  );
  log('');
}

module.exports = {
  name: 'rerank',
  title: `POST /api/v1/rerank, ${DOCS} documents × ${DIMS}: cold vs cache hit, cosine loop, memory per cached document`,
  run,
};

if (require.main === module) {
  (async () => {
    const started = Date.now();
    const log = (l = '') => process.stdout.write(`${l}\n`);
    const wanted = (process.env.BENCH_BACKENDS || 'sqlite,postgres').split(',').map((s) => s.trim());
    const backends = [];
    if (wanted.includes('sqlite')) backends.push({ name: 'sqlite', label: 'SQLite (embedded)' });
    if (wanted.includes('postgres')) {
      if ((await lib.postgresReachable()) && (await lib.redisReachable()))
        backends.push({ name: 'postgres', label: 'Postgres + Redis' });
      else log(`Postgres + Redis skipped: ${lib.PG_URL} / ${lib.REDIS_URL} unreachable`);
    }
    let failed = false;
    for (const backend of backends) {
      log(`=== ${backend.label} ===`);
      const r = await run({ backend, log });
      if (r.checks.some((c) => !c.ok)) failed = true;
    }
    log(`checks: ${failed ? 'SOME FAILED' : 'all passed'} | total ${((Date.now() - started) / 1000).toFixed(1)} s`);
    process.exitCode = failed ? 1 : 0;
  })().catch((err) => {
    process.stderr.write(`rerank bench failed: ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  });
}
