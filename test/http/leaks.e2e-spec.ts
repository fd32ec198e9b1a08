/**
 * Nothing internal in client messages (an unreachable upstream's address stays in
 * the logs), and /v1/rerank reports its cost like every other endpoint.
 */
import { createServer } from 'node:net';
import request from 'supertest';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { costRub, FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 1));
    });
  });
}

describe(`no leaks in answers (${backendKind()})`, () => {
  let t: TestApp;
  let apiKey: string;
  let port: number;

  beforeAll(async () => {
    port = await closedPort();
    t = await createTestApp({
      env: {
        OPENAI_API_KEY: 'sk-x',
        OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
        ANTHROPIC_API_KEY: 'sk-y',
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      },
    });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(10));
  });
  afterAll(() => t?.close());

  it.each(['gpt-4o-mini', 'claude-sonnet-4'])(
    'an unreachable upstream (%s) → 502 without its address, stream or not',
    async (model) => {
      for (const stream of [false, true]) {
        const res = await request(t.url)
          .post('/v1/chat/completions')
          .set('authorization', `Bearer ${apiKey}`)
          .send({ model, messages: [{ role: 'user', content: 'hi' }], stream, max_tokens: 16 });
        expect(res.status).toBe(502);
        const text = JSON.stringify(res.body) + res.text;
        expect(res.body.error).toMatchObject({
          type: 'upstream_error',
          message: expect.stringMatching(/could not be reached/),
        });
        expect(text).not.toContain('127.0.0.1');
        expect(text).not.toContain(String(port));
      }
    },
  );
});

describe(`/v1/rerank reports its cost (${backendKind()})`, () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let apiKey: string;
  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({ env: openAiEnv(fake) });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(10));
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('x-gateway-cost-rub and cost.total_cost_rub equal the ledger charge', async () => {
    const res = await request(t.url)
      .post('/v1/rerank')
      .set('authorization', `Bearer ${apiKey}`)
      .send({
        model: 'small',
        query: 'capital of France',
        documents: ['Paris is the capital of France.', 'Cats sleep a lot.'],
      });
    expect(res.status).toBe(200);
    const tokens = res.body.meta.billed_units.input_tokens as number;
    expect(res.body.cost).toEqual({ total_cost_rub: costRub(tokens), currency: 'RUB' });
    expect(res.headers['x-gateway-cost-rub']).toBe(String(costRub(tokens)));
    const usage = await request(t.url).get('/api/v1/usage?limit=1').set('api-key', apiKey);
    expect(usage.body.data[0].amount_rub).toBe(-costRub(tokens));
  });
});
