/**
 * The playground beyond chat: a signed-in member calls embeddings, rerank, images, Responses and
 * Anthropic Messages for a team named by x-team-id, charged to the team like a key; a viewer is
 * refused 403 and a request without the CSRF header 403 csrf_failed, before anything is sent upstream.
 */
import request from 'supertest';
import { FakeAnthropic, FakeOpenAI } from '../fakes';
import { providerEnv, toMicro, UPSTREAM_KEYS } from '../chat/chat-helpers';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, as, Browser, joinTeam } from './accounts-helpers';

const PASSWORD = 'correct horse battery staple';

interface Endpoint {
  name: string;
  path: string;
  body: Record<string, unknown>;
  /** the upstream that answers it (none: the built-in local image model) */
  upstream: () => FakeOpenAI | FakeAnthropic | null;
  prepare?: () => void;
}

describe(`accounts: embeddings, rerank, images, Responses and Messages with a session on ${backendKind()}`, () => {
  let t: TestApp;
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let teamId: string;
  let member: Browser;
  let viewer: Browser;

  const ENDPOINTS: Endpoint[] = [
    {
      name: 'POST /v1/embeddings',
      path: '/v1/embeddings',
      body: { model: 'text-embedding-3-small', input: ['one', 'two'] },
      upstream: () => openai,
    },
    {
      name: 'POST /api/v1/embeddings',
      path: '/api/v1/embeddings',
      body: { model: 'text-embedding-3-small', input: ['three'] },
      upstream: () => openai,
    },
    {
      name: 'POST /api/v1/rerank',
      path: '/api/v1/rerank',
      body: {
        query: 'how to reset a password',
        content: [
          { id: 'd1', data: 'Reset it in Settings.' },
          { id: 'd2', data: 'Lunch is at noon.' },
        ],
      },
      upstream: () => openai,
    },
    {
      name: 'POST /v1/rerank',
      path: '/v1/rerank',
      body: { query: 'capital of France', documents: ['Paris is the capital.', 'Bread is baked.'] },
      upstream: () => openai,
    },
    {
      name: 'POST /v1/images/generations',
      path: '/v1/images/generations',
      body: { model: 'local-image', prompt: 'a lighthouse', size: '256x256', quality: 'low' },
      upstream: () => null,
    },
    {
      name: 'POST /api/v1/images/generations',
      path: '/api/v1/images/generations',
      body: { model: 'local-image', prompt: 'a whale', size: '256x256', quality: 'low' },
      upstream: () => null,
    },
    {
      name: 'POST /v1/responses',
      path: '/v1/responses',
      body: { model: 'gpt-4o-mini', input: 'Say hi', max_output_tokens: 8 },
      upstream: () => openai,
      prepare: () => openai.enqueue({ text: 'Hi!', usage: { input: 9, output: 2 } }),
    },
    {
      name: 'POST /v1/messages',
      path: '/v1/messages',
      body: { model: 'claude-sonnet-4', max_tokens: 8, messages: [{ role: 'user', content: 'Say hi' }] },
      upstream: () => anthropic,
      prepare: () => anthropic.enqueue({ text: 'Hi!', usage: { input: 11, output: 2 } }),
    },
  ];

  beforeAll(async () => {
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    anthropic = await FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic });
    t = await createTestApp({ env: providerEnv({ openai, anthropic }) });
    teamId = (await admin(request(t.url).post('/api/v1/admin/teams')).send({ name: 'acme', balance_rub: 100 })).body.id;
    member = await joinTeam(t.url, teamId, 'member@acme.test', 'member', PASSWORD);
    viewer = await joinTeam(t.url, teamId, 'viewer@acme.test', 'viewer', PASSWORD);
  }, 60_000);
  afterEach(() => {
    openai.reset();
    anthropic.reset();
  });
  afterAll(async () => {
    await t?.close();
    await openai?.close();
    await anthropic?.close();
  });

  const balance = async () => (await admin(request(t.url).get(`/api/v1/teams/${teamId}`))).body.balance_rub as number;
  const charges = async () =>
    (await admin(request(t.url).get(`/api/v1/teams/${teamId}/ledger?limit=100`))).body.data.filter(
      (e: { kind: string }) => e.kind === 'charge',
    ) as Array<{ amount_rub: number; api_key_id: string | null }>;
  const upstreamCalls = () => openai.requests.length + anthropic.requests.length;

  it.each(ENDPOINTS.map((e) => [e.name, e] as const))('%s: a member is served and the team charged', async (_, e) => {
    e.prepare?.();
    const before = await balance();
    const n = (await charges()).length;
    const res = await as(t.url, member).post(e.path).set('x-team-id', teamId).send(e.body);
    expect(res.status).toBe(200);
    if (e.upstream()) expect(e.upstream()!.requests.length).toBeGreaterThan(0);
    const added = (await charges()).slice(0, (await charges()).length - n);
    expect(added.length).toBeGreaterThan(0);
    const charged = added.reduce((sum, c) => sum - toMicro(c.amount_rub), 0);
    expect(charged).toBeGreaterThan(0);
    expect(toMicro(before) - toMicro(await balance())).toBe(charged);
  });

  it.each(ENDPOINTS.map((e) => [e.name, e] as const))(
    '%s: a viewer is refused 403 before any upstream call; nothing is charged',
    async (_, e) => {
      const before = await balance();
      const res = await as(t.url, viewer).post(e.path).set('x-team-id', teamId).send(e.body);
      expect(res.status).toBe(403);
      // the endpoint family's error shape: OpenAI-style code, or Anthropic's permission_error
      expect(JSON.stringify(res.body)).toMatch(/insufficient_role|"permission_error".*the member role/);
      expect(upstreamCalls()).toBe(0);
      expect(await balance()).toBe(before);
    },
  );

  it('without the CSRF header a session request is refused 403 csrf_failed before the body is read', async () => {
    for (const e of ENDPOINTS) {
      const res = await request(t.url).post(e.path).set('cookie', member.cookie).set('x-team-id', teamId).send(e.body);
      expect([e.name, res.status]).toEqual([e.name, 403]);
      expect(JSON.stringify(res.body)).toMatch(/csrf_failed|"permission_error".*x-csrf-token/);
    }
    expect(upstreamCalls()).toBe(0);
  });
});
