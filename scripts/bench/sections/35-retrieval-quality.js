/**
 * Bench section: retrieval quality of the offline embedders (local-embedding-small / -large) on a
 * fixed corpus of real documents — 100 Debian manual pages (79 English, 21 Russian), built by
 * scripts/bench/build-retrieval-corpus.js and committed under scripts/bench/fixtures.
 *
 * Questions (document-level: a question has one document that answers it):
 *   - keyword: one per document, generated here deterministically — the document's most
 *     distinctive sentence (6–25 words, highest mean IDF of its distinct lower-cased words over the
 *     corpus, earliest on ties), its first 12 words;
 *   - paraphrased: 79 questions written by hand (fixtures/retrieval-questions.json) as a user would
 *     ask, without the command's name or the page's NAME line.
 *
 * Two measurements:
 *   1. in-process, on the product's ranking code from dist/ over the same chunks for every mode
 *      (1,000-character windows with 200 of overlap, the library's chunkText): vector (exact cosine),
 *      keyword (BM25 over the product's search terms: stems, no stop words — what FTS5 ranks),
 *      hybrid (hybridRank: RRF of the two, the lexical vector leg weighing LEXICAL_VECTOR_WEIGHT, cosine tie-break), beside plain BM25 baselines
 *      (k1 1.2, b 0.75) over unstemmed and over stemmed words, stop words kept;
 *   2. through the gateway: the vector store search (POST /v1/vector_stores/{id}/search, hybrid,
 *      default max_num_results 10, the gateway's own chunking) per embedder, on this backend.
 * A question's rank is the position of its document among the distinct documents of the first 10
 * results. recall@1, recall@5 and MRR are printed; the checks are the targets (hybrid through the
 * gateway with local-embedding-small: keyword recall@1 ≥ 0.95, paraphrased recall@5 ≥ 0.80; the
 * large embedder at least as good; in-process hybrid no worse than either of its legs on those
 * metrics).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { call, ROOT } = require('../lib');

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const RESULTS = 10; // the search APIs' default result count
const EMBEDDERS = [
  ['local-embedding-small', 1536],
  ['local-embedding-large', 3072],
];

function loadCorpus() {
  const corpus = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'retrieval-corpus.json'), 'utf8'));
  const paraphrased = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'retrieval-questions.json'), 'utf8')).questions;
  return { docs: corpus.docs, paraphrased, keyword: keywordQuestions(corpus.docs) };
}

const plainWords = (text) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/** [docId, question]: each document's most distinctive sentence (see the module comment). */
function keywordQuestions(docs) {
  const df = new Map();
  for (const d of docs) for (const w of new Set(plainWords(d.text))) df.set(w, (df.get(w) ?? 0) + 1);
  const idf = (w) => Math.log(docs.length / (df.get(w) ?? 1));
  return docs.map((d) => {
    let best = null;
    let bestScore = -1;
    for (const s of d.text.replace(/\s+/g, ' ').split(/(?<=[.!?;:])\s+/)) {
      const words = s.split(' ').filter((w) => /[\p{L}\p{N}]/u.test(w));
      if (words.length < 6 || words.length > 25) continue;
      const distinct = [...new Set(plainWords(s))];
      const score = distinct.reduce((a, w) => a + idf(w), 0) / distinct.length;
      if (score > bestScore) {
        bestScore = score;
        best = words.slice(0, 12).join(' ');
      }
    }
    return [d.id, best ?? d.text.slice(0, 80)];
  });
}

/** BM25 (k1 1.2, b 0.75, the query's distinct terms OR-ed) over `tokens` per chunk → chunk indexes, best first. */
function bm25(chunkTokens) {
  const n = chunkTokens.length;
  const avg = chunkTokens.reduce((a, t) => a + t.length, 0) / n;
  const postings = new Map();
  chunkTokens.forEach((tokens, i) => {
    const tf = new Map();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, f] of tf) {
      if (!postings.has(t)) postings.set(t, []);
      postings.get(t).push([i, f]);
    }
  });
  return (terms) => {
    const scores = new Map();
    for (const term of new Set(terms)) {
      const list = postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const [i, f] of list) {
        const s = (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * chunkTokens[i].length) / avg));
        scores.set(i, (scores.get(i) ?? 0) + s);
      }
    }
    return [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([i]) => i);
  };
}

/** recall@1, recall@5, MRR of ranked document lists (distinct documents of the first RESULTS hits). */
function score(questions, rankedDocs) {
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  questions.forEach(([doc, q]) => {
    const pos = rankedDocs(q).indexOf(doc);
    if (pos === 0) r1++;
    if (pos >= 0 && pos < 5) r5++;
    if (pos >= 0) mrr += 1 / (pos + 1);
  });
  const n = questions.length;
  return { r1: r1 / n, r5: r5 / n, mrr: mrr / n };
}

const distinctDocs = (docIds) => [...new Set(docIds.slice(0, RESULTS))];

/** In-process: every mode over the same chunks, with the built product modules. */
function inProcess(corpus) {
  const dist = path.join(ROOT, 'dist', 'libs');
  const retrieval = require(path.join(dist, 'retrieval', 'src'));
  const { LexicalEmbedder } = require(path.join(dist, 'providers', 'src', 'local', 'lexical-embedder'));
  const {
    chunkText,
    VectorIndex,
    encodeVector,
    hybridRank,
    indexTerms,
    keywordTerms,
    stemWord,
    LEXICAL_VECTOR_WEIGHT,
  } = retrieval;
  const chunks = [];
  for (const d of corpus.docs) for (const c of chunkText(d.text)) chunks.push({ doc: d.id, text: c.text });
  const chunkDoc = (i) => chunks[i].doc;

  const plain = (t) => plainWords(t);
  const stemmed = (t) => plainWords(t).map(stemWord);
  const bmPlain = bm25(chunks.map((c) => plain(c.text)));
  const bmStemmed = bm25(chunks.map((c) => stemmed(c.text)));
  const bmProduct = bm25(chunks.map((c) => indexTerms(c.text).split(' ').filter(Boolean)));

  const rows = [];
  const add = (label, set, questions, rank) => rows.push({ label, set, ...score(questions, rank) });
  for (const [setName, questions] of [
    ['keyword', corpus.keyword],
    ['paraphrased', corpus.paraphrased],
  ]) {
    add('BM25, unstemmed', setName, questions, (q) => distinctDocs(bmPlain(plain(q)).map(chunkDoc)));
    add('BM25, stemmed', setName, questions, (q) => distinctDocs(bmStemmed(stemmed(q)).map(chunkDoc)));
    add('keyword leg', setName, questions, (q) => distinctDocs(bmProduct(keywordTerms(q)).map(chunkDoc)));
  }
  for (const [model, dims] of EMBEDDERS) {
    const embedder = new LexicalEmbedder();
    const index = new VectorIndex(
      1,
      dims,
      chunks.map((c, i) => ({
        id: i + 1,
        documentId: c.doc,
        contentHash: String(i),
        embedding: encodeVector(embedder.embed(c.text, dims)),
      })),
    );
    for (const [setName, questions] of [
      ['keyword', corpus.keyword],
      ['paraphrased', corpus.paraphrased],
    ]) {
      add(`${model} vector`, setName, questions, (q) =>
        distinctDocs(index.nearest(embedder.embed(q, dims), RESULTS).map((r) => index.documentIds[r.row])),
      );
      add(`${model} hybrid`, setName, questions, (q) => {
        const keywordIds = bmProduct(keywordTerms(q)).map((i) => i + 1);
        const fused = hybridRank(index, [embedder.embed(q, dims)], keywordIds, { vectorWeight: LEXICAL_VECTOR_WEIGHT });
        return distinctDocs(fused.map((c) => index.documentIds[c.row]));
      });
    }
  }
  return { rows, chunks: chunks.length };
}

async function waitBatch(base, key, vs, batch) {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const { json } = await call('GET', `${base}/v1/vector_stores/${vs}/file_batches/${batch}`, key);
    if (json.status !== 'in_progress') return json;
    if (Date.now() > deadline) throw new Error(`batch still in progress: ${JSON.stringify(json.file_counts)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Through the gateway: the vector store search (hybrid, default result count) per embedder. */
async function throughGateway(ctx, corpus) {
  const base = ctx.gateway.url;
  const key = ctx.gateway.apiKey;
  const docOfFile = new Map();
  const fileIds = [];
  for (const d of corpus.docs) {
    const form = new FormData();
    form.append('purpose', 'assistants');
    form.append('file', new Blob([d.text], { type: 'text/plain' }), `${d.id.replace('/', '-')}.txt`);
    const id = (await call('POST', `${base}/v1/files`, key, form, true)).json.id;
    docOfFile.set(id, d.id);
    fileIds.push(id);
  }
  const rows = [];
  for (const [model] of EMBEDDERS) {
    const vs = (
      await call('POST', `${base}/v1/vector_stores`, key, { name: `quality-${model}`, embedding_model: model })
    ).json.id;
    const batch = (await call('POST', `${base}/v1/vector_stores/${vs}/file_batches`, key, { file_ids: fileIds })).json
      .id;
    const done = await waitBatch(base, key, vs, batch);
    if (done.file_counts.completed !== corpus.docs.length)
      throw new Error(`${model}: ${done.file_counts.completed}/${corpus.docs.length} documents ingested`);
    for (const [setName, questions] of [
      ['keyword', corpus.keyword],
      ['paraphrased', corpus.paraphrased],
    ]) {
      const ranked = new Map();
      for (const [, q] of questions) {
        const { json } = await call('POST', `${base}/v1/vector_stores/${vs}/search`, key, { query: q });
        ranked.set(q, distinctDocs(json.data.map((r) => docOfFile.get(r.file_id))));
      }
      rows.push({ label: `${model} hybrid (API)`, set: setName, ...score(questions, (q) => ranked.get(q)) });
    }
  }
  return rows;
}

const fmt = (r) => `${r.r1.toFixed(2)} / ${r.r5.toFixed(2)} / ${r.mrr.toFixed(2)}`;

function printTable(log, rows) {
  const labels = [...new Set(rows.map((r) => r.label))];
  log(`  ${'mode'.padEnd(40)} ${'keyword R@1 / R@5 / MRR'.padEnd(26)} paraphrased R@1 / R@5 / MRR`);
  for (const label of labels) {
    const k = rows.find((r) => r.label === label && r.set === 'keyword');
    const p = rows.find((r) => r.label === label && r.set === 'paraphrased');
    log(`  ${label.padEnd(40)} ${fmt(k).padEnd(26)} ${fmt(p)}`);
  }
}

let local = null; // the in-process figures do not depend on the backend: computed once

module.exports = {
  name: 'retrieval-quality',
  title: 'Retrieval quality (offline embedders): 100 manual pages, keyword and paraphrased questions',

  /** @param {import('../../bench').BenchContext} ctx */
  async run(ctx) {
    const { log } = ctx;
    const checks = [];
    const check = (ok, text) => {
      checks.push({ ok, text });
      log(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
    };
    const corpus = loadCorpus();
    if (!local) {
      const t0 = performance.now();
      local = inProcess(corpus);
      log(
        `  in-process, ${corpus.docs.length} documents → ${local.chunks} chunks; ${corpus.keyword.length} keyword, ${corpus.paraphrased.length} paraphrased questions (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
      printTable(log, local.rows);
      const get = (label, set) => local.rows.find((r) => r.label === label && r.set === set);
      // the contract's metric per question set: recall@1 for keyword questions, recall@5 for paraphrases
      for (const [model] of EMBEDDERS)
        for (const [set, metric] of [
          ['keyword', 'r1'],
          ['paraphrased', 'r5'],
        ]) {
          const h = get(`${model} hybrid`, set);
          const legs = [get(`${model} vector`, set), get('keyword leg', set)];
          check(
            legs.every((l) => h[metric] >= l[metric]),
            `in-process ${model} hybrid ${metric === 'r1' ? 'recall@1' : 'recall@5'} on ${set} questions ${h[metric].toFixed(2)} ≥ its legs' (${legs.map((l) => l[metric].toFixed(2)).join(', ')})`,
          );
        }
    }
    const api = await throughGateway(ctx, corpus);
    log(`  through the gateway (${ctx.backend.label}):`);
    printTable(log, api);
    const get = (model, set) => api.find((r) => r.label === `${model} hybrid (API)` && r.set === set);
    const small = { k: get('local-embedding-small', 'keyword'), p: get('local-embedding-small', 'paraphrased') };
    const large = { k: get('local-embedding-large', 'keyword'), p: get('local-embedding-large', 'paraphrased') };
    check(small.k.r1 >= 0.95, `small, keyword questions: recall@1 ${small.k.r1.toFixed(2)} ≥ 0.95`);
    check(small.p.r5 >= 0.8, `small, paraphrased questions: recall@5 ${small.p.r5.toFixed(2)} ≥ 0.80`);
    check(
      large.k.r1 >= small.k.r1 && large.p.r5 >= small.p.r5,
      `large at least as good as small (keyword recall@1 ${large.k.r1.toFixed(2)}, paraphrased recall@5 ${large.p.r5.toFixed(2)})`,
    );
    return { rows: [], checks };
  },
};
