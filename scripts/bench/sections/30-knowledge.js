/**
 * Bench section: knowledge bases on the local lexical embedder (no provider needed).
 *  1. ingestion: 100 PDFs × 10 pages (made with pdf-lib) uploaded as one file batch; wall time
 *     until every document is completed (extract → chunk → embed → store), documents and pages / s;
 *  2. search: a knowledge base of 10,000 chunks × 1536 dimensions (100 documents × 100 chunks,
 *     static 100-token chunks); 200 searches after a warm-up; the server's own `server-timing`
 *     search duration (index + candidates + fusion + filters, the query embedding excluded),
 *     p50 / p99 against the 30 ms target.
 */
'use strict';
const { PDFDocument, StandardFonts } = require('pdf-lib');
const { call, pct, measureSequential, words: pseudoWords } = require('../lib');

const WORDS =
  'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega'.split(
    ' ',
  );
const TARGET_SEARCH_MS = 30;

const words = (seed, n) => pseudoWords(seed, n, WORDS, 97);

async function pdf(docIndex) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < 10; p++) {
    const page = doc.addPage([595, 842]);
    const text = words(docIndex * 100 + p, 240);
    for (let line = 0; line < 24; line++)
      page.drawText(
        text
          .split(' ')
          .slice(line * 10, line * 10 + 10)
          .join(' '),
        { x: 40, y: 800 - line * 20, size: 10, font },
      );
  }
  return Buffer.from(await doc.save());
}

async function waitBatch(base, apiKey, vs, batch, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await call('GET', `${base}/v1/vector_stores/${vs}/file_batches/${batch}`, apiKey);
    if (json.status !== 'in_progress') return json;
    if (Date.now() > deadline)
      throw new Error(`batch still in progress after ${timeoutMs} ms: ${JSON.stringify(json.file_counts)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function uploadAll(base, apiKey, files) {
  const ids = [];
  for (const f of files) {
    const form = new FormData();
    form.append('purpose', 'assistants');
    form.append('file', new Blob([f.bytes], { type: f.type }), f.name);
    ids.push((await call('POST', `${base}/v1/files`, apiKey, form, true)).json.id);
  }
  return ids;
}

module.exports = {
  name: 'knowledge',
  title: 'Knowledge bases (local embedder): ingestion of 100 × 10-page PDFs; search over 10,000 chunks × 1536',

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

    // 1. ingestion
    const pdfs = await Promise.all(Array.from({ length: 100 }, (_, i) => pdf(i)));
    const ids = await uploadAll(
      base,
      key,
      pdfs.map((bytes, i) => ({ bytes, name: `doc-${i}.pdf`, type: 'application/pdf' })),
    );
    const vs = (
      await call('POST', `${base}/v1/vector_stores`, key, {
        name: 'bench-ingest',
        embedding_model: 'local-embedding-small',
      })
    ).json.id;
    const t0 = performance.now();
    const batch = (await call('POST', `${base}/v1/vector_stores/${vs}/file_batches`, key, { file_ids: ids })).json.id;
    const done = await waitBatch(base, key, vs, batch, 600_000);
    const seconds = (performance.now() - t0) / 1000;
    check(
      done.file_counts.completed === 100,
      `ingestion: ${done.file_counts.completed}/100 PDFs completed (${done.file_counts.failed} failed) in ${seconds.toFixed(1)} s`,
    );
    rows.push({
      target: 'ingest 100 PDFs × 10 pages',
      rps: 100 / seconds,
      p50: NaN,
      p99: NaN,
      max: seconds * 1000,
      non2xx: done.file_counts.failed,
      errors: 0,
      timeouts: 0,
    });
    log(`  ingestion: ${(100 / seconds).toFixed(1)} documents/s, ${(1000 / seconds).toFixed(0)} pages/s`);

    // 2. search over 10,000 chunks
    const texts = Array.from({ length: 100 }, (_, i) => words(10_000 + i, 5_000));
    const textIds = await uploadAll(
      base,
      key,
      texts.map((t, i) => ({ bytes: Buffer.from(t), name: `chunks-${i}.txt`, type: 'text/plain' })),
    );
    const vs2 = (
      await call('POST', `${base}/v1/vector_stores`, key, {
        name: 'bench-search',
        embedding_model: 'local-embedding-small',
      })
    ).json.id;
    const b2 = (
      await call('POST', `${base}/v1/vector_stores/${vs2}/file_batches`, key, {
        file_ids: textIds,
        chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 } },
      })
    ).json.id;
    const done2 = await waitBatch(base, key, vs2, b2, 900_000);
    const kb = (await call('GET', `${base}/api/v1/knowledge-bases/${vs2}`, key)).json;
    check(
      kb.chunk_count >= 10_000 && kb.dimensions === 1536,
      `search corpus: ${kb.chunk_count} chunks × ${kb.dimensions} dims (${done2.file_counts.completed} documents)`,
    );
    // warm-up: the first search builds the replica's vector index
    const { search: engine, total } = await measureSequential({
      warmup: 20,
      runs: 200,
      timings: ['search', 'total'],
      send: (i) =>
        call('POST', `${base}/api/v1/knowledge-bases/${vs2}/search`, key, {
          query: words(i * 7, 8),
          top_k: 10,
          similarity_threshold: 0,
        }),
    });
    const p50 = pct(engine, 50);
    const p99 = pct(engine, 99);
    rows.push({
      target: `search ${kb.chunk_count} chunks (server, no embed)`,
      rps: 1000 / pct(total, 50),
      p50,
      p99,
      max: Math.max(...engine),
      non2xx: 0,
      errors: 0,
      timeouts: 0,
    });
    log(
      `  search: server time p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target ≤ ${TARGET_SEARCH_MS} ms); with the local query embedding p50 ${pct(total, 50).toFixed(2)} ms`,
    );
    log(
      `  search target ${p50 <= TARGET_SEARCH_MS ? 'met' : 'MISSED'}: p50 ${p50.toFixed(2)} ms ≤ ${TARGET_SEARCH_MS} ms`,
    );
    return { rows, checks };
  },
};
