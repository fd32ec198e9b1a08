/**
 * Small balances and cut streams.
 *
 * - A call without max_tokens whose model's full output the balance cannot cover is not refused:
 *   its output is capped to what the balance affords (the max_tokens sent upstream), the answer says
 *   so in `x-gateway-max-tokens-capped` and ends with each dialect's own length stop; the balance
 *   never goes below zero. /v1/messages, whose max_tokens is required, reads it as a ceiling. Below
 *   the least output the request is refused (402) and nothing reaches the upstream.
 * - A RAG chat holds its context's worst case and caps the answer to what is left: 4 RUB answer a
 *   knowledge-base chat on gpt-4o (it used to be refused for the model's full output).
 * - A stream the client cuts is charged, and its request-log record carries that charge (it used to
 *   say 0/0, 0 RUB). A Claude stream is charged with the input tokens of its message_start.
 */
import request from 'supertest';
import { RequestLogWriter } from '@app/request-log';
import { FakeAnthropic, FakeOpenAI, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import {
  charges,
  eventually,
  gatewayPromptTokens,
  getBalance,
  LedgerEntry,
  obj,
  postSse,
  PRICES,
  providerEnv,
  toMicro,
  UPSTREAM_KEYS,
} from './chat-helpers';

const CAPPED = 'x-gateway-max-tokens-capped';
const PROMPT = 'Say hi';

/** Hold tokens of a counted prompt (docs/billing.md): exact tokenizers +10 % + 32; others 1.5× (or per character) + 32. */
function holdTokens(counted: number, text: string, exact: boolean): number {
  if (exact) return Math.ceil(counted * 1.1) + 32;
  const nonAscii = [...text].filter((c) => c.codePointAt(0)! > 0x7f).length;
  return Math.max(Math.ceil(counted * 1.5), nonAscii + Math.ceil((text.length - nonAscii) / 3)) + 32;
}

/** The output `heldMicro` affords after the prompt side at the dearest input-side price. */
function affordable(heldMicro: number, promptHold: number, inputSide: number, output: number): number {
  return Math.floor((heldMicro - promptHold * inputSide) / output);
}

describe(`small balances: output capped to the balance; cut streams recorded as charged (${backendKind()})`, () => {
  let t: TestApp;
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let admin: AdminClient;

  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([
      FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai }),
      FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic }),
    ]);
    t = await createTestApp({
      env: {
        ...providerEnv({ openai, anthropic }),
        OPENAI_MAX_RETRIES: '0',
        ANTHROPIC_MAX_RETRIES: '0',
        INGEST_POLL_MS: '50',
        REQUEST_LOG_FLUSH_MS: '20',
      },
    });
    admin = new AdminClient(t.url);
  });
  afterEach(() => {
    openai.reset();
    anthropic.reset();
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([openai?.close(), anthropic?.close()]);
  });

  const gpt4oCap = (balanceMicro: number) => {
    const counted = gatewayPromptTokens([{ role: 'user', content: PROMPT }]);
    return affordable(
      balanceMicro,
      holdTokens(counted, PROMPT, false),
      PRICES['gpt-4o'].input,
      PRICES['gpt-4o'].output,
    );
  };

  async function expectSolvent(apiKey: string): Promise<void> {
    const b = await getBalance(t.url, apiKey);
    expect(b.balance_rub).toBeGreaterThanOrEqual(0);
    expect(b.reserved_rub).toBe(0);
  }

  describe('a call without max_tokens on a 1 RUB balance (gpt-4o: its full output would hold 16.4 RUB)', () => {
    it('/v1/chat/completions: answered, max tokens capped upstream, finish_reason "length", balance ≥ 0', async () => {
      const { apiKey } = await admin.teamWithKey(1, 'capped-completions');
      const cap = gpt4oCap(1_000_000);
      expect(cap).toBeGreaterThan(900);
      expect(cap).toBeLessThan(1000);
      openai.enqueue({ text: 'Hi '.repeat(50), finish: 'length', usage: { input: 12, output: cap } });
      const res = await request(t.url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }] });
      expect(res.status).toBe(200);
      expect(res.headers[CAPPED]).toBe(String(cap));
      expect(openai.lastRequest?.body).toMatchObject({ model: 'gpt-4o', max_tokens: cap });
      expect(res.body.choices[0].finish_reason).toBe('length');
      await expectSolvent(apiKey);
    });

    it('streamed /v1/chat/completions and /api/v1/chat: the header goes out with the stream', async () => {
      const { apiKey } = await admin.teamWithKey(1, 'capped-streams');
      const cap = gpt4oCap(1_000_000);
      openai.enqueue({ text: 'Hi there', finish: 'length', usage: { input: 12, output: 20 } });
      const sse = await postSse(
        `${t.url}/v1/chat/completions`,
        { authorization: `Bearer ${apiKey}` },
        {
          model: 'gpt-4o',
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: PROMPT }],
        },
      );
      expect(sse.status).toBe(200);
      expect(sse.headers[CAPPED]).toBe(String(cap));
      expect(openai.lastRequest?.body).toMatchObject({ max_tokens: cap });
      const finishes = sse.messages
        .filter((m) => m.data !== '[DONE]')
        .flatMap((m) => (obj(JSON.parse(m.data)).choices as { finish_reason: string | null }[]) ?? [])
        .map((c) => c.finish_reason)
        .filter((f) => f !== null);
      expect(finishes).toEqual(['length']);
      await expectSolvent(apiKey);

      // the REST chat (no finish reason in its answer: the header says the output was capped)
      const left = toMicro((await getBalance(t.url, apiKey)).balance_rub);
      const restCap = affordable(
        left,
        holdTokens(gatewayPromptTokens([{ role: 'user', content: PROMPT }]), PROMPT, false),
        PRICES['gpt-4o'].input,
        PRICES['gpt-4o'].output,
      );
      openai.enqueue({ text: 'Hi', finish: 'length', usage: { input: 12, output: 20 } });
      const rest = await request(t.url)
        .post('/api/v1/chat')
        .set('api-key', apiKey)
        .send({ model: 'gpt-4o', user_id: 'u', prompt: PROMPT });
      expect(rest.status).toBe(200);
      expect(rest.headers[CAPPED]).toBe(String(restCap));
      expect(openai.lastRequest?.body).toMatchObject({ max_tokens: restCap });
      await expectSolvent(apiKey);
    });

    it('/v1/responses: status "incomplete", incomplete_details.reason "max_output_tokens"', async () => {
      const { apiKey } = await admin.teamWithKey(1, 'capped-responses');
      const counted = gatewayPromptTokens([{ role: 'user', content: PROMPT }]);
      const cap = affordable(1_000_000, holdTokens(counted, PROMPT, false), 250, 1000);
      openai.enqueue({ text: 'Hi', finish: 'length', usage: { input: 12, output: cap } });
      const res = await request(t.url)
        .post('/v1/responses')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ model: 'gpt-4o', input: PROMPT, store: false });
      expect(res.status).toBe(200);
      expect(res.headers[CAPPED]).toBe(String(cap));
      expect(openai.lastRequest?.body).toMatchObject({ max_tokens: cap });
      expect(res.body).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
      await expectSolvent(apiKey);
    });

    it('/v1/messages (max_tokens 32000 is a ceiling): the Claude upstream gets the capped max_tokens, stop_reason "max_tokens"', async () => {
      const { apiKey } = await admin.teamWithKey(1, 'capped-messages');
      const counted = gatewayPromptTokens([{ role: 'user', content: PROMPT }]);
      // Claude: the padded prompt at the dearest input-side price (the 1-hour cache write)
      const cap = affordable(1_000_000, holdTokens(counted, PROMPT, false), 600, PRICES['claude-sonnet-4'].output);
      expect(cap).toBeGreaterThan(500);
      anthropic.enqueue({ text: 'Hi', finish: 'length', usage: { input: 9, output: cap } });
      const res = await request(t.url)
        .post('/v1/messages')
        .set('x-api-key', apiKey)
        .set('anthropic-version', '2023-06-01')
        .send({ model: 'claude-sonnet-4', max_tokens: 32000, messages: [{ role: 'user', content: PROMPT }] });
      expect(res.status).toBe(200);
      expect(res.headers[CAPPED]).toBe(String(cap));
      expect(anthropic.lastRequest?.body).toMatchObject({ model: expect.any(String), max_tokens: cap });
      expect(res.body.stop_reason).toBe('max_tokens');
      await expectSolvent(apiKey);
    });

    it('max_tokens given, or not even the least output affordable: refused with 402 as before, nothing sent upstream', async () => {
      const { apiKey } = await admin.teamWithKey(1, 'capped-refusals');
      const given = await request(t.url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ model: 'gpt-4o', max_tokens: 5000, messages: [{ role: 'user', content: PROMPT }] });
      expect(given.status).toBe(402);
      expect(given.body.error.message).toMatch(/requires up to [\d.]+ RUB/);
      const poor = await admin.teamWithKey(0.01, 'capped-poor');
      const none = await request(t.url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${poor.apiKey}`)
        .send({ model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }] });
      expect(none.status).toBe(402);
      expect(none.body.error.type).toBe('insufficient_quota');
      expect(none.body.error.message).toMatch(/0\.01 RUB available, this request requires at least [\d.]+ RUB/);
      expect(openai.requests).toHaveLength(0);
      expect(await charges(t.url, apiKey)).toHaveLength(0);
      expect(await charges(t.url, poor.apiKey)).toHaveLength(0);
    });

    it('a fallback chain: each candidate gets the output the hold affords at its own prices', async () => {
      const { apiKey } = await admin.teamWithKey(1, 'capped-fallback');
      openai.enqueue({ fault: faults.http(500) }, { text: 'Hi', usage: { input: 12, output: 3 } });
      const res = await request(t.url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${apiKey}`)
        .send({ model: 'gpt-4o', fallbacks: ['gpt-4o-mini'], messages: [{ role: 'user', content: PROMPT }] });
      expect(res.status).toBe(200);
      const [first, second] = openai.requests.map((r) => obj(r.body));
      expect(first).toMatchObject({ model: 'gpt-4o', max_tokens: gpt4oCap(1_000_000) });
      // gpt-4o-mini's full output (16384 × 60 µRUB) fits the hold: not capped
      expect(second).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 16384 });
      expect(res.headers[CAPPED]).toBeUndefined();
      await expectSolvent(apiKey);
    });
  });

  it('a RAG chat on 4 RUB is answered (it used to require up to the model’s full output)', async () => {
    const { apiKey } = await admin.teamWithKey(4, 'capped-rag');
    const auth = { authorization: `Bearer ${apiKey}` };
    const file = await request(t.url)
      .post('/v1/files')
      .set(auth)
      .field('purpose', 'assistants')
      .attach('file', Buffer.from('Handbook.\n\nThe launch codename is BLUE HERON.\n\nOffices open at nine.'), 'h.txt');
    const vs = await request(t.url).post('/v1/vector_stores').set(auth).send({ name: 'handbook' });
    await request(t.url).post(`/v1/vector_stores/${vs.body.id}/files`).set(auth).send({ file_id: file.body.id });
    await eventually(
      async () => {
        const got = await request(t.url).get(`/v1/vector_stores/${vs.body.id}`).set(auth);
        return got.body.file_counts.completed === 1 ? true : undefined;
      },
      10_000,
      'the ingestion',
    );
    // 4 RUB less the document's embedding
    const start = toMicro((await getBalance(t.url, apiKey)).balance_rub);
    expect(start).toBeGreaterThan(3_990_000);
    expect(start).toBeLessThanOrEqual(4_000_000);
    openai.setDefault({ text: 'BLUE HERON', usage: { input: 900, output: 4 } });
    const question = { role: 'user', content: 'What is the launch codename?' };
    const res = await request(t.url)
      .post('/v1/chat/completions')
      .set(auth)
      .send({ model: 'gpt-4o', knowledge_base_id: vs.body.id, messages: [question] });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe('BLUE HERON');
    const sent = openai.requestsTo('/v1/chat/completions').map((r) => obj(r.body));
    expect(sent).toHaveLength(1);
    const cap = Number(res.headers[CAPPED]);
    expect(sent[0].max_tokens).toBe(cap);
    expect(cap).toBeGreaterThan(1000);
    expect(cap).toBeLessThan(4000);
    const after = await getBalance(t.url, apiKey);
    expect(after.reserved_rub).toBe(0);
    expect(after.balance_rub).toBeGreaterThan(0);
    expect(start - toMicro(after.balance_rub)).toBe(toMicro(res.body.cost.total_cost_rub));
  });

  describe('a stream the client cuts: its request-log record carries what the ledger charged', () => {
    async function cut(path: string, headers: Record<string, string>, body: Record<string, unknown>): Promise<string> {
      const ac = new AbortController();
      const res = await fetch(`${t.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ ...body, stream: true }),
        signal: ac.signal,
      });
      expect(res.status).toBe(200);
      const id = res.headers.get('x-request-id')!;
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let raw = '';
      while (!raw.includes('Waves')) {
        const { value, done } = await reader.read();
        if (done) break;
        raw += decoder.decode(value, { stream: true });
      }
      ac.abort();
      await reader.cancel().catch(() => undefined);
      return id;
    }

    async function recordOf(
      apiKey: string,
      id: string,
    ): Promise<{ entry: LedgerEntry; record: Record<string, unknown> }> {
      const entry = await eventually(
        async () => (await charges(t.url, apiKey)).find((c) => c.request_id === id),
        5_000,
        'the charge of the cut stream',
      );
      const record = await eventually(
        async () => {
          await t.app.get(RequestLogWriter).flush();
          const r = await request(t.url).get(`/api/v1/requests/${id}`).set('authorization', `Bearer ${apiKey}`);
          return r.status === 200 ? (r.body as Record<string, unknown>) : undefined;
        },
        5_000,
        'the request-log record',
      );
      return { entry, record };
    }

    const claude = { model: 'claude-sonnet-4', max_tokens: 200 };
    const doors: [string, (key: string) => [string, Record<string, string>, Record<string, unknown>]][] = [
      ['/api/v1/chat', (key) => ['/api/v1/chat', { 'api-key': key }, { ...claude, user_id: 'u', prompt: 'The sea' }]],
      [
        '/v1/chat/completions',
        (key) => [
          '/v1/chat/completions',
          { authorization: `Bearer ${key}` },
          { ...claude, messages: [{ role: 'user', content: 'The sea' }] },
        ],
      ],
      [
        '/v1/responses',
        (key) => [
          '/v1/responses',
          { authorization: `Bearer ${key}` },
          { model: 'claude-sonnet-4', max_output_tokens: 200, input: 'The sea', store: false },
        ],
      ],
      [
        '/v1/messages',
        (key) => [
          '/v1/messages',
          { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
          { ...claude, messages: [{ role: 'user', content: 'The sea' }] },
        ],
      ],
    ];

    it.each(doors)(
      '%s on Claude: charged with message_start input_tokens; the record equals the ledger entry',
      async (_door, build) => {
        const { apiKey } = await admin.teamWithKey(50, 'cut-stream');
        // message_start reports 500 input tokens; 4 deltas are sent, then the upstream goes quiet
        anthropic.enqueue({
          text: 'Waves roll in slowly under a grey sky, endlessly.',
          chunkSize: 5,
          hang: { afterChunks: 7 },
          usage: { input: 500, output: 500 },
        });
        const [path, headers, body] = build(apiKey);
        const id = await cut(path, headers, body);
        await anthropic.waitForDisconnect(1, 2_000);
        const { entry, record } = await recordOf(apiKey, id);
        // the provider bills the 500 input tokens it reported, not the gateway's count of "The sea"
        expect(entry.prompt_tokens).toBe(500);
        expect(entry.completion_tokens).toBeGreaterThan(0);
        expect(record).toMatchObject({
          status: 200,
          error_code: 'client_closed',
          stream: true,
          usage: { input_tokens: 500, output_tokens: entry.completion_tokens },
          cost_rub: -entry.amount_rub,
        });
        expect(record.cost_rub).toBeGreaterThan(0);
        expect((await getBalance(t.url, apiKey)).reserved_rub).toBe(0);
      },
    );

    it('an OpenAI stream (no usage before its end): the gateway’s count, the same in the record and the ledger', async () => {
      const { apiKey } = await admin.teamWithKey(50, 'cut-openai');
      openai.enqueue({ text: 'Waves roll in slowly under a grey sky.', chunkSize: 5, hang: { afterChunks: 4 } });
      const id = await cut(
        '/v1/chat/completions',
        { authorization: `Bearer ${apiKey}` },
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'The sea' }] },
      );
      await openai.waitForDisconnect(1, 2_000);
      const { entry, record } = await recordOf(apiKey, id);
      expect(entry.prompt_tokens).toBe(gatewayPromptTokens([{ role: 'user', content: 'The sea' }]));
      expect(record).toMatchObject({
        usage: { input_tokens: entry.prompt_tokens, output_tokens: entry.completion_tokens },
        cost_rub: -entry.amount_rub,
      });
      expect(record.cost_rub).toBeGreaterThan(0);
    });
  });
});
