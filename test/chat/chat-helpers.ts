/**
 * Shared helpers for the chat e2e suites (test-only): catalog prices, independent expected-cost
 * math, balance / ledger snapshots, SSE reading and the provider env for the fakes.
 */
import request from 'supertest';
import { TokenCounter } from '@app/providers';
import type { FakeAnthropic, FakeGemini, FakeOpenAI } from '../fakes';

// ---------------------------------------------------------------------------------------------
// Prices from libs/providers/src/catalog/models.json, written out on purpose: a catalog change
// must be a visible test change (the models suite also checks them against GET /api/v1/models).

export interface Pricing {
  input: number;
  output: number;
  cacheRead: number | null;
  cacheWrite: number | null;
  /** 1-hour cache writes (null: the 5-minute price) */
  cacheWrite1h?: number | null;
  image: number | null;
}

export const PRICES = {
  'gpt-4o-mini': { input: 15, output: 60, cacheRead: 7.5, cacheWrite: null, image: 0.1 },
  'gpt-4o': { input: 250, output: 1000, cacheRead: 125, cacheWrite: null, image: 0.1 },
  'deepseek-chat': { input: 27, output: 110, cacheRead: 7, cacheWrite: null, image: null },
  'deepseek-reasoner': { input: 55, output: 219, cacheRead: 14, cacheWrite: null, image: null },
  'claude-sonnet-4': { input: 300, output: 1500, cacheRead: 30, cacheWrite: 375, cacheWrite1h: 600, image: 0.1 },
  'gemini-2.5-flash': { input: 30, output: 250, cacheRead: 7.5, cacheWrite: null, image: 0.1 },
  local: { input: 1, output: 2, cacheRead: null, cacheWrite: null, image: null },
} satisfies Record<string, Pricing>;

export type PricedModel = keyof typeof PRICES;

export interface CostRub {
  input_cost_rub: number;
  output_cost_rub: number;
  image_cost_rub: number | null;
  cache_cost_rub: number | null;
  total_cost_rub: number;
  currency: 'RUB';
}

export interface UsageCounts {
  /** all prompt tokens, INCLUDING cache reads and writes */
  prompt: number;
  completion: number;
  cacheRead?: number;
  cacheWrite?: number;
  images?: number;
}

/** µRUB ×1e6 of `tokens` at `rubPer1M` (exact integer: prices have at most 6 decimals). */
function exactTimes1e6(tokens: number, rubPer1M: number | null): bigint {
  if (!rubPer1M || tokens <= 0) return 0n;
  return BigInt(tokens) * BigInt(Math.round(rubPer1M * 1_000_000));
}

/** Round half up to whole µRUB. */
function roundMicro(x1e6: bigint): number {
  const q = x1e6 / 1_000_000n;
  const r = x1e6 % 1_000_000n;
  return Number(r * 2n >= 1_000_000n ? q + 1n : q);
}

const rub = (micro: number): number => Number((micro / 1_000_000).toFixed(6));

/**
 * Expected `cost` object, computed independently of the product: input price on the uncached
 * prompt part, cache reads / writes at their own prices (input price when the catalog has none),
 * a fee per image, each part rounded to the µRUB, the total from one exact sum rounded once.
 */
export function expectedCostMicro(
  p: Pricing,
  u: UsageCounts,
): { inputMicro: number; outputMicro: number; cacheMicro: number; imageMicro: number; totalMicro: number } {
  const cacheRead = u.cacheRead ?? 0;
  const cacheWrite = u.cacheWrite ?? 0;
  const images = u.images ?? 0;
  const uncached = u.prompt - cacheRead - cacheWrite;
  const parts = {
    input: exactTimes1e6(uncached, p.input),
    output: exactTimes1e6(u.completion, p.output),
    read: exactTimes1e6(cacheRead, p.cacheRead ?? p.input),
    write: exactTimes1e6(cacheWrite, p.cacheWrite ?? p.input),
    image: BigInt(images) * BigInt(Math.round((p.image ?? 0) * 1_000_000)) * 1_000_000n,
  };
  return {
    inputMicro: roundMicro(parts.input),
    outputMicro: roundMicro(parts.output),
    cacheMicro: roundMicro(parts.read) + roundMicro(parts.write),
    imageMicro: roundMicro(parts.image),
    totalMicro: roundMicro(parts.input + parts.output + parts.read + parts.write + parts.image),
  };
}

export function expectedCost(p: Pricing, u: UsageCounts): CostRub {
  const m = expectedCostMicro(p, u);
  const cacheAware = p.cacheRead !== null || p.cacheWrite !== null || (u.cacheRead ?? 0) + (u.cacheWrite ?? 0) > 0;
  return {
    input_cost_rub: rub(m.inputMicro),
    output_cost_rub: rub(m.outputMicro),
    image_cost_rub: (u.images ?? 0) > 0 ? rub(m.imageMicro) : null,
    cache_cost_rub: cacheAware ? rub(m.cacheMicro) : null,
    total_cost_rub: rub(m.totalMicro),
    currency: 'RUB',
  };
}

export const toMicro = (rubAmount: number): number => Math.round(rubAmount * 1_000_000);

// ---------------------------------------------------------------------------------------------
// Gateway tokenizer (what the gateway counts when the provider reports no usage)

export const gatewayTokens = new TokenCounter('o200k_base');

/** The gateway's prompt-token count for plain-text messages (OpenAI chat format overhead included). */
export function gatewayPromptTokens(messages: { role: string; content: string }[]): number {
  return gatewayTokens.countChat(messages);
}

// ---------------------------------------------------------------------------------------------
// Balance and ledger

export interface BalanceView {
  team_id: string;
  balance_rub: number;
  reserved_rub: number;
  available_rub: number;
  currency: 'RUB';
}

export interface LedgerEntry {
  id: string;
  kind: 'charge' | 'top_up';
  request_id: string | null;
  reference: string | null;
  endpoint: string | null;
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  amount_rub: number;
  balance_after_rub: number;
  created_at: string;
}

export async function getBalance(url: string, apiKey: string): Promise<BalanceView> {
  const res = await request(url).get('/api/v1/balance').set('api-key', apiKey);
  if (res.status !== 200) throw new Error(`balance: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as BalanceView;
}

/** Newest first. */
export async function getLedger(url: string, apiKey: string): Promise<LedgerEntry[]> {
  const res = await request(url).get('/api/v1/usage?limit=100').set('api-key', apiKey);
  if (res.status !== 200) throw new Error(`usage: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: LedgerEntry[] }).data;
}

export async function charges(url: string, apiKey: string): Promise<LedgerEntry[]> {
  return (await getLedger(url, apiKey)).filter((e) => e.kind === 'charge');
}

/**
 * Balance before/after bookkeeping for one team. `expectCharged(total)` checks the balance moved by
 * exactly `total` RUB, nothing stays reserved and exactly one new ledger charge of that amount
 * exists; `expectUntouched()` checks nothing moved and no charge was written.
 */
export class Wallet {
  private beforeMicro = 0;
  private beforeCharges = 0;

  constructor(
    private readonly url: string,
    readonly apiKey: string,
  ) {}

  async snapshot(): Promise<this> {
    this.beforeMicro = toMicro((await getBalance(this.url, this.apiKey)).balance_rub);
    this.beforeCharges = (await charges(this.url, this.apiKey)).length;
    return this;
  }

  async expectCharged(
    totalRub: number,
    meta: { model?: string; endpoint?: string; promptTokens?: number; completionTokens?: number } = {},
  ): Promise<LedgerEntry> {
    expect(totalRub).toBeGreaterThan(0);
    const b = await getBalance(this.url, this.apiKey);
    expect(this.beforeMicro - toMicro(b.balance_rub)).toBe(toMicro(totalRub));
    expect(b.reserved_rub).toBe(0);
    const all = await charges(this.url, this.apiKey);
    expect(all).toHaveLength(this.beforeCharges + 1);
    const entry = all[0];
    expect(toMicro(Math.abs(entry.amount_rub))).toBe(toMicro(totalRub));
    expect(entry.balance_after_rub).toBe(b.balance_rub);
    if (meta.model !== undefined) expect(entry.model).toBe(meta.model);
    if (meta.endpoint !== undefined) expect(entry.endpoint).toBe(meta.endpoint);
    if (meta.promptTokens !== undefined) expect(entry.prompt_tokens).toBe(meta.promptTokens);
    if (meta.completionTokens !== undefined) expect(entry.completion_tokens).toBe(meta.completionTokens);
    return entry;
  }

  /** Several calls since the snapshot: the balance moved by their sum, one charge per call (oldest first). */
  async expectChargedEach(totalsRub: number[]): Promise<void> {
    const b = await getBalance(this.url, this.apiKey);
    expect(this.beforeMicro - toMicro(b.balance_rub)).toBe(totalsRub.reduce((sum, x) => sum + toMicro(x), 0));
    expect(b.reserved_rub).toBe(0);
    const all = await charges(this.url, this.apiKey);
    expect(all).toHaveLength(this.beforeCharges + totalsRub.length);
    expect(
      all
        .slice(0, totalsRub.length)
        .map((e) => toMicro(Math.abs(e.amount_rub)))
        .reverse(),
    ).toEqual(totalsRub.map(toMicro));
  }

  async expectUntouched(): Promise<void> {
    const b = await getBalance(this.url, this.apiKey);
    expect(toMicro(b.balance_rub)).toBe(this.beforeMicro);
    expect(b.reserved_rub).toBe(0);
    expect(await charges(this.url, this.apiKey)).toHaveLength(this.beforeCharges);
  }
}

/** Polls `probe` until it returns a value (not undefined) or `timeoutMs` passes (bounded wait for async settlement). */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 3000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// ---------------------------------------------------------------------------------------------
// SSE

export interface SseMessage {
  event: string | null;
  data: string;
}

/** Parses a complete SSE text into messages (comments and blank keep-alives skipped). */
export function parseSse(text: string): SseMessage[] {
  const out: SseMessage[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split('\n\n')) {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length) out.push({ event, data: data.join('\n') });
  }
  return out;
}

/** POST JSON with fetch and read an SSE answer to the end. */
export async function postSse(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; contentType: string; headers: Record<string, string>; messages: SseMessage[] }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    headers: Object.fromEntries(res.headers.entries()),
    messages: parseSse(text),
  };
}

// ---------------------------------------------------------------------------------------------
// Provider env for the fakes

export const UPSTREAM_KEYS = {
  openai: 'sk-fake-openai',
  deepseek: 'sk-fake-deepseek',
  anthropic: 'sk-ant-fake',
  gemini: 'gemini-fake-key',
};

export function providerEnv(f: {
  openai?: FakeOpenAI;
  deepseek?: FakeOpenAI;
  anthropic?: FakeAnthropic;
  gemini?: FakeGemini;
}): Record<string, string> {
  const env: Record<string, string> = {};
  if (f.openai) Object.assign(env, { OPENAI_API_KEY: UPSTREAM_KEYS.openai, OPENAI_BASE_URL: `${f.openai.baseUrl}/v1` });
  if (f.deepseek)
    Object.assign(env, { DEEPSEEK_API_KEY: UPSTREAM_KEYS.deepseek, DEEPSEEK_BASE_URL: `${f.deepseek.baseUrl}/v1` });
  if (f.anthropic)
    Object.assign(env, { ANTHROPIC_API_KEY: UPSTREAM_KEYS.anthropic, ANTHROPIC_BASE_URL: f.anthropic.baseUrl });
  if (f.gemini) Object.assign(env, { GEMINI_API_KEY: UPSTREAM_KEYS.gemini, GEMINI_BASE_URL: f.gemini.baseUrl });
  return env;
}

/** An object from a recorded JSON value (throws with context instead of returning any). */
export function obj(v: unknown, what = 'value'): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new Error(`${what} is not an object: ${JSON.stringify(v)}`);
  return v as Record<string, unknown>;
}

export function arr(v: unknown, what = 'value'): unknown[] {
  if (!Array.isArray(v)) throw new Error(`${what} is not an array: ${JSON.stringify(v)}`);
  return v;
}
