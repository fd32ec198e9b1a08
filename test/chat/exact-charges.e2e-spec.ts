/**
 * The charge is always what the provider reports (tokens × price), also when the
 * provider counts far more tokens than the gateway's tokenizer did. The excess over the hold comes
 * from the balance, which may go below zero by at most that excess; the team is then refused (402)
 * until topped up. Reservations pad more where the gateway's tokenizer under-counts (Anthropic).
 */
import request from 'supertest';
import { FakeAnthropic } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { PRICES, UPSTREAM_KEYS, expectedCost, getBalance, providerEnv } from './chat-helpers';

const toMicro = (rub: number): number => Math.round(rub * 1e6);

describe(`exact charges (${backendKind()})`, () => {
  let t: TestApp;
  let admin: AdminClient;
  let anthropic: FakeAnthropic;
  let fakes: Array<{ close(): Promise<void> }>;

  beforeAll(async () => {
    anthropic = await FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic });
    fakes = [anthropic];
    t = await createTestApp({ env: providerEnv({ anthropic }) });
    admin = new AdminClient(t.url);
  });
  afterEach(() => anthropic.reset());
  afterAll(async () => {
    await t?.close();
    await Promise.all(fakes.map((f) => f.close()));
  });

  const chat = (apiKey: string, prompt: string, maxTokens = 16) =>
    request(t.url)
      .post('/api/v1/chat')
      .set('api-key', apiKey)
      .send({ model: 'claude-sonnet-4', user_id: 'u', prompt, max_tokens: maxTokens });

  it('a provider reporting 2× the prompt tokens is charged in full: the ledger row is tokens × price', async () => {
    const { apiKey } = await admin.teamWithKey(100, 'double-count');
    const prompt = 'Расскажи подробно о системе оплаты. '.repeat(200);
    anthropic.enqueue({ text: 'ok', usage: { input: 4000, output: 2 } });
    const res = await chat(apiKey, prompt);
    expect(res.status).toBe(200);
    const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 4000, completion: 2 });
    expect(res.body.cost.total_cost_rub).toBe(cost.total_cost_rub);
    expect(res.body.usage).toMatchObject({ prompt_tokens: 4000, completion_tokens: 2 });
    const usage = await request(t.url).get('/api/v1/usage?limit=1').set('api-key', apiKey);
    expect(usage.body.data[0]).toMatchObject({
      prompt_tokens: 4000,
      completion_tokens: 2,
      amount_rub: -cost.total_cost_rub,
    });
    expect(toMicro(100) - toMicro((await getBalance(t.url, apiKey)).balance_rub)).toBe(toMicro(cost.total_cost_rub));
  });

  it('holds pad Cyrillic prompts for tokenizers that count them higher (no overrun for a 2× count)', async () => {
    const prompt = 'Проверка резервирования средств перед запросом. '.repeat(100);
    // a balance just above what a 1.25× hold needed before: the padded hold no longer fits
    const { apiKey } = await admin.teamWithKey(0.2, 'padding');
    const res = await chat(apiKey, prompt, 1);
    expect(res.status).toBe(402);
    expect(anthropic.requests).toHaveLength(0);
    expect(res.body.error.message).toMatch(/requires up to/);
    // the hold shown covers at least one token per Cyrillic character
    const needed = Number(/requires up to ([\d.]+) RUB/.exec(res.body.error.message)![1]);
    const cyrillic = [...prompt].filter((c) => c.codePointAt(0)! > 0x7f).length;
    expect(needed).toBeGreaterThanOrEqual((cyrillic * PRICES['claude-sonnet-4'].input) / 1e6);
  });

  it('an excess the balance cannot cover takes it below zero by at most that excess; then 402 until topped up', async () => {
    const { apiKey, teamId } = await admin.teamWithKey(1, 'overdraft');
    anthropic.enqueue({ text: 'ok', usage: { input: 10_000, output: 1 } });
    const first = await chat(apiKey, 'short question');
    expect(first.status).toBe(200);
    const cost = expectedCost(PRICES['claude-sonnet-4'], { prompt: 10_000, completion: 1 });
    expect(first.body.cost.total_cost_rub).toBe(cost.total_cost_rub);
    const after = await getBalance(t.url, apiKey);
    expect(toMicro(after.balance_rub)).toBe(toMicro(1) - toMicro(cost.total_cost_rub));
    expect(after.balance_rub).toBeLessThan(0);
    const before = anthropic.requests.length;
    const refused = await chat(apiKey, 'another');
    expect(refused.status).toBe(402);
    expect(refused.body.error.type).toBe('insufficient_quota');
    expect(anthropic.requests.length).toBe(before);
    await admin.topUp(teamId, 5);
    anthropic.enqueue({ text: 'ok', usage: { input: 5, output: 1 } });
    expect((await chat(apiKey, 'after top-up')).status).toBe(200);
  });
});
