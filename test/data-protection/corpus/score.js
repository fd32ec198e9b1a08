/**
 * Scores a personal-data detector on the labelled corpus: per entity type, a detected span is a true positive when it
 * has the type of a labelled span that it overlaps by at least half of their union (IoU >= 0.5); each labelled span
 * is matched once. Used by the unit test that asserts the quality targets and by the bench section.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const CORPUS = path.join(__dirname, 'corpus.jsonl');

/** Quality targets: structured identifiers, and names of people. */
const TARGETS = {
  structured: {
    types: ['email', 'phone', 'card', 'inn', 'snils', 'passport', 'ogrn', 'bank_account', 'ip'],
    precision: 0.98,
    recall: 0.98,
  },
  person: { types: ['person'], precision: 0.9, recall: 0.85 },
};

function loadCorpus() {
  return fs
    .readFileSync(CORPUS, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const iou = (a, b) => {
  const inter = Math.min(a.end, b.end) - Math.max(a.start, b.start);
  if (inter <= 0) return 0;
  return inter / (Math.max(a.end, b.end) - Math.min(a.start, b.start));
};

/**
 * @param {Array<{id:number,text:string,entities:{type:string,start:number,end:number}[]}>} items
 * @param {(text: string) => {type:string,start:number,end:number}[]} detect
 */
function score(items, detect) {
  const byType = {};
  const errors = [];
  const stat = (t) => (byType[t] ??= { tp: 0, fp: 0, fn: 0 });
  for (const item of items) {
    const found = detect(item.text);
    const used = new Set();
    for (const f of found) {
      const i = item.entities.findIndex((g, k) => !used.has(k) && g.type === f.type && iou(g, f) >= 0.5);
      if (i >= 0) {
        used.add(i);
        stat(f.type).tp++;
      } else {
        stat(f.type).fp++;
        errors.push({ id: item.id, kind: 'fp', type: f.type, value: item.text.slice(f.start, f.end), text: item.text });
      }
    }
    item.entities.forEach((g, k) => {
      if (used.has(k)) return;
      stat(g.type).fn++;
      errors.push({ id: item.id, kind: 'fn', type: g.type, value: item.text.slice(g.start, g.end), text: item.text });
    });
  }
  const rows = Object.entries(byType)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, s]) => ({ type, ...s, ...pr(s) }));
  const group = (types) => {
    const s = rows
      .filter((r) => types.includes(r.type))
      .reduce((a, r) => ({ tp: a.tp + r.tp, fp: a.fp + r.fp, fn: a.fn + r.fn }), { tp: 0, fp: 0, fn: 0 });
    return { ...s, ...pr(s) };
  };
  return { rows, errors, structured: group(TARGETS.structured.types), person: group(TARGETS.person.types) };
}

function pr(s) {
  return {
    precision: s.tp + s.fp ? s.tp / (s.tp + s.fp) : 1,
    recall: s.tp + s.fn ? s.tp / (s.tp + s.fn) : 1,
  };
}

module.exports = { loadCorpus, score, TARGETS, CORPUS };
