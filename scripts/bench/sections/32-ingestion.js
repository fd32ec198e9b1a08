/**
 * Bench section: ingestion memory and throughput through the knowledge-base REST API, on the local
 * embedder (no provider needed), with deterministic documents (scripts/bench/ingestion-docs.js).
 *  1. memory: one ~10 MB document of each type (HTML, text, PDF, and by default also Markdown, CSV,
 *     JSON, DOCX), each in a fresh gateway child on a fresh backend of the same kind (after a small
 *     warm-up document); that child's RSS (/proc/<pid>/status VmRSS) sampled every 50 ms until the
 *     document is completed; peak growth over the RSS before the upload, against ≤ 300 MB;
 *     meanwhile `/health` is asked every 50 ms on a fresh connection: its p99 and worst answer time
 *     against ≤ 100 ms (no request may wait longer than that behind an ingestion);
 *  2. throughput: a mixed set (BENCH_INGEST_MIXED, default 2 × each type × 1 MB) uploaded at once;
 *     wall time from the first upload until every document is completed, MB/s against ≥ 2 MB/s.
 * BENCH_INGEST_TYPES narrows step 1 (e.g. "html,text,pdf"; "none" skips it); BENCH_INGEST_MB sets its size (10).
 */
'use strict';
const fs = require('node:fs');
const { call, pct } = require('../lib');
const { makeDocument, KINDS } = require('../ingestion-docs');

const TARGET_GROWTH_MB = 300;
const TARGET_MB_PER_S = 2;
/** the longest a request may wait behind an ingestion (measured on /health) */
const TARGET_HEALTH_MS = 100;
const MB = 1_000_000;

const rssMb = (pid) => {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
};

/** Asks `base`/health every 50 ms on a fresh connection until stopped; answers the times (ms), sorted. */
function healthPoller(base) {
  const times = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${base}/health`, { headers: { connection: 'close' } }).catch(() => null);
      if (res) await res.arrayBuffer().catch(() => null);
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return times.sort((a, b) => a - b);
    },
  };
}

/** Samples the RSS of `pid` every 50 ms until stopped; answers the peak. */
function sampler(pid) {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    const v = rssMb(pid);
    if (v > peak) peak = v;
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      const v = rssMb(pid);
      return v > peak ? v : peak;
    },
  };
}

async function upload(base, key, kb, doc) {
  const form = new FormData();
  form.append('file', new Blob([doc.bytes], { type: doc.type }), doc.name);
  return (await call('POST', `${base}/api/v1/knowledge-bases/${kb}/documents`, key, form, true)).json.id;
}

/**
 * Polls the knowledge base's document list (one request a poll, as a console or a client waiting
 * for its uploads would) until none of `ids` is queued or in progress; answers them. Polling each
 * document every 50 ms cost the gateway a request per document per poll, CPU the ingestion measured
 * here then shares.
 */
async function settle(base, key, kb, ids, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  const wanted = new Set(ids);
  for (;;) {
    const done = new Map();
    for (let after = ''; ;) {
      const page = (
        await call('GET', `${base}/api/v1/knowledge-bases/${kb}/documents?limit=100${after && `&after=${after}`}`, key)
      ).json;
      for (const d of page.data) {
        if (wanted.has(d.id) && d.status !== 'queued' && d.status !== 'in_progress') done.set(d.id, d);
      }
      if (!page.has_more || page.data.length === 0) break;
      after = page.data[page.data.length - 1].id;
    }
    if (done.size === ids.length) return ids.map((id) => done.get(id));
    if (Date.now() > deadline) throw new Error(`documents still ingesting after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const newKb = async (base, key, name) =>
  (await call('POST', `${base}/api/v1/knowledge-bases`, key, { name, embedding_model: 'local-embedding-small' })).json
    .id;

module.exports = {
  name: 'ingestion',
  title: `Ingestion: peak RSS growth per ~10 MB document type (≤ ${TARGET_GROWTH_MB} MB), /health while it ingests (≤ ${TARGET_HEALTH_MS} ms) and MB/s of a mixed set (≥ ${TARGET_MB_PER_S} MB/s)`,

  /** @param {import('../../bench').BenchContext} ctx */
  async run(ctx) {
    const { gateway, log } = ctx;
    const base = gateway.url;
    const key = gateway.apiKey;
    const checks = [];
    const check = (ok, text) => {
      checks.push({ ok, text });
      log(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
    };
    const rows = [];
    const size = Number(process.env.BENCH_INGEST_MB || 10) * MB;
    const kinds = (process.env.BENCH_INGEST_TYPES === 'none' ? '' : process.env.BENCH_INGEST_TYPES || KINDS.join(','))
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);

    // 1. memory: each document alone in a fresh gateway (its own backend), so memory one document
    //    leaves behind (heap high-water marks) does not hide or inflate another's
    const memory = [];
    for (const kind of kinds) {
      const doc = await makeDocument(kind, size);
      const gw = await ctx.startGateway();
      let res;
      let seconds;
      let idle;
      let peak;
      let health = [];
      try {
        const kb = await newKb(gw.url, key, `bench-ingest-${kind}`);
        // a warm-up document: the parser workers, tokenizer tables and embedder are loaded lazily
        const warm = await upload(gw.url, key, kb, {
          name: 'warm.txt',
          type: 'text/plain',
          bytes: Buffer.from('Warm-up text for the parser workers.'),
        });
        await settle(gw.url, key, kb, [warm], 60_000);
        await new Promise((r) => setTimeout(r, 500));
        idle = rssMb(gw.pid);
        const s = sampler(gw.pid);
        const h = healthPoller(gw.url);
        const t0 = performance.now();
        const id = await upload(gw.url, key, kb, doc);
        [res] = await settle(gw.url, key, kb, [id], 600_000);
        seconds = (performance.now() - t0) / 1000;
        peak = s.stop();
        health = await h.stop();
      } finally {
        await gw.stop();
      }
      const growth = peak - idle;
      const healthP99 = pct(health, 99) ?? NaN;
      const healthMax = health.length ? health[health.length - 1] : NaN;
      memory.push({ kind, growth, completed: res.status === 'completed', healthP99, healthMax });
      check(
        res.status === 'completed',
        `${kind}: ${(doc.bytes.length / MB).toFixed(1)} MB ${res.status}${res.last_error ? ` (${res.last_error.code})` : ''}, ${res.chunks} chunks in ${seconds.toFixed(1)} s`,
      );
      log(
        `  ${kind}: peak RSS ${peak.toFixed(0)} MB, growth ${growth.toFixed(0)} MB over ${idle.toFixed(0)} MB idle — ${growth <= TARGET_GROWTH_MB ? 'meets' : 'MISSES'} ≤ ${TARGET_GROWTH_MB} MB`,
      );
      log(
        `  ${kind}: /health while ingesting (${health.length} polls) p99 ${healthP99.toFixed(1)} ms, max ${healthMax.toFixed(1)} ms — ${healthMax <= TARGET_HEALTH_MS ? 'meets' : 'MISSES'} ≤ ${TARGET_HEALTH_MS} ms`,
      );
      rows.push({
        target: `${kind} ${(doc.bytes.length / MB).toFixed(1)} MB (peak RSS growth ${growth.toFixed(0)} MB; p50/p99: /health)`,
        rps: doc.bytes.length / MB / seconds,
        p50: pct(health, 50) ?? NaN,
        p99: healthP99,
        max: seconds * 1000,
        non2xx: res.status === 'completed' ? 0 : 1,
        errors: 0,
        timeouts: 0,
      });
    }

    // 2. throughput of a mixed set
    const [perKind, mixedMb] = (process.env.BENCH_INGEST_MIXED || '2x1').split('x').map(Number);
    const docs = [];
    for (let i = 0; i < perKind; i++)
      for (const kind of KINDS) {
        const doc = await makeDocument(kind, mixedMb * MB, 100 + i * 10 + KINDS.indexOf(kind));
        // distinct names: a document under an existing name would replace it
        docs.push({ ...doc, name: `${i}-${doc.name}` });
      }
    const total = docs.reduce((s, d) => s + d.bytes.length, 0);
    const kb2 = await newKb(base, key, 'bench-ingest-mixed');
    const t0 = performance.now();
    const ids = await Promise.all(docs.map((d) => upload(base, key, kb2, d)));
    const results = await settle(base, key, kb2, ids, 900_000);
    const seconds = (performance.now() - t0) / 1000;
    const completed = results.filter((r) => r.status === 'completed').length;
    const rate = total / MB / seconds;
    check(
      completed === docs.length,
      `mixed set: ${completed}/${docs.length} documents completed (${(total / MB).toFixed(1)} MB) in ${seconds.toFixed(1)} s`,
    );
    rows.push({
      target: `mixed ${docs.length} docs, ${(total / MB).toFixed(1)} MB (MB/s)`,
      rps: rate,
      p50: NaN,
      p99: NaN,
      max: seconds * 1000,
      non2xx: docs.length - completed,
      errors: 0,
      timeouts: 0,
    });
    log(
      `  mixed set: ${rate.toFixed(2)} MB/s — ${rate >= TARGET_MB_PER_S ? 'meets' : 'MISSES'} ≥ ${TARGET_MB_PER_S} MB/s`,
    );
    return { rows, checks, memory, rate };
  },

  /** One summary line per backend: the worst growth and the mixed-set rate, with verdicts. */
  report(results, lib, log) {
    log('');
    log(
      lib.table(
        results.map((r) => {
          const worst = r.memory.reduce((a, b) => (b.growth > a.growth ? b : a), { kind: '-', growth: 0 });
          const failed = r.memory.filter((m) => !m.completed).map((m) => m.kind);
          const met = worst.growth <= TARGET_GROWTH_MB && failed.length === 0;
          const slowest = r.memory.reduce((a, b) => (b.healthMax > a.healthMax ? b : a), { kind: '-', healthMax: 0 });
          return {
            backend: r.backend.label,
            worst: `${worst.kind} ${worst.growth.toFixed(0)} MB`,
            memory: met ? 'meets' : `MISSES${failed.length ? ` (${failed.join(', ')} not ingested)` : ''}`,
            rate: r.rate.toFixed(2),
            throughput: r.rate >= TARGET_MB_PER_S ? 'meets' : 'MISSES',
            health: `${slowest.kind} ${slowest.healthMax.toFixed(0)} ms`,
            healthVerdict: slowest.healthMax <= TARGET_HEALTH_MS ? 'meets' : 'MISSES',
          };
        }),
        [
          { key: 'backend', title: 'backend', align: 'left' },
          { key: 'worst', title: 'largest RSS growth', align: 'left' },
          { key: 'memory', title: `≤ ${TARGET_GROWTH_MB} MB`, align: 'left' },
          { key: 'rate', title: 'mixed MB/s' },
          { key: 'throughput', title: `≥ ${TARGET_MB_PER_S} MB/s`, align: 'left' },
          { key: 'health', title: 'slowest /health while ingesting', align: 'left' },
          { key: 'healthVerdict', title: `≤ ${TARGET_HEALTH_MS} ms`, align: 'left' },
        ],
      ),
    );
  },
};
