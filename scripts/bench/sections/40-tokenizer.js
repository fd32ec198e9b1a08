/**
 * Bench section: the tokenizer decision (issue 8 item 7). Counts and time of three cl100k / o200k
 * tokenizers on the recorded provider fixtures, a multilingual sample, code, and pathological
 * inputs (20,000 repeated characters — the classic quadratic case of naive BPE merging):
 *   - the gateway's TokenCounter (js-tiktoken rank tables + its own linear-time BytePairEncoder),
 *   - js-tiktoken itself,
 *   - gpt-tokenizer.
 * Identical counts are required; the printed times decide. Runs once (not per backend).
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..', '..');
let done = false;

function texts() {
  const out = [];
  const dirs = ['openai', 'anthropic', 'gemini'].map((d) => path.join(ROOT, 'libs/providers/src', d, '__fixtures__'));
  for (const dir of dirs) for (const f of fs.readdirSync(dir)) out.push({ name: `${path.basename(path.dirname(dir))}/${f}`, text: fs.readFileSync(path.join(dir, f), 'utf8') });
  out.push({ name: 'README.md', text: fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8') });
  out.push({ name: 'multilingual', text: 'Привет, мир! Как дела? 你好，世界。こんにちは世界。مرحبا بالعالم. Ünïcödé café naïve — emoji 🙂🚀 done.'.repeat(50) });
  out.push({ name: 'code', text: fs.readFileSync(path.join(ROOT, 'libs/billing/src/billing.service.ts'), 'utf8') });
  for (const ch of ['a', 'я', ' ', '🙂']) out.push({ name: `20,000 × "${ch}"`, text: ch.repeat(20_000), pathological: true });
  return out;
}

function time(fn, reps) {
  fn(); // warm
  const t = process.hrtime.bigint();
  let r;
  for (let i = 0; i < reps; i++) r = fn();
  return { value: r, ms: Number(process.hrtime.bigint() - t) / 1e6 / reps };
}

module.exports = {
  name: 'tokenizer',
  title: 'Tokenizers: the gateway TokenCounter vs js-tiktoken vs gpt-tokenizer (identical counts; time per text)',

  /** @param {import('../../bench').BenchContext} ctx */
  async run(ctx) {
    const { log } = ctx;
    const checks = [];
    if (done) return { rows: [], checks };
    done = true;
    const { TokenCounter } = require(path.join(ROOT, 'dist/libs/providers/src/local/tokenizer'));
    const { Tiktoken } = require('js-tiktoken/lite');
    const ranks = { o200k_base: require('js-tiktoken/ranks/o200k_base').default ?? require('js-tiktoken/ranks/o200k_base'), cl100k_base: require('js-tiktoken/ranks/cl100k_base').default ?? require('js-tiktoken/ranks/cl100k_base') };
    const gpt = { o200k_base: require('gpt-tokenizer/cjs/encoding/o200k_base'), cl100k_base: require('gpt-tokenizer/cjs/encoding/cl100k_base') };
    const rows = [];
    let mismatches = 0;
    for (const enc of ['o200k_base', 'cl100k_base']) {
      const ours = new TokenCounter(enc);
      ours.preload();
      const tik = new Tiktoken(ranks[enc]);
      let sums = { ours: 0, tik: 0, gpt: 0 };
      for (const t of texts()) {
        const reps = t.pathological ? 1 : 5;
        const a = time(() => ours.count(t.text), reps);
        // js-tiktoken merges naively: on 20,000 repeated characters it takes 20-100 s (measured once:
        // 23.6 s for "a", 101 s for "я" on o200k), so it is timed on the first 2,000 characters only
        const b = t.pathological ? time(() => tik.encode(t.text.slice(0, 2000)).length, 1) : time(() => tik.encode(t.text).length, reps);
        const c = time(() => gpt[enc].encode(t.text).length, reps);
        if ((!t.pathological && a.value !== b.value) || a.value !== c.value) {
          mismatches++;
          log(`  MISMATCH ${enc} ${t.name}: ours ${a.value}, js-tiktoken ${b.value}, gpt-tokenizer ${c.value}`);
        }
        if (t.pathological) log(`  ${enc} ${t.name}: ours ${a.ms.toFixed(1)} ms, gpt-tokenizer ${c.ms.toFixed(1)} ms (${a.value} tokens); js-tiktoken on 2,000 of them: ${b.ms.toFixed(1)} ms`);
        else sums = { ours: sums.ours + a.ms, tik: sums.tik + b.ms, gpt: sums.gpt + c.ms };
      }
      rows.push({ target: `${enc}: ours (fixtures total)`, rps: 0, p50: sums.ours, p99: NaN, max: NaN, non2xx: 0, errors: 0, timeouts: 0 });
      rows.push({ target: `${enc}: js-tiktoken`, rps: 0, p50: sums.tik, p99: NaN, max: NaN, non2xx: 0, errors: 0, timeouts: 0 });
      rows.push({ target: `${enc}: gpt-tokenizer`, rps: 0, p50: sums.gpt, p99: NaN, max: NaN, non2xx: 0, errors: 0, timeouts: 0 });
    }
    const ok = mismatches === 0;
    checks.push({ ok, text: `identical token counts on every text (${mismatches} mismatches)` });
    log(`  ${ok ? 'ok  ' : 'FAIL'} identical token counts on every text (${mismatches} mismatches)`);
    return { rows, checks };
  },
};
