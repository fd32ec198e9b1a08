/**
 * Bench section: the tokenizer decision (docs/decisions/tokenizer-own-bpe.md). Counts and time of three o200k / cl100k
 * tokenizers on the recorded provider fixtures, README, code, a multilingual sample and pathological
 * inputs (20,000 repeated characters — the classic quadratic case of naive BPE merging):
 *   - own BPE: the gateway's BytePairEncoder (libs/providers/src/tokenizer/bpe.ts on js-tiktoken's rank
 *     tables, what TokenCounter runs on), transpiled in memory from the source,
 *   - js-tiktoken (naive merging; the pathological inputs are timed on 2,000 characters only),
 *   - gpt-tokenizer 4 (a devDependency, only for this comparison), timed with its merge cache
 *     cleared before every call and, for information, warm.
 * Identical counts are required; the printed times (and load time / heap of the rank tables) decide.
 * Runs once (not per backend). Alone: `node --expose-gc scripts/bench/sections/40-tokenizer.js`.
 *
 * Decision (2026-11-23, 2 shared cores under load): own BPE kept. Identical counts
 * on all 56 texts in both encodings; fixtures+README+code+multilingual total o200k: own 91 ms, gpt-tokenizer 224 ms
 * (131 ms warm), js-tiktoken 680 ms; 20,000 × "🙂" o200k: own 0.27 s, gpt-tokenizer 49 s (its
 * merging is quadratic on a long piece, like js-tiktoken's).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { loadTs } = require('../ts-source');

const ROOT = path.join(__dirname, '..', '..', '..');
let done = false;

function texts() {
  const out = [];
  const dirs = ['openai', 'anthropic', 'gemini'].map((d) => path.join(ROOT, 'libs/providers/src', d, '__fixtures__'));
  for (const dir of dirs)
    for (const f of fs.readdirSync(dir))
      out.push({ name: `${path.basename(path.dirname(dir))}/${f}`, text: fs.readFileSync(path.join(dir, f), 'utf8') });
  out.push({ name: 'README.md', text: fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8') });
  out.push({
    name: 'multilingual',
    text: 'Привет, мир! Как дела? 你好，世界。こんにちは世界。مرحبا بالعالم. Ünïcödé café naïve — emoji 🙂🚀 done.'.repeat(
      50,
    ),
  });
  out.push({ name: 'code', text: fs.readFileSync(path.join(ROOT, 'libs/billing/src/billing.service.ts'), 'utf8') });
  for (const ch of ['a', 'я', ' ', '🙂'])
    out.push({ name: `20,000 × "${ch}"`, text: ch.repeat(20_000), pathological: true });
  return out;
}

function time(fn, reps) {
  fn(); // warm
  const t = process.hrtime.bigint();
  let r;
  for (let i = 0; i < reps; i++) r = fn();
  return { value: r, ms: Number(process.hrtime.bigint() - t) / 1e6 / reps };
}

/** Time and heap growth of loading an encoder (rank table parse). */
function load(fn) {
  global.gc?.();
  const heap = process.memoryUsage().heapUsed;
  const t = process.hrtime.bigint();
  const value = fn();
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  global.gc?.();
  return { value, ms, mb: (process.memoryUsage().heapUsed - heap) / 2 ** 20 };
}

/** The own BytePairEncoder class, transpiled from the source (its relative imports followed). */
function ownBpe() {
  return loadTs('libs/providers/src/tokenizer/bpe.ts').BytePairEncoder;
}

const ranksOf = (enc) => {
  const r = require(`js-tiktoken/ranks/${enc}`);
  return r.default ?? r;
};

module.exports = {
  name: 'tokenizer',
  title: 'Tokenizers: own BPE vs js-tiktoken vs gpt-tokenizer (identical counts; ms per text)',

  /** @param {import('../../bench').BenchContext} ctx */
  async run(ctx) {
    const { log } = ctx;
    const checks = [];
    if (done) return { rows: [], checks };
    done = true;
    const BytePairEncoder = ownBpe();
    const { Tiktoken } = require('js-tiktoken/lite');
    const rows = [];
    const row = (target, p50) =>
      rows.push({ target, rps: 0, p50, p99: NaN, max: NaN, non2xx: 0, errors: 0, timeouts: 0 });
    let mismatches = 0;
    for (const enc of ['o200k_base', 'cl100k_base']) {
      const own = load(() => new BytePairEncoder(ranksOf(enc)));
      const tik = load(() => new Tiktoken(ranksOf(enc)));
      const gpt = load(() => require(`gpt-tokenizer/cjs/encoding/${enc}`));
      log(
        `  ${enc} load: own BPE ${own.ms.toFixed(0)} ms / ${own.mb.toFixed(0)} MB, js-tiktoken ${tik.ms.toFixed(0)} ms / ${tik.mb.toFixed(0)} MB, gpt-tokenizer ${gpt.ms.toFixed(0)} ms / ${gpt.mb.toFixed(0)} MB (heap; run with --expose-gc for clean figures)`,
      );
      let sums = { own: 0, tik: 0, gpt: 0, gptWarm: 0 };
      for (const t of texts()) {
        const reps = t.pathological ? 3 : 20;
        const a = time(() => own.value.count(t.text), reps);
        // js-tiktoken merges naively: on 20,000 repeated characters it takes 20-100 s (measured once:
        // 23.6 s for "a", 101 s for "я" on o200k), so it is timed on the first 2,000 characters only
        const b = t.pathological
          ? time(() => tik.value.encode(t.text.slice(0, 2000)).length, 1)
          : time(() => tik.value.encode(t.text).length, reps);
        // gpt-tokenizer keeps an LRU cache of merged pieces: timed with the cache cleared before every
        // call (same footing as the others), and once more warm (every piece cached) for information
        const asText = { allowedSpecial: new Set(), disallowedSpecial: new Set() };
        const c = time(
          () => (gpt.value.clearMergeCache(), gpt.value.encode(t.text, asText).length),
          t.pathological ? 1 : reps,
        );
        const cw = time(() => gpt.value.encode(t.text, asText).length, reps);
        if ((!t.pathological && a.value !== b.value) || a.value !== c.value) {
          mismatches++;
          log(`  MISMATCH ${enc} ${t.name}: own BPE ${a.value}, js-tiktoken ${b.value}, gpt-tokenizer ${c.value}`);
        }
        if (t.pathological)
          log(
            `  ${enc} ${t.name}: own BPE ${a.ms.toFixed(1)} ms, gpt-tokenizer ${c.ms.toFixed(1)} ms (warm cache ${cw.ms.toFixed(1)} ms) (${a.value} tokens); js-tiktoken on 2,000 of them: ${b.ms.toFixed(1)} ms`,
          );
        else
          sums = {
            own: sums.own + a.ms,
            tik: sums.tik + b.ms,
            gpt: sums.gpt + c.ms,
            gptWarm: (sums.gptWarm ?? 0) + cw.ms,
          };
      }
      log(
        `  ${enc} fixtures+README+code+multilingual total: own BPE ${sums.own.toFixed(2)} ms, js-tiktoken ${sums.tik.toFixed(2)} ms, gpt-tokenizer ${sums.gpt.toFixed(2)} ms (warm cache ${sums.gptWarm.toFixed(2)} ms)`,
      );
      row(`${enc}: own BPE (fixtures total)`, sums.own);
      row(`${enc}: js-tiktoken`, sums.tik);
      row(`${enc}: gpt-tokenizer`, sums.gpt);
      row(`${enc}: gpt-tokenizer, warm cache`, sums.gptWarm);
    }
    const ok = mismatches === 0;
    checks.push({ ok, text: `identical token counts on every text (${mismatches} mismatches)` });
    log(`  ${ok ? 'ok  ' : 'FAIL'} identical token counts on every text (${mismatches} mismatches)`);
    return { rows, checks };
  },
};

if (require.main === module) {
  module.exports.run({ log: (line) => process.stdout.write(`${line}\n`) }).then((r) => {
    if (r.checks.some((c) => !c.ok)) process.exitCode = 1;
  });
}
