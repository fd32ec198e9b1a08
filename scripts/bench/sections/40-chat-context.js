/**
 * Bench section: chat with a knowledge base of 100 documents on the RAG path (issue 10).
 * A knowledge base of 100 text documents (local embedder, default chunking) is built; then
 * POST /api/v1/chat with knowledge_base_id and model gpt-4o-mini (the fake upstream) is called
 * sequentially with 10 recurring questions: 30 warm-up calls (vector index built, rerank cache
 * filled for every question's candidate set), then 200 measured calls. The measure is the server's
 * own `server-timing: context;dur=…` — the time added before the upstream call (knowledge-base
 * search with its query embedding, rerank with a warm per-key cache, budget, formatting) —
 * p50 / p99 against the 50 ms target.
 */
'use strict';

const WORDS = 'river mountain copper harbor lantern orchard falcon meadow quartz timber signal canyon ember glacier harvest beacon'.split(' ');
const TARGET_MS = 50;

function words(seed, n) {
  let x = seed;
  const out = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out.push(WORDS[x % WORDS.length] + (x % 89));
  }
  return out.join(' ');
}

async function call(method, url, apiKey, body, isForm = false) {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${apiKey}`, 'api-key': apiKey, ...(isForm || body === undefined ? {} : { 'content-type': 'application/json' }) }, body: isForm ? body : body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return { json, headers: res.headers };
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

module.exports = {
  name: 'chat-context',
  title: 'Chat with a knowledge base of 100 documents (RAG path): server time added before the upstream call',

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
      form.append('file', new Blob([`Document ${i}. ${words(50_000 + i, 1500)}`], { type: 'text/plain' }), `doc-${i}.txt`);
      ids.push((await call('POST', `${base}/v1/files`, key, form, true)).json.id);
    }
    const vs = (await call('POST', `${base}/v1/vector_stores`, key, { name: 'bench-chat-context', embedding_model: 'local-embedding-small' })).json.id;
    const batch = (await call('POST', `${base}/v1/vector_stores/${vs}/file_batches`, key, { file_ids: ids })).json.id;
    const deadline = Date.now() + 600_000;
    let status;
    for (;;) {
      status = (await call('GET', `${base}/v1/vector_stores/${vs}/file_batches/${batch}`, key)).json;
      if (status.status !== 'in_progress' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    check(status.file_counts.completed === 100, `knowledge base: ${status.file_counts.completed}/100 documents completed`);

    const questions = Array.from({ length: 10 }, (_, i) => words(i * 13 + 1, 6));
    const context = [];
    const total = [];
    const search = [];
    const rerank = [];
    let fragments = 0;
    for (let i = 0; i < 230; i++) {
      const t0 = performance.now();
      const r = await call('POST', `${base}/api/v1/chat`, key, { model: 'gpt-4o-mini', user_id: 'bench', prompt: questions[i % questions.length], knowledge_base_id: vs, max_tokens: 16 });
      const wall = performance.now() - t0;
      if (i < 30) continue; // warm-up: vector index, rerank cache for each question's candidates
      const timing = r.headers.get('server-timing') ?? '';
      context.push(Number(/(?:^|, )context;dur=([\d.]+)/.exec(timing)?.[1] ?? NaN));
      search.push(Number(/context-search;dur=([\d.]+)/.exec(timing)?.[1] ?? NaN));
      rerank.push(Number(/context-rerank;dur=([\d.]+)/.exec(timing)?.[1] ?? NaN));
      total.push(wall);
      fragments += r.json.context?.fragments ?? 0;
    }
    const p50 = pct(context, 50);
    const p99 = pct(context, 99);
    check(context.every(Number.isFinite), `every response carried server-timing context;dur (${context.length} calls)`);
    check(fragments > 0, `fragments retrieved: ${(fragments / context.length).toFixed(1)} per call on average`);
    log(`  context assembly: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target ≤ ${TARGET_MS} ms); whole request p50 ${pct(total, 50).toFixed(2)} ms`);
    log(`  of which: knowledge-base search with the query embedding p50 ${pct(search, 50).toFixed(2)} ms, rerank (warm cache) p50 ${pct(rerank, 50).toFixed(2)} ms`);
    log(`  chat-context target ${p50 <= TARGET_MS ? 'met' : 'MISSED'}: p50 ${p50.toFixed(2)} ms ≤ ${TARGET_MS} ms`);
    const rows = [{ target: 'context assembly, KB of 100 docs (server)', rps: 1000 / pct(total, 50), p50, p99, max: Math.max(...context), non2xx: 0, errors: 0, timeouts: 0 }];
    return { rows, checks };
  },
};
