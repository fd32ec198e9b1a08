/**
 * Data protection end to end: a team's data policy (and a key's stricter one) enforced on every
 * front door. The fake upstreams record what they received: with `pii: "mask"` no original value
 * reaches them and the caller's answer has the values back (streams included, the fake cutting
 * placeholders across chunk boundaries); `pii: "block"` refuses with the entity counts; residency
 * `ru_only` refuses foreign models, fallbacks and deployments with zero upstream calls.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument } from 'pdf-lib';
import { RequestLogWriter } from '@app/request-log';
import { FakeAnthropic, FakeOpenAI, FakeYandex, faults } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';
import { admin as asOperator, as, createUser, joinTeam, signIn } from '../accounts/accounts-helpers';

const EMAIL = 'anna.petrova@example.com';
const PHONE = '+7 912 345-67-89';
const PASSPORT = '4510 123456';
const INN = '500100732259';
const ORIGINALS = [EMAIL, PHONE, PASSPORT, INN];
const MESSAGE = `Write to ${EMAIL} or call ${PHONE}, паспорт ${PASSPORT}.`;
const FOLDER = 'b1gdpfolder';
const YANDEX_KEY = 'AQVN-yandex-dp-key';
const PASSWORD = 'correct horse battery staple';
const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** A PDF (DejaVu Sans, so Cyrillic text survives extraction) with the given lines on one page. */
async function cyrillicPdf(lines: string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')));
  const page = doc.addPage([595, 842]);
  lines.forEach((l, i) => page.drawText(l, { x: 40, y: 800 - i * 20, size: 11, font }));
  return Buffer.from(await doc.save());
}

/** Every body an upstream fake received, as one string. */
const received = (...fakes: { requests: { rawBody: string }[] }[]): string =>
  fakes.flatMap((f) => f.requests.map((r) => r.rawBody)).join('\n');

function expectNoOriginals(text: string, values = ORIGINALS): void {
  for (const v of values) expect(text).not.toContain(v);
}

/** The SSE `data:` payloads of a stream body, parsed. */
function sseData(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

/** gateway_data_protection_requests_total of a team and action (0 when absent). */
function metricLine(text: string, teamId: string, action: string): number {
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('gateway_data_protection_requests_total{') &&
        l.includes(`team="${teamId}"`) &&
        l.includes(`action="${action}"`),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}

describe(`data protection (${backendKind()})`, () => {
  let openai: FakeOpenAI;
  let pool: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let yandex: FakeYandex;
  let t: TestApp;
  let admin: AdminClient;

  beforeAll(async () => {
    [openai, pool, anthropic, yandex] = await Promise.all([
      FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai }),
      FakeOpenAI.start({ apiKey: 'sk-pool-key' }),
      FakeAnthropic.start({ apiKey: UPSTREAM_KEYS.anthropic }),
      FakeYandex.start({ apiKey: YANDEX_KEY, folderId: FOLDER }),
    ]);
    const modelsFile = join(mkdtempSync(join(tmpdir(), 'dp-')), 'models.yaml');
    writeFileSync(
      modelsFile,
      [
        'models:',
        '  - key: yandexgpt-lite',
        '    fallbacks: [gpt-4o-mini]',
        '  - key: pool-mini',
        '    provider: openai',
        '    upstream_model: gpt-4o-mini',
        '    kind: chat',
        '    context_window: 128000',
        '    max_output_tokens: 1024',
        '    pricing: { input_rub_per_1m: 15, output_rub_per_1m: 60 }',
        '    deployments:',
        `      - { id: a, base_url: "${pool.baseUrl}/v1", api_key_env: POOL_API_KEY }`,
      ].join('\n'),
    );
    t = await createTestApp({
      env: {
        ...providerEnv({ openai, anthropic }),
        YANDEX_BASE_URL: yandex.baseUrl,
        YANDEX_FOLDER_ID: FOLDER,
        YANDEX_API_KEY: YANDEX_KEY,
        YANDEX_MAX_RETRIES: '0',
        OPENAI_MAX_RETRIES: '0',
        MODELS_FILE: modelsFile,
        POOL_API_KEY: 'sk-pool-key',
        INGEST_POLL_MS: '100',
        REQUEST_LOG_FLUSH_MS: '20',
      },
    });
    admin = new AdminClient(t.url);
  });
  afterEach(() => {
    for (const f of [openai, pool, anthropic, yandex]) f.reset();
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([openai, pool, anthropic, yandex].map((f) => f?.close()));
  });

  const putPolicy = (teamId: string, body: Record<string, unknown>) =>
    request(t.url).put(`/api/v1/teams/${teamId}/data-policy`).set(operator).send(body);
  async function teamWithPolicy(
    policy: Record<string, unknown>,
    name = 'dp',
  ): Promise<{ teamId: string; key: string }> {
    const { teamId, apiKey } = await admin.teamWithKey(100, name);
    const res = await putPolicy(teamId, policy);
    expect(res.status).toBe(200);
    return { teamId, key: apiKey };
  }
  const post = (key: string, path: string, body: unknown) =>
    request(t.url)
      .post(path)
      .set('authorization', `Bearer ${key}`)
      .send(body as object);
  async function logged(id: string, key: string): Promise<Record<string, unknown>> {
    await new Promise((r) => setTimeout(r, 30));
    await t.app.get(RequestLogWriter).flush();
    const res = await request(t.url).get(`/api/v1/requests/${id}`).set('authorization', `Bearer ${key}`);
    expect(res.status).toBe(200);
    return res.body as Record<string, unknown>;
  }

  describe('policy endpoints', () => {
    it('PUT stores the policy with defaults, GET reads it, the change is audit-logged', async () => {
      const { teamId } = await admin.teamWithKey(10, 'policy');
      const before = await request(t.url).get(`/api/v1/teams/${teamId}/data-policy`).set(operator);
      expect(before.body).toMatchObject({ residency: 'any', pii: 'off', pii_scope: 'foreign_only', updated_at: null });
      const put = await putPolicy(teamId, {
        residency: 'ru_only',
        pii: 'mask',
        entities: ['phone', 'email'],
        custom_patterns: [{ name: 'order_id', regex: 'ORD-\\d{6}' }],
        allow_list: ['support@example.com'],
      });
      expect(put.status).toBe(200);
      const got = await request(t.url).get(`/api/v1/teams/${teamId}/data-policy`).set(operator);
      expect(got.body).toMatchObject({
        residency: 'ru_only',
        pii: 'mask',
        pii_scope: 'foreign_only',
        entities: ['email', 'phone'],
        custom_patterns: [{ name: 'order_id', regex: 'ORD-\\d{6}' }],
        allow_list: ['support@example.com'],
      });
      expect(typeof got.body.updated_at).toBe('string');
      const audit = await request(t.url).get(`/api/v1/audit-log?team_id=${teamId}`).set(operator);
      expect(JSON.stringify(audit.body)).toContain('team.data_policy.update');
    });

    it('custom patterns: an invalid or pathological regex is rejected with 400 naming it', async () => {
      const { teamId } = await admin.teamWithKey(10, 'patterns');
      for (const regex of ['(unclosed', '(a+)+$', '(\\w+)\\1']) {
        const res = await putPolicy(teamId, { residency: 'any', pii: 'mask', custom_patterns: [{ name: 'x', regex }] });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_pattern', param: 'body.custom_patterns[0].regex' });
      }
      expect((await putPolicy(teamId, { residency: 'somewhere', pii: 'mask' })).status).toBe(400);
    });

    it('permissions: owner and admin (and the operator) set and read it; member and viewer get 403', async () => {
      const { teamId } = await admin.teamWithKey(10, 'perm');
      const who = {
        owner: await joinTeam(t.url, teamId, `owner-${teamId}@dp.test`, 'owner', PASSWORD),
        admin: await joinTeam(t.url, teamId, `admin-${teamId}@dp.test`, 'admin', PASSWORD),
        member: await joinTeam(t.url, teamId, `member-${teamId}@dp.test`, 'member', PASSWORD),
        viewer: await joinTeam(t.url, teamId, `viewer-${teamId}@dp.test`, 'viewer', PASSWORD),
      };
      const body = { residency: 'any', pii: 'block' };
      for (const role of ['owner', 'admin'] as const) {
        expect((await as(t.url, who[role]).put(`/api/v1/teams/${teamId}/data-policy`).send(body)).status).toBe(200);
        expect((await as(t.url, who[role]).get(`/api/v1/teams/${teamId}/data-policy`)).status).toBe(200);
      }
      for (const role of ['member', 'viewer'] as const) {
        const put = await as(t.url, who[role]).put(`/api/v1/teams/${teamId}/data-policy`).send(body);
        expect(put.status).toBe(403);
        expect(put.body.error.code).toBe('insufficient_role');
        expect((await as(t.url, who[role]).get(`/api/v1/teams/${teamId}/data-policy`)).status).toBe(403);
      }
      await createUser(t.url, `outsider-${teamId}@dp.test`, PASSWORD);
      const outsider = await signIn(t.url, `outsider-${teamId}@dp.test`, PASSWORD);
      expect((await as(t.url, outsider).get(`/api/v1/teams/${teamId}/data-policy`)).status).toBe(404);
      expect((await asOperator(request(t.url).get(`/api/v1/teams/${teamId}/data-policy`))).status).toBe(200);
    });

    it('a key may carry a stricter policy than its team, never a looser one', async () => {
      const { teamId } = await teamWithPolicy({ residency: 'ru_only', pii: 'mask' }, 'keys');
      const create = (data_policy: Record<string, unknown>) =>
        request(t.url).post(`/api/v1/admin/teams/${teamId}/api-keys`).set(operator).send({ data_policy });
      const looser = await create({ residency: 'any' });
      expect(looser.status).toBe(400);
      expect(looser.body.error).toMatchObject({
        code: 'data_policy_looser_than_team',
        param: 'data_policy.residency',
      });
      expect((await create({ pii: 'off' })).status).toBe(400);
      const stricter = await create({ pii: 'block', pii_scope: 'all_providers' });
      expect(stricter.status).toBe(201);
      expect(stricter.body.data_policy).toEqual({ pii: 'block', pii_scope: 'all_providers' });
      const badPattern = await create({ custom_patterns: [{ name: 'x', regex: '(a*)*' }] });
      expect(badPattern.status).toBe(400);
      expect(badPattern.body.error.code).toBe('invalid_pattern');
      // the stricter key blocks, even for a Russian model, where the team masks for foreign ones only
      const refused = await post(stricter.body.api_key, '/v1/chat/completions', {
        model: 'yandexgpt-lite',
        messages: [{ role: 'user', content: MESSAGE }],
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('pii_detected');
      // a key made stricter on update
      const k = await create({});
      const upd = await request(t.url)
        .patch(`/api/v1/admin/api-keys/${k.body.id}`)
        .set(operator)
        .send({ data_policy: { residency: 'any' } });
      expect(upd.status).toBe(400);
    });
  });

  describe('residency ru_only', () => {
    it('a foreign model is refused with 403 before any upstream call, on every front door', async () => {
      const { key } = await teamWithPolicy({ residency: 'ru_only', pii: 'off' }, 'ru');
      const msg = [{ role: 'user', content: 'hello' }];
      const calls: [string, unknown][] = [
        ['/v1/chat/completions', { model: 'gpt-4o-mini', messages: msg }],
        ['/v1/chat/completions', { model: 'gpt-4o-mini', messages: msg, stream: true }],
        ['/api/v1/chat', { model: 'gpt-4o-mini', user_id: 'u', prompt: 'hello' }],
        ['/v1/responses', { model: 'gpt-4o-mini', input: 'hello' }],
        ['/v1/messages', { model: 'claude-sonnet-4', max_tokens: 16, messages: msg }],
        ['/v1/messages/count_tokens', { model: 'claude-sonnet-4', messages: msg }],
        ['/v1/embeddings', { model: 'text-embedding-3-small', input: 'hello' }],
        ['/v1/images/generations', { model: 'gpt-image-1', prompt: 'a cat' }],
        ['/v1/chat/completions', { model: 'pool-mini', messages: msg }],
      ];
      for (const [path, body] of calls) {
        const res = await post(key, path, body);
        expect({ path, status: res.status }).toEqual({ path, status: 403 });
        // the Anthropic error shape has no code: its message names the policy
        expect(JSON.stringify(res.body)).toMatch(/model_not_allowed_by_policy|residency \\"ru_only\\"/);
      }
      expect(openai.requests).toHaveLength(0);
      expect(pool.requests).toHaveLength(0);
      expect(anthropic.requests).toHaveLength(0);
    });

    it('a Russian model is served; its fallback chain stops before the first foreign model', async () => {
      const { key } = await teamWithPolicy({ residency: 'ru_only', pii: 'off' }, 'ru-fallback');
      yandex.enqueue({ text: 'Привет' });
      const ok = await post(key, '/v1/chat/completions', {
        model: 'yandexgpt-lite',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(ok.status).toBe(200);
      expect(ok.body.choices[0].message.content).toBe('Привет');

      yandex.enqueue({ fault: faults.http(500) });
      const failed = await post(key, '/v1/chat/completions', {
        model: 'yandexgpt-lite',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(openai.requests).toHaveLength(0);

      // a fallback named in the request is not reached either
      yandex.enqueue({ fault: faults.http(500) });
      const named = await post(key, '/v1/chat/completions', {
        model: 'yandexgpt-lite',
        fallbacks: ['gpt-4o'],
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(named.status).toBeGreaterThanOrEqual(500);
      expect(openai.requests).toHaveLength(0);

      // without the policy the same chain reaches the foreign fallback (the test would see a leak)
      const open = await admin.teamWithKey(10, 'open');
      yandex.enqueue({ fault: faults.http(500) });
      const fellBack = await post(open.apiKey, '/v1/chat/completions', {
        model: 'yandexgpt-lite',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(fellBack.status).toBe(200);
      expect(openai.requests.length).toBeGreaterThan(0);
    });

    it('knowledge: a new store picks the local embedder; a foreign one named explicitly is refused', async () => {
      const { key } = await teamWithPolicy({ residency: 'ru_only', pii: 'off' }, 'ru-kb');
      const api = () => request(t.url);
      const projectId = (await api().post('/api/v1/projects').set('api-key', key).send({ name: 'Docs' })).body.id;
      const file = await api()
        .post(`/api/v1/projects/${projectId}/files`)
        .set('api-key', key)
        .attach('file', Buffer.from('The office opens at nine.'), 'hours.md');
      expect(file.status).toBeLessThan(300);
      for (let i = 0; i < 300; i++) {
        const m = await api().get(`/api/v1/projects/${projectId}/materials`).set('api-key', key);
        const status = (m.body.data as { id: string; status: string }[]).find((x) => x.id === file.body.id)?.status;
        if (status !== 'in_progress') {
          expect(status).toBe('completed');
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const kb = await post(key, '/v1/vector_stores', { name: 'kb' });
      expect(kb.status).toBe(200);
      const foreign = await post(key, '/api/v1/knowledge-bases', {
        name: 'kb2',
        embedding_model: 'text-embedding-3-small',
      });
      expect(foreign.status).toBe(403);
      expect(foreign.body.error.code).toBe('model_not_allowed_by_policy');
      expect(openai.requests).toHaveLength(0);
    });

    it('rerank under ru_only uses the local embedder: nothing goes abroad', async () => {
      const { key } = await teamWithPolicy({ residency: 'ru_only', pii: 'off' }, 'ru-rerank');
      const docs = [
        { id: 'a', data: 'cats purr', metadata: {} },
        { id: 'b', data: 'dogs bark', metadata: {} },
      ];
      const res = await post(key, '/api/v1/rerank', { query: 'cats', content: docs, caching: false });
      expect(res.status).toBe(200);
      expect(openai.requests).toHaveLength(0);
      // without the policy the remote embedder serves it
      const open = await admin.teamWithKey(10, 'open-rerank');
      expect((await post(open.apiKey, '/api/v1/rerank', { query: 'cats', content: docs, caching: false })).status).toBe(
        200,
      );
      expect(openai.requests.length).toBeGreaterThan(0);
    });
  });

  describe('pii block', () => {
    it('400 pii_detected with entity types and counts, never the values; nothing sent; logged and counted', async () => {
      const { teamId, key } = await teamWithPolicy({ residency: 'any', pii: 'block' }, 'block');
      const res = await post(key, '/v1/chat/completions', {
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: `Escalate to ${EMAIL}.` },
          { role: 'user', content: MESSAGE },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('pii_detected');
      expect(res.body.error.message).toMatch(/email ×2/);
      expect(res.body.error.message).toMatch(/phone ×1/);
      expectNoOriginals(JSON.stringify(res.body));
      for (const [path, body] of [
        ['/v1/embeddings', { model: 'text-embedding-3-small', input: [MESSAGE] }],
        ['/v1/images/generations', { model: 'gpt-image-1', prompt: `A card for ${EMAIL}` }],
        ['/v1/messages', { model: 'claude-sonnet-4', max_tokens: 16, messages: [{ role: 'user', content: MESSAGE }] }],
        ['/v1/responses', { model: 'gpt-4o-mini', input: MESSAGE }],
      ] as const) {
        const r = await post(key, path, body);
        // the Anthropic error shape has no code: the message says it
        expect({ path, status: r.status, pii: JSON.stringify(r.body).includes('personal data') }).toEqual({
          path,
          status: 400,
          pii: true,
        });
        expectNoOriginals(JSON.stringify(r.body));
      }
      expect(openai.requests).toHaveLength(0);
      expect(anthropic.requests).toHaveLength(0);

      const rec = await logged(res.headers['x-request-id'] as string, key);
      expect(rec.data_protection).toMatchObject({ pii: 'block', action: 'blocked', entities: { email: 2, phone: 1 } });
      const metrics = await request(t.url).get('/metrics');
      expect(metricLine(metrics.text, teamId, 'blocked')).toBeGreaterThan(0);

      // foreign_only: a Russian model gets the text as it is
      yandex.enqueue({ text: 'ok' });
      const ru = await post(key, '/v1/chat/completions', {
        model: 'yandexgpt-lite',
        messages: [{ role: 'user', content: MESSAGE }],
      });
      expect(ru.status).toBe(200);
      expect(received(yandex)).toContain(EMAIL);
    });
  });

  describe('pii mask', () => {
    let teamId: string;
    let key: string;
    beforeAll(async () => {
      ({ teamId, key } = await teamWithPolicy(
        { residency: 'any', pii: 'mask', custom_patterns: [{ name: 'order_id', regex: 'ORD-\\d{6}' }] },
        'mask',
      ));
      const full = await request(t.url)
        .patch(`/api/v1/admin/teams/${teamId}`)
        .set(operator)
        .send({ request_log_bodies: 'full' });
      expect(full.status).toBe(200);
    });

    it('/v1/chat/completions: placeholders upstream (same value, same placeholder everywhere), values restored', async () => {
      openai.enqueue({
        text: 'I will write to [EMAIL_1] about [ORDER_ID_1].',
        toolCalls: [{ name: 'notify', arguments: { to: '[EMAIL_1]', phone: '[PHONE_1]' } }],
      });
      const res = await post(key, '/v1/chat/completions', {
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: `Our customer is ${EMAIL}.` },
          { role: 'user', content: `${MESSAGE} Order ORD-123456.` },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q: EMAIL }) } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: `Found ${EMAIL}, INN ${INN}` },
          { role: 'user', content: 'Go on.' },
        ],
        tools: [{ type: 'function', function: { name: 'notify', parameters: { type: 'object' } } }],
      });
      expect(res.status).toBe(200);
      const sent = received(openai);
      expectNoOriginals(sent, [...ORIGINALS, 'ORD-123456']);
      const body = openai.lastRequest!.body as { messages: { content: string }[] };
      expect(body.messages[0].content).toBe('Our customer is [EMAIL_1].');
      expect(body.messages[1].content).toContain('[EMAIL_1]');
      expect(body.messages[1].content).toContain('[PHONE_1]');
      expect(body.messages[1].content).toContain('[ORDER_ID_1]');
      expect(JSON.stringify(body.messages[2])).toContain('[EMAIL_1]');
      expect(body.messages[3].content).toContain('[EMAIL_1]');
      const msg = res.body.choices[0].message;
      expect(msg.content).toBe(`I will write to ${EMAIL} about ORD-123456.`);
      expect(JSON.parse(msg.tool_calls[0].function.arguments)).toEqual({ to: EMAIL, phone: PHONE });

      const rec = await logged(res.headers['x-request-id'] as string, key);
      expect(rec.data_protection).toMatchObject({ pii: 'mask', action: 'masked' });
      expect((rec.data_protection as { entities: Record<string, number> }).entities.email).toBeGreaterThanOrEqual(4);
      expectNoOriginals(String(rec.request_body), [EMAIL, PHONE]);
      expectNoOriginals(String(rec.response_body), [EMAIL]);
      expect(String(rec.request_body)).toContain('[EMAIL_1]');
      const metrics = await request(t.url).get('/metrics');
      expect(metricLine(metrics.text, teamId, 'masked')).toBeGreaterThan(0);
    });

    it('streams: a placeholder cut across chunks is held until complete, then restored', async () => {
      for (const chunkSize of [1, 3, 5]) {
        openai.enqueue({ text: 'Mail [EMAIL_1], call [PHONE_1]. Bye [', chunkSize });
        const res = await post(key, '/v1/chat/completions', {
          model: 'gpt-4o-mini',
          stream: true,
          messages: [{ role: 'user', content: MESSAGE }],
        });
        expect(res.status).toBe(200);
        const deltas = sseData(res.text).map(
          (c) => ((c.choices as { delta: { content?: string } }[])[0]?.delta?.content ?? '') as string,
        );
        expect(deltas.join('')).toBe(`Mail ${EMAIL}, call ${PHONE}. Bye [`);
        for (const d of deltas) expect(d).not.toMatch(/\[(E|EM|EMAIL|PHONE_)\b/);
        expectNoOriginals(received(openai));
        openai.reset();
      }
    });

    it('echoed answers on every front door come back with the values (plain and streamed)', async () => {
      const doors: [string, Record<string, unknown>, (b: request.Response) => string][] = [
        ['/api/v1/chat', { model: 'gpt-4o-mini', user_id: 'u', prompt: MESSAGE }, (r) => r.body.response.text],
        [
          '/v1/responses',
          { model: 'gpt-4o-mini', input: MESSAGE },
          (r) => r.body.output_text ?? JSON.stringify(r.body),
        ],
        [
          '/v1/messages',
          { model: 'claude-sonnet-4', max_tokens: 200, messages: [{ role: 'user', content: MESSAGE }] },
          (r) => r.body.content[0].text,
        ],
        ['/v1/responses', { model: 'gpt-4o-mini', input: MESSAGE, stream: true }, (r) => r.text],
        [
          '/v1/messages',
          { model: 'claude-sonnet-4', max_tokens: 200, stream: true, messages: [{ role: 'user', content: MESSAGE }] },
          (r) => r.text,
        ],
        ['/api/v1/chat', { model: 'gpt-4o-mini', user_id: 'u', prompt: MESSAGE, stream: true }, (r) => r.text],
      ];
      for (const [path, body, answer] of doors) {
        const res = await post(key, path, body).buffer(true);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        const text = answer(res);
        // the fakes echo what they received (the placeholders): the caller gets the values back
        expect({ path, email: text.includes(EMAIL) }).toEqual({ path, email: true });
        expect(text).not.toContain('[EMAIL_1]');
        expectNoOriginals(received(openai, anthropic));
        openai.reset();
        anthropic.reset();
      }
    });

    it('embeddings and image prompts go out masked', async () => {
      const emb = await post(key, '/v1/embeddings', { model: 'text-embedding-3-small', input: [MESSAGE, EMAIL] });
      expect(emb.status).toBe(200);
      const img = await post(key, '/v1/images/generations', { model: 'gpt-image-1', prompt: `A card for ${EMAIL}` });
      expect(img.status).toBe(200);
      const sent = received(openai);
      expect(sent).toContain('[EMAIL_1]');
      expectNoOriginals(sent);
    });

    it('project context: a PDF with a passport number and a phone reaches the model masked', async () => {
      const api = () => request(t.url);
      const projectId = (
        await api().post('/api/v1/projects').set('api-key', key).send({ name: 'HR', mode: 'big_docs_mode' })
      ).body.id;
      const pdf = await cyrillicPdf([`Сотрудник: паспорт ${PASSPORT}, телефон ${PHONE}.`, 'Отдел кадров.']);
      const file = await api()
        .post(`/api/v1/projects/${projectId}/files`)
        .set('api-key', key)
        .attach('file', pdf, 'employee.pdf');
      expect(file.status).toBeLessThan(300);
      for (let i = 0; i < 300; i++) {
        const m = await api().get(`/api/v1/projects/${projectId}/materials`).set('api-key', key);
        const status = (m.body.data as { id: string; status: string }[]).find((x) => x.id === file.body.id)?.status;
        if (status !== 'in_progress') {
          expect(status).toBe('completed');
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      openai.enqueue({ route: 'chat', text: 'Passport [PASSPORT_1], phone [PHONE_1].' });
      const res = await api().post('/api/v1/chat').set('api-key', key).send({
        model: 'gpt-4o-mini',
        user_id: 'u',
        prompt: 'What are the passport and phone?',
        project_id: projectId,
      });
      expect(res.status).toBe(200);
      expect(res.body.context).toMatchObject({ mode: 'full' });
      expect(res.body.response.text).toBe(`Passport ${PASSPORT}, phone ${PHONE}.`);
      const sent = received(openai);
      expect(sent).toContain('[PASSPORT_1]');
      expectNoOriginals(sent);
    });
  });
});
