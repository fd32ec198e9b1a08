/**
 * Micro-benchmark of {@link LexicalEmbedder}: embeds `n` deterministic ~10-word sentences (mixed
 * English / Russian) and reports sentences per second. No timing assertion anywhere: call it from
 * `scripts/bench-embedder.js` or a bench runner. Target: ≥ 20,000 sentences/s on one core.
 */
import { LexicalEmbedder } from './lexical-embedder';

/** re-exported for scripts/bench-embedder.js, which loads this file alone */
export { LexicalEmbedder };

const VOCABULARY = [
  'the',
  'invoice',
  'payment',
  'was',
  'sent',
  'to',
  'customer',
  'yesterday',
  'report',
  'quarterly',
  'revenue',
  'growth',
  'model',
  'gateway',
  'request',
  'token',
  'limit',
  'cache',
  'document',
  'search',
  'answer',
  'question',
  'project',
  'team',
  'счёт',
  'оплата',
  'клиент',
  'вчера',
  'отчёт',
  'выручка',
  'рост',
  'модель',
  'запрос',
  'документы',
  'поиск',
  'ответ',
  'вопрос',
  'проект',
  'команда',
  'баланс',
  'рублей',
  'договор',
  'поставка',
  'склад',
  '2024',
  '15',
  'и',
  'в',
  'на',
  'по',
];

export interface LexicalEmbedderBenchResult {
  sentences: number;
  dimensions: number;
  elapsedMs: number;
  perSecond: number;
}

/** Deterministic sentences of 8–12 words drawn from a fixed vocabulary (LCG, seed 1). */
export function benchSentences(n: number): string[] {
  let state = 1;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  const sentences: string[] = [];
  for (let s = 0; s < n; s++) {
    const words = 8 + (next() % 5);
    const parts: string[] = [];
    for (let w = 0; w < words; w++) parts.push(VOCABULARY[next() % VOCABULARY.length]);
    sentences.push(parts.join(' ') + '.');
  }
  return sentences;
}

export function benchLexicalEmbedder(
  embedder: LexicalEmbedder,
  n = 50_000,
  dimensions = 1536,
): LexicalEmbedderBenchResult {
  const sentences = benchSentences(n);
  // warm-up so the JIT has compiled the hot loops
  embedder.embedMany(sentences.slice(0, Math.min(2000, n)), dimensions);
  const started = performance.now();
  embedder.embedMany(sentences, dimensions);
  const elapsedMs = performance.now() - started;
  return {
    sentences: n,
    dimensions,
    elapsedMs,
    perSecond: elapsedMs > 0 ? Math.round((n * 1000) / elapsedMs) : Number.POSITIVE_INFINITY,
  };
}
