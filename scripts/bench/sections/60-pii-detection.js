/**
 * Bench section: personal-data detection (libs/data-protection/src/detectors, loaded from the source). Runs once,
 * not per backend (it times a library function, no HTTP):
 *   - precision and recall per entity type on the labelled corpus test/data-protection/corpus/corpus.jsonl
 *     (a detected span counts when it overlaps a labelled span of its type by IoU >= 0.5),
 *   - the latency detectPii adds for a 4 KB and a 64 KB prompt (default entities), p50/p99 of wall time and of the
 *     process's CPU time per call, on two kinds of prompt: "typical" (README prose with one corpus snippet per
 *     ~1 KB) and "dense" (corpus snippets only: about one entity per 40 characters, the worst case).
 * Quality targets (structured P,R >= 0.98; names P >= 0.90, R >= 0.85) are checks; latency targets
 * (<= 1 ms p50 at 4 KB, <= 10 ms at 64 KB) are reported. Alone: `node scripts/bench/sections/60-pii-detection.js`.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { loadTs } = require('../ts-source');
const { loadCorpus, score, TARGETS } = require('../../../test/data-protection/corpus/score');

const ROOT = path.join(__dirname, '..', '..', '..');
const LATENCY_TARGET = { 4096: 1, 65536: 10 };
let done = false;

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const fixed = (x, d = 3) => x.toFixed(d);

/** A prompt of exactly `size` characters, repeating `source`. */
const sized = (source, size) => {
  let t = source;
  while (t.length < size) t += '\n' + source;
  return t.slice(0, size);
};

function prompts(items) {
  const snippets = items.map((i) => i.text);
  const dense = snippets.join('\n');
  const prose = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split(/\n\s*\n/);
  let typical = '';
  for (let i = 0, s = 0; typical.length < 70_000; i++) {
    typical += prose[i % prose.length] + '\n\n';
    if (typical.length > (s + 1) * 1024) typical += snippets[(s++ * 7) % snippets.length] + '\n\n';
  }
  return { typical, dense };
}

function time(detectPii, text, reps) {
  for (let i = 0; i < Math.max(20, reps / 10); i++) detectPii(text);
  const wall = [];
  const cpu = [];
  for (let i = 0; i < reps; i++) {
    const c = process.cpuUsage();
    const t = process.hrtime.bigint();
    detectPii(text);
    wall.push(Number(process.hrtime.bigint() - t) / 1e6);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return {
    p50: pct(wall, 0.5),
    p99: pct(wall, 0.99),
    max: wall[wall.length - 1],
    cpu50: pct(cpu, 0.5),
    cpu99: pct(cpu, 0.99),
  };
}

module.exports = {
  name: 'pii',
  title: 'Personal-data detection: corpus precision/recall per entity type; added latency of detectPii (ms per prompt)',

  /** @param {import('../../bench').BenchContext} ctx */
  async run(ctx) {
    const { log } = ctx;
    const checks = [];
    if (done) return { rows: [], checks };
    done = true;
    const { detectPii, ALL_ENTITY_TYPES } = loadTs('libs/data-protection/src/detectors/index.ts');
    const items = loadCorpus();
    const q = score(items, (text) => detectPii(text, { entities: [...ALL_ENTITY_TYPES] }));
    log(
      `  corpus: ${items.length} snippets (${items.filter((i) => i.lang === 'ru').length} Russian), ${items.reduce((a, i) => a + i.entities.length, 0)} labelled entities`,
    );
    const tableLib = ctx.lib ?? require('../lib');
    log(
      tableLib
        .table(
          q.rows.map((r) => ({ ...r, p: fixed(r.precision), r: fixed(r.recall) })),
          [
            { key: 'type', title: 'entity', align: 'left' },
            { key: 'tp', title: 'TP' },
            { key: 'fp', title: 'FP' },
            { key: 'fn', title: 'FN' },
            { key: 'p', title: 'precision' },
            { key: 'r', title: 'recall' },
          ],
        )
        .replace(/^/gm, '  '),
    );
    for (const [group, t] of Object.entries(TARGETS)) {
      const g = q[group];
      const ok = g.precision >= t.precision && g.recall >= t.recall;
      const text = `${group}: precision ${fixed(g.precision)} (target ${t.precision}), recall ${fixed(g.recall)} (target ${t.recall})`;
      checks.push({ ok, text });
      log(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
    }
    for (const type of TARGETS.structured.types) {
      const r = q.rows.find((x) => x.type === type);
      if (r && (r.precision < TARGETS.structured.precision || r.recall < TARGETS.structured.recall))
        log(`  note: ${type} alone is below the structured target (P ${fixed(r.precision)}, R ${fixed(r.recall)})`);
    }
    for (const e of q.errors.slice(0, 10)) log(`  ${e.kind} ${e.type}: ${JSON.stringify(e.value)} in snippet ${e.id}`);

    const rows = [];
    const kinds = prompts(items);
    log(
      `  latency (load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} on ${os.cpus().length} CPUs):`,
    );
    for (const [kind, source] of Object.entries(kinds))
      for (const size of [4096, 65536]) {
        const text = sized(source, size);
        const r = time(detectPii, text, size < 10_000 ? 2000 : 300);
        const target = LATENCY_TARGET[size];
        const label = `${kind} ${size / 1024} KB`;
        log(
          `  ${label}: ${detectPii(text).length} entities; wall p50 ${fixed(r.p50)} ms, p99 ${fixed(r.p99)} ms; CPU p50 ${fixed(r.cpu50)} ms, p99 ${fixed(r.cpu99)} ms; target p50 <= ${target} ms: ${r.p50 <= target ? 'meets' : 'MISSES'}`,
        );
        rows.push({
          target: `detectPii, ${label} prompt`,
          rps: 0,
          p50: r.p50,
          p99: r.p99,
          max: r.max,
          non2xx: 0,
          errors: 0,
          timeouts: 0,
        });
      }
    // hostile prompts: no shape of input may make detection slow (all entity types, 64 KB each)
    const hostile = {
      'digits only': '1'.repeat(65536),
      '"1 " repeated': '1 '.repeat(32768),
      '"a@" repeated': 'a@'.repeat(32768),
      '"a:" repeated': 'a:'.repeat(32768),
      '"ab:cd:" repeated': 'ab:cd:'.repeat(10923),
      '"А. " repeated': 'А. '.repeat(21845),
      '"ул. Ленина " repeated': 'ул. Ленина '.repeat(5958),
      'valid OGRN lines': 'ОГРН 1027700132195\n'.repeat(3449),
    };
    const slow = Object.entries(hostile).map(([label, text]) => {
      const all = { entities: [...ALL_ENTITY_TYPES] };
      detectPii(text, all);
      const c = process.cpuUsage();
      for (let i = 0; i < 3; i++) detectPii(text, all);
      const d = process.cpuUsage(c);
      return `${label} ${fixed((d.user + d.system) / 3000, 1)}`;
    });
    log(`  hostile 64 KB prompts, CPU ms per call: ${slow.join(', ')}`);
    return { rows, checks };
  },
};

if (require.main === module) {
  module.exports.run({ log: (line) => process.stdout.write(`${line}\n`) }).then((r) => {
    if (r.checks.some((c) => !c.ok)) process.exitCode = 1;
  });
}
