/**
 * Bench section: chat with 100 documents on the RAG path, once as a knowledge base and
 * once as the file materials of a project. A knowledge base of 100 text documents (local embedder,
 * default chunking) is built and the same files are attached to a project; then
 * POST /api/v1/chat with knowledge_base_id (then project_id) and model gpt-4o-mini (the fake upstream) is called
 * sequentially with 10 recurring questions: 30 warm-up calls (vector index built, rerank cache
 * filled for every question's candidate set), then 200 measured calls. The measure is the server's
 * own `server-timing: context;dur=…` — the time added before the upstream call (knowledge-base
 * search with its query embedding, rerank with a warm per-key cache, budget, formatting) —
 * p50 / p99 against the 50 ms target.
 */
'use strict';
const { call, pct, measureSequential, words: pseudoWords } = require('../lib');

const WORDS =
  'river mountain copper harbor lantern orchard falcon meadow quartz timber signal canyon ember glacier harvest beacon'.split(
    ' ',
  );
const TARGET_MS = 50;

const words = (seed, n) => pseudoWords(seed, n, WORDS, 89);

module.exports = {
  name: 'chat-context',
  title:
    'Chat with 100 documents in a knowledge base and in a project (RAG path): server time added before the upstream call',

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

    const ids = [];
    for (let i = 0; i < 100; i++) {
      const form = new FormData();
      form.append('purpose', 'assistants');
      form.append(
        'file',
        new Blob([`Document ${i}. ${words(50_000 + i, 1500)}`], { type: 'text/plain' }),
        `doc-${i}.txt`,
      );
      ids.push((await call('POST', `${base}/v1/files`, key, form, true)).json.id);
    }
    const vs = (
      await call('POST', `${base}/v1/vector_stores`, key, {
        name: 'bench-chat-context',
        embedding_model: 'local-embedding-small',
      })
    ).json.id;
    const batch = (await call('POST', `${base}/v1/vector_stores/${vs}/file_batches`, key, { file_ids: ids })).json.id;
    const deadline = Date.now() + 600_000;
    let status;
    for (;;) {
      status = (await call('GET', `${base}/v1/vector_stores/${vs}/file_batches/${batch}`, key)).json;
      if (status.status !== 'in_progress' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    check(
      status.file_counts.completed === 100,
      `knowledge base: ${status.file_counts.completed}/100 documents completed`,
    );

    const questions = Array.from({ length: 10 }, (_, i) => words(i * 13 + 1, 6));

    // the same 100 files as materials of a project (its own internal store, threshold 0.3)
    const project = (await call('POST', `${base}/api/v1/projects`, key, { name: 'bench-chat-context' })).json.id;
    for (const file_id of ids) await call('POST', `${base}/api/v1/projects/${project}/files`, key, { file_id });
    let materials = [];
    for (;;) {
      materials = (await call('GET', `${base}/api/v1/projects/${project}/materials`, key)).json.data ?? [];
      // (a queued document is listed as in_progress)
      if (!materials.some((mt) => mt.status === 'in_progress') || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const completed = materials.filter((mt) => mt.status === 'completed').length;
    check(completed === 100, `project: ${completed}/100 file materials completed`);

    const rows = [];
    for (const target of [
      { label: 'KB of 100 docs', field: { knowledge_base_id: vs }, what: 'knowledge-base search' },
      { label: 'project of 100 docs', field: { project_id: project }, what: 'project search' },
    ]) {
      // warm-up: vector index, rerank cache for each question's candidates
      const m = await measureSequential({
        warmup: 30,
        runs: 200,
        timings: ['context', 'context-search', 'context-rerank'],
        send: (i) =>
          call('POST', `${base}/api/v1/chat`, key, {
            model: 'gpt-4o-mini',
            user_id: 'bench',
            prompt: questions[i % questions.length],
            ...target.field,
            max_tokens: 16,
          }),
      });
      const { context, wall: total } = m;
      const search = m['context-search'];
      const rerank = m['context-rerank'];
      const fragments = m.json.reduce((sum, j) => sum + (j.context?.fragments ?? 0), 0);
      const modes = new Set(m.json.map((j) => j.context?.mode));
      const p50 = pct(context, 50);
      const p99 = pct(context, 99);
      log(`  ${target.label}:`);
      check(
        context.every(Number.isFinite),
        `${target.label}: every response carried server-timing context;dur (${context.length} calls)`,
      );
      check(
        modes.size === 1 && modes.has('rag'),
        `${target.label}: every call took the RAG path (context.mode ${[...modes].join(', ')})`,
      );
      check(
        fragments > 0,
        `${target.label}: fragments retrieved: ${(fragments / context.length).toFixed(1)} per call on average`,
      );
      log(
        `    context assembly: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target ≤ ${TARGET_MS} ms); whole request p50 ${pct(total, 50).toFixed(2)} ms`,
      );
      log(
        `    of which: ${target.what} with the query embedding p50 ${pct(search, 50).toFixed(2)} ms, rerank (warm cache) p50 ${pct(rerank, 50).toFixed(2)} ms`,
      );
      log(`    chat-context target ${p50 <= TARGET_MS ? 'met' : 'MISSED'}: p50 ${p50.toFixed(2)} ms ≤ ${TARGET_MS} ms`);
      rows.push({
        target: `context assembly, ${target.label} (server)`,
        rps: 1000 / pct(total, 50),
        p50,
        p99,
        max: Math.max(...context),
        non2xx: 0,
        errors: 0,
        timeouts: 0,
      });
    }
    return { rows, checks };
  },
};
