/**
 * Shared helpers for the rerank e2e suites (test-only): expected scores from the fake upstream's
 * pure embeddings, expected costs written out from spec section 8, balance/ledger snapshots.
 */
import request from 'supertest';
import { cosineSimilarity, fakeEmbedding, fakeTokenCount, FakeOpenAI, RecordedRequest } from '../fakes';

export const FAKE_OPENAI_KEY = 'sk-fake-openai-rerank';

/** Spec section 8, written out on purpose: µRUB per token = RUB per 1M tokens. */
export const PRICE_RUB_PER_1M = { small: 200, large: 780 } as const;
export const DIMS = { small: 1536, large: 3072 } as const;
export type Size = keyof typeof DIMS;

/** Gateway env pointing the OpenAI provider at the fake. */
export function openAiEnv(fake: FakeOpenAI): Record<string, string> {
  return { OPENAI_API_KEY: FAKE_OPENAI_KEY, OPENAI_BASE_URL: `${fake.baseUrl}/v1` };
}

/** Exact cost in µRUB of `tokens` (integers: prices are whole RUB per 1M tokens). */
export function costMicro(tokens: number, size: Size = 'small'): number {
  return tokens * PRICE_RUB_PER_1M[size];
}

export function costRub(tokens: number, size: Size = 'small'): number {
  return Number((costMicro(tokens, size) / 1e6).toFixed(6));
}

export const toMicro = (rub: number): number => Math.round(rub * 1e6);

export function tokens(texts: string[]): number {
  return texts.reduce((a, t) => a + fakeTokenCount(t), 0);
}

const vectorMemo = new Map<string, Float32Array>();

/** fakeEmbedding, memoised (it is pure, and not fast: ~0.7 ms per word at 1536 dimensions). */
export function fakeVector(text: string, dims: number): Float32Array {
  const key = `${dims}\u0000${text}`;
  let v = vectorMemo.get(key);
  if (!v) {
    v = fakeEmbedding(text, dims);
    if (vectorMemo.size > 20_000) vectorMemo.clear();
    vectorMemo.set(key, v);
  }
  return v;
}

/** Raw cosine of the fake's vectors (what the gateway computes from the float32 it receives). */
export function rawScore(query: string, doc: string, dims: number = DIMS.small): number {
  return cosineSimilarity(fakeVector(query, dims), fakeVector(doc, dims));
}

export function round4(x: number): number {
  const r = Number(x.toFixed(4));
  return r === 0 ? 0 : r;
}

export function percent(x: number): string {
  const t = (x * 100).toFixed(1);
  return `${t === '-0.0' ? '0.0' : t}%`;
}

export interface ExpectedItem {
  id: string;
  data: string;
  metadata: Record<string, unknown>;
}

/**
 * Expected `results` and counts, computed independently of the gateway: cosine of the fake's
 * vectors, keep score ≥ threshold, best first (ties in input order), at most topK, rank from 1.
 */
export function expectedRanking(
  query: string,
  items: ExpectedItem[],
  opts: { threshold?: number; topK?: number; dims?: number } = {},
) {
  const threshold = opts.threshold ?? 0;
  const topK = opts.topK ?? 10;
  const scored = items.map((it, index) => ({ it, index, score: rawScore(query, it.data, opts.dims ?? DIMS.small) }));
  const kept = scored.filter((s) => s.score >= threshold).sort((a, b) => b.score - a.score || a.index - b.index);
  const results = kept.slice(0, topK).map((s, r) => ({
    rank: r + 1,
    id: s.it.id,
    data: s.it.data,
    metadata: s.it.metadata,
    similarity_score: round4(s.score),
    similarity_percentage: percent(s.score),
  }));
  return {
    results,
    total_documents: items.length,
    filtered_documents: kept.length,
    returned_documents: results.length,
    scores: scored.map((s) => s.score),
  };
}

/** The embedding calls the fake received, as `{ input, dimensions, encoding_format, model }`. */
export function embeddingCalls(
  fake: FakeOpenAI,
): Array<{ model: unknown; input: unknown; encoding_format: unknown; dimensions: unknown; auth: unknown }> {
  return fake.requestsTo('/v1/embeddings').map((r: RecordedRequest) => ({
    model: r.body.model,
    input: r.body.input,
    encoding_format: r.body.encoding_format,
    dimensions: r.body.dimensions,
    auth: r.headers.authorization,
  }));
}

export function rerank(url: string, apiKey: string, body: Record<string, unknown>): request.Test {
  return request(url).post('/api/v1/rerank').set('api-key', apiKey).send(body);
}

export async function cacheStats(url: string, apiKey: string): Promise<Record<string, unknown>> {
  const res = await request(url).get('/api/v1/rerank/cache-stats').set('api-key', apiKey);
  if (res.status !== 200) throw new Error(`cache-stats: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function clearCache(url: string, apiKey: string): Promise<request.Response> {
  return request(url).delete('/api/v1/rerank/cache').set('api-key', apiKey);
}

/** Latest ledger entry of the caller's team. */
export async function lastLedgerEntry(url: string, apiKey: string): Promise<Record<string, unknown>> {
  const res = await request(url).get('/api/v1/usage?limit=1').set('api-key', apiKey);
  if (res.status !== 200) throw new Error(`usage: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data[0];
}

export function errorBody(type: string, param: string | null) {
  return { error: { message: expect.any(String), type, code: expect.anything(), param } };
}
