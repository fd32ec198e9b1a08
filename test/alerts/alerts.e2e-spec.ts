import request from 'supertest';
import { verifyWebhook } from '@app/common';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { admin, joinTeam } from '../accounts/accounts-helpers';
import { AlertReceivers, sleep, startAlertReceivers, waitFor } from './alert-receivers';

/** ~6000 tokens of the local embedding model at 200 RUB / 1M: about 1.2 RUB per call */
const BIG_INPUT = 'alpha '.repeat(6000);
const PASSWORD = 'correct horse battery staple';

describe(`alerts on ${backendKind()} (two replicas on one database)`, () => {
  let a: TestApp;
  let b: TestApp;
  let receivers: AlertReceivers;
  let hooks: AlertReceivers['hooks'];
  let telegram: AlertReceivers['telegram'];
  let smtp: AlertReceivers['smtp'];
  let client: AdminClient;

  beforeAll(async () => {
    receivers = await startAlertReceivers();
    ({ hooks, telegram, smtp } = receivers);
    a = await createTestApp({ env: receivers.env });
    b = await createTestApp({ env: receivers.env, shareBackendWith: a });
    client = new AdminClient(a.url);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await receivers?.close();
  });

  const embed = async (url: string, apiKey: string) => {
    const res = await request(url).post('/v1/embeddings').set('api-key', apiKey).send({
      model: 'local-embedding-small',
      input: BIG_INPUT,
    });
    expect(res.status).toBe(200);
  };
  const alerts = (teamId: string) => `/api/v1/teams/${teamId}/alerts`;
  const hooksAt = (path: string) => hooks.got.filter((r) => r.path === path);
  const events = async (teamId: string, apiKey: string) => {
    const res = await request(b.url)
      .get(`${alerts(teamId)}/events`)
      .set('api-key', apiKey);
    expect(res.status).toBe(200);
    return res.body.data as {
      kind: string;
      threshold: number;
      period_key: string;
      value: number;
      details: Record<string, string | number | null>;
      deliveries: { channel_type: string; status: string; attempts: { ok: boolean; status_code: number | null }[] }[];
    }[];
  };

  it('balance_below: exactly one signed webhook, e-mail and Telegram message per crossing; a recovered balance crossing again fires again', async () => {
    const { teamId, apiKey } = await client.teamWithKey(10, 'balance');
    const created = await request(a.url)
      .post(alerts(teamId))
      .set('api-key', apiKey)
      .send({
        kind: 'balance_below',
        threshold_rub: 9.5,
        channels: [
          { type: 'webhook', url: `${hooks.url}/balance` },
          { type: 'email', to: ['ops@acme.test'] },
          { type: 'telegram', bot_token: '123456:TEST-token-abcdef', chat_id: -100123 },
        ],
      });
    expect(created.status).toBe(201);
    const secret: string = created.body.channels[0].secret;
    expect(secret).toMatch(/^whsec_/);
    expect(created.body.channels[2]).toMatchObject({
      type: 'telegram',
      chat_id: '-100123',
      bot_token_hint: '1234…cdef',
    });
    expect(JSON.stringify(created.body)).not.toContain('TEST-token');
    // the secret is answered once: the listing does not carry it
    const listed = await request(b.url).get(alerts(teamId)).set('api-key', apiKey);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0].channels[0].secret).toBeUndefined();

    await embed(a.url, apiKey); // 10 → ~8.8 RUB: below 9.5
    await waitFor(() => hooksAt('/balance').length === 1 && smtp.messages.length >= 1 && telegram.got.length >= 1);
    await sleep(1_000); // several evaluation passes on both replicas
    expect(hooksAt('/balance')).toHaveLength(1);
    expect(smtp.messages.filter((m) => m.to.includes('ops@acme.test'))).toHaveLength(1);
    expect(telegram.got).toHaveLength(1);

    const hook = hooksAt('/balance')[0];
    const verdict = verifyWebhook(
      secret,
      {
        id: String(hook.headers['webhook-id']),
        timestamp: String(hook.headers['webhook-timestamp']),
        signature: String(hook.headers['webhook-signature']),
      },
      hook.body,
      Math.floor(Date.now() / 1000),
    );
    expect(verdict).toEqual({ ok: true });
    const payload = JSON.parse(hook.body.toString());
    expect(payload).toMatchObject({
      type: 'alert.fired',
      data: { kind: 'balance_below', threshold: 9.5, team_id: teamId },
    });
    expect(payload.data.value).toBeLessThan(9.5);
    expect(payload.data.billing_url).toBe(`/billing?team_id=${teamId}`);

    expect(telegram.got[0].path).toBe('/bot123456:TEST-token-abcdef/sendMessage');
    const tg = JSON.parse(telegram.got[0].body.toString());
    expect(tg.chat_id).toBe('-100123');
    expect(tg.text).toContain('below 9.5 RUB');
    expect(tg.text).toContain(`/billing?team_id=${teamId}`);
    expect(smtp.messages[0].raw).toContain('below 9.5 RUB');

    // recovers above the threshold (re-armed by a pass), then crosses again on the other replica
    await client.topUp(teamId, 1); // ~9.8 RUB
    await sleep(800);
    expect(hooksAt('/balance')).toHaveLength(1);
    await embed(b.url, apiKey);
    await waitFor(() => hooksAt('/balance').length === 2);
    await sleep(1_000);
    expect(hooksAt('/balance')).toHaveLength(2);
    expect(smtp.messages.filter((m) => m.to.includes('ops@acme.test'))).toHaveLength(2);
    expect(telegram.got).toHaveLength(2);

    const fired = await events(teamId, apiKey);
    expect(fired.map((e) => e.period_key)).toEqual(['c:1', 'c:0']);
    // the observation as fields too, for a client that says it in its own language
    expect(fired[0]).toMatchObject({
      kind: 'balance_below',
      threshold: 9.5,
      details: { unit: 'RUB', billing_url: `/billing?team_id=${teamId}`, spent_rub: null, errors: null },
    });
    for (const e of fired) {
      const rows = e.deliveries.map((d) => [d.channel_type, d.status, d.attempts.length]);
      expect(rows.sort()).toEqual([
        ['email', 'delivered', 1],
        ['telegram', 'delivered', 1],
        ['webhook', 'delivered', 1],
      ]);
    }
  }, 60_000);

  it('budget_used: each percentage once per period, whichever replica charged; failed deliveries are retried and every attempt recorded', async () => {
    const { teamId, apiKey } = await client.teamWithKey(100, 'budget');
    const created = await request(a.url)
      .post(alerts(teamId))
      .set('api-key', apiKey)
      .send({
        kind: 'budget_used',
        period: 'day',
        percent: [50, 100],
        budget_rub: 2,
        channels: [{ type: 'webhook', url: `${hooks.url}/flaky-budget` }],
      });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'budget_used',
      period: 'day',
      percent: [50, 100],
      budget_rub: 2,
      api_key_id: null,
    });

    await embed(b.url, apiKey); // ~60 %
    await waitFor(async () => (await events(teamId, apiKey)).some((e) => e.deliveries[0]?.status === 'delivered'));
    await embed(a.url, apiKey); // ~120 %
    await waitFor(
      async () => (await events(teamId, apiKey)).filter((e) => e.deliveries[0]?.status === 'delivered').length === 2,
    );
    await sleep(800);
    const fired = await events(teamId, apiKey);
    expect(fired.map((e) => e.threshold).sort()).toEqual([100, 50]);
    const day = `d:${new Date().toISOString().slice(0, 10)}`;
    expect(fired.every((e) => e.period_key === day)).toBe(true);
    // the receiver refused the first attempt: it was retried, both attempts are recorded
    const first = fired.find((e) => e.threshold === 50)!;
    expect(first.details).toMatchObject({ unit: 'percent', period: 'day', api_key_id: null, window_minutes: null });
    expect(Number(first.details.budget_rub)).toBeGreaterThan(0);
    expect(Number(first.details.spent_rub)).toBeGreaterThan(0);
    expect(first.deliveries[0].attempts.map((t) => [t.ok, t.status_code])).toEqual([
      [false, 500],
      [true, 200],
    ]);
    const received = hooksAt('/flaky-budget').map((r) => JSON.parse(r.body.toString()).data.threshold);
    expect(received.filter((t: number) => t === 50)).toHaveLength(2); // the refused one and its retry
    expect(received.filter((t: number) => t === 100)).toHaveLength(1);
    // a retry carries the same webhook-id
    const ids = hooksAt('/flaky-budget').filter((r) => JSON.parse(r.body.toString()).data.threshold === 50);
    expect(ids[0].headers['webhook-id']).toBe(ids[1].headers['webhook-id']);
  }, 60_000);

  it('error_rate: fires once when the share of failed requests goes over the percentage, again after it recovered and rose again', async () => {
    const { teamId, apiKey } = await client.teamWithKey(100, 'errors');
    const created = await request(a.url)
      .post(alerts(teamId))
      .set('api-key', apiKey)
      .send({
        kind: 'error_rate',
        percent: 20,
        window_minutes: 5,
        min_requests: 5,
        channels: [{ type: 'webhook', url: `${hooks.url}/errors` }],
      });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'error_rate', percent: 20, window_minutes: 5, min_requests: 5 });
    const call = async (url: string, ok: boolean) => {
      const res = await request(url)
        .post('/v1/embeddings')
        .set('api-key', apiKey)
        .send({ model: ok ? 'local-embedding-small' : 'no-such-model', input: 'hi' });
      expect(res.status === 200).toBe(ok);
    };
    const calls = async (ok: boolean, n: number) => {
      for (let i = 0; i < n; i++) await call(i % 2 ? a.url : b.url, ok);
    };
    await calls(true, 4);
    await calls(false, 1); // 1 of 5: 20 %, not over
    await sleep(800);
    expect(hooksAt('/errors')).toHaveLength(0);
    await calls(false, 5); // 6 of 10
    await waitFor(() => hooksAt('/errors').length === 1);
    await calls(true, 30); // 6 of 40: 15 %, re-armed by a pass
    await sleep(800);
    expect(hooksAt('/errors')).toHaveLength(1);
    await calls(false, 10); // 16 of 50
    await waitFor(() => hooksAt('/errors').length === 2);
    await sleep(800);
    expect(hooksAt('/errors')).toHaveLength(2);
    const bodies = hooksAt('/errors').map((r) => JSON.parse(r.body.toString()).data);
    expect(bodies.map((d) => [d.kind, d.threshold, d.period_key])).toEqual([
      ['error_rate', 20, 'c:0'],
      ['error_rate', 20, 'c:1'],
    ]);
    // what was observed when it fired (a pass may run between two of the calls)
    expect(bodies[0].value).toBeGreaterThan(20);
    expect(bodies[0].value).toBeCloseTo((bodies[0].errors * 100) / bodies[0].requests, 1);
    expect(bodies[0].requests).toBeGreaterThanOrEqual(5);
  }, 60_000);

  it('a key budget rule uses the key budget; edits, deletes; team admins, the operator token and the team key may manage, others not', async () => {
    const { teamId, apiKey, keyId } = await client.teamWithKey(100, 'manage');
    const other = await client.teamWithKey(100, 'other');
    const noBudget = await request(a.url)
      .post(alerts(teamId))
      .set('api-key', apiKey)
      .send({
        kind: 'budget_used',
        api_key_id: keyId,
        period: 'month',
        channels: [{ type: 'webhook', url: `${hooks.url}/k` }],
      });
    expect(noBudget.status).toBe(400);
    expect(noBudget.body.error.param).toBe('budget_rub');
    expect(
      (await admin(request(a.url).patch(`/api/v1/admin/api-keys/${keyId}`)).send({ budget_rub_per_month: 2 })).status,
    ).toBe(200);
    const keyRule = await admin(request(a.url).post(alerts(teamId))).send({
      kind: 'budget_used',
      api_key_id: keyId,
      period: 'month',
      channels: [{ type: 'webhook', url: `${hooks.url}/k` }],
    });
    expect(keyRule.status).toBe(201);
    expect(keyRule.body).toMatchObject({ api_key_id: keyId, percent: [50, 80, 100], budget_rub: null });
    // another team's key cannot see or touch it
    expect((await request(a.url).get(alerts(teamId)).set('api-key', other.apiKey)).status).toBe(404);
    expect(
      (
        await request(a.url)
          .delete(`${alerts(teamId)}/${keyRule.body.id}`)
          .set('api-key', other.apiKey)
      ).status,
    ).toBe(404);
    expect((await request(a.url).post(alerts(teamId)).send({ kind: 'balance_below' })).status).toBe(401);
    // a key of another team named in a rule
    const foreignKey = await request(a.url)
      .post(alerts(teamId))
      .set('api-key', apiKey)
      .send({
        kind: 'budget_used',
        api_key_id: other.keyId,
        period: 'day',
        budget_rub: 1,
        channels: [{ type: 'webhook', url: `${hooks.url}/k` }],
      });
    expect(foreignKey.status).toBe(404);

    // the key spends ~1.2 of its 2 RUB: 50 % fires, 80 % and 100 % do not
    await embed(a.url, apiKey);
    await waitFor(() => hooksAt('/k').length === 1);
    await sleep(600);
    expect(hooksAt('/k').map((r) => JSON.parse(r.body.toString()).data)).toMatchObject([
      { kind: 'budget_used', threshold: 50, api_key_id: keyId, period: 'month', budget_rub: 2 },
    ]);

    // PATCH: a kept URL keeps its secret (none answered); a new one gets a new secret
    const patched = await request(b.url)
      .patch(`${alerts(teamId)}/${keyRule.body.id}`)
      .set('api-key', apiKey)
      .send({
        percent: [90],
        channels: [
          { type: 'webhook', url: `${hooks.url}/k` },
          { type: 'webhook', url: `${hooks.url}/k2` },
        ],
      });
    expect(patched.status).toBe(200);
    expect(patched.body.percent).toEqual([90]);
    expect(patched.body.channels[0].secret).toBeUndefined();
    expect(patched.body.channels[1].secret).toMatch(/^whsec_/);
    const kindChange = await request(b.url)
      .patch(`${alerts(teamId)}/${keyRule.body.id}`)
      .set('api-key', apiKey)
      .send({ kind: 'balance_below' });
    expect(kindChange.status).toBe(400);

    // sessions: an admin of the team may, a member may not, a stranger's team is 404
    const adminUser = await joinTeam(a.url, teamId, 'alert-admin@acme.test', 'admin', PASSWORD);
    const member = await joinTeam(a.url, teamId, 'alert-member@acme.test', 'member', PASSWORD);
    const asAdmin = await request(a.url).get(alerts(teamId)).set('cookie', adminUser.cookie);
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.data).toHaveLength(1);
    expect((await request(a.url).get(alerts(teamId)).set('cookie', member.cookie)).status).toBe(403);
    expect((await request(a.url).get(alerts(other.teamId)).set('cookie', adminUser.cookie)).status).toBe(404);
    const noCsrf = await request(a.url)
      .post(alerts(teamId))
      .set('cookie', adminUser.cookie)
      .send({ kind: 'balance_below', threshold_rub: 1, channels: [{ type: 'webhook', url: `${hooks.url}/s` }] });
    expect(noCsrf.status).toBe(403);
    const bySession = await request(a.url)
      .post(alerts(teamId))
      .set('cookie', adminUser.cookie)
      .set('x-csrf-token', adminUser.csrf)
      .send({ kind: 'balance_below', threshold_rub: 1, channels: [{ type: 'webhook', url: `${hooks.url}/s` }] });
    expect(bySession.status).toBe(201);

    const del = await request(a.url)
      .delete(`${alerts(teamId)}/${keyRule.body.id}`)
      .set('api-key', apiKey);
    expect(del.status).toBe(204);
    expect(
      (
        await request(a.url)
          .get(`${alerts(teamId)}/${keyRule.body.id}`)
          .set('api-key', apiKey)
      ).status,
    ).toBe(404);
  }, 60_000);

  it('refuses bad rules with 400 before storing anything, and webhook URLs the SSRF guard refuses', async () => {
    const { teamId, apiKey } = await client.teamWithKey(100, 'invalid');
    const hook = [{ type: 'webhook', url: `${hooks.url}/x` }];
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'balance_below', channels: hook }, 'threshold_rub'],
      [{ kind: 'balance_below', threshold_rub: -1, channels: hook }, 'threshold_rub'],
      [{ kind: 'balance_below', threshold_rub: 1, period: 'day', channels: hook }, 'period'],
      [{ kind: 'budget_used', period: 'week', budget_rub: 1, channels: hook }, 'period'],
      [{ kind: 'budget_used', period: 'day', channels: hook }, 'budget_rub'],
      [{ kind: 'budget_used', period: 'day', budget_rub: 1, percent: [0], channels: hook }, 'percent'],
      [{ kind: 'error_rate', percent: 120, channels: hook }, 'percent'],
      [{ kind: 'error_rate', percent: [20], channels: hook }, 'percent'],
      [{ kind: 'error_rate', percent: 20, window_minutes: 0, channels: hook }, 'window_minutes'],
      [{ kind: 'balance_below', threshold_rub: 1, channels: [] }, 'channels'],
      [{ kind: 'balance_below', threshold_rub: 1, channels: [{ type: 'webhook' }] }, 'channels[0].url'],
      [{ kind: 'balance_below', threshold_rub: 1, channels: [{ type: 'sms', to: ['x'] }] }, 'channels[0].type'],
      [
        { kind: 'balance_below', threshold_rub: 1, channels: [{ type: 'email', to: ['not-an-address'] }] },
        'channels[0].to',
      ],
      [
        { kind: 'balance_below', threshold_rub: 1, channels: [{ type: 'telegram', chat_id: '1' }] },
        'channels[0].bot_token',
      ],
      [
        { kind: 'balance_below', threshold_rub: 1, channels: [{ type: 'webhook', url: 'ftp://x.example/' }] },
        'channels[0].url',
      ],
      [{ kind: 'balance_below', threshold_rub: 1, channels: hook, colour: 'red' }, 'colour'],
      [{ kind: 'panic', channels: hook }, 'kind'],
    ];
    for (const [body, param] of cases) {
      const res = await request(a.url).post(alerts(teamId)).set('api-key', apiKey).send(body);
      expect([JSON.stringify(body), res.status, res.body.error?.param]).toEqual([JSON.stringify(body), 400, param]);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
    // outside OUTBOUND_ALLOW_CIDRS (127.0.0.0/8 here): private and metadata addresses are refused
    for (const url of ['http://10.1.2.3/hook', 'http://169.254.169.254/latest', 'http://localhost/hook']) {
      const res = await request(a.url)
        .post(alerts(teamId))
        .set('api-key', apiKey)
        .send({ kind: 'balance_below', threshold_rub: 1, channels: [{ type: 'webhook', url }] });
      expect([url, res.status, res.body.error.code]).toEqual([url, 400, 'forbidden_address']);
    }
    expect((await request(a.url).get(alerts(teamId)).set('api-key', apiKey)).body.data).toEqual([]);

    // a replica without OUTBOUND_ALLOW_CIDRS refuses the loopback receiver the others accept
    const strict = await createTestApp({ shareBackendWith: a });
    try {
      const res = await request(strict.url)
        .post(alerts(teamId))
        .set('api-key', apiKey)
        .send({ kind: 'balance_below', threshold_rub: 1, channels: [{ type: 'webhook', url: `${hooks.url}/x` }] });
      expect([res.status, res.body.error.code, res.body.error.param]).toEqual([
        400,
        'forbidden_address',
        'channels[0].url',
      ]);
    } finally {
      await strict.close();
    }
  }, 60_000);
  it('telegram bot tokens must have the BotFather shape (nothing that rewrites the path); a delivery the SSRF guard refuses after a redirect fails at once', async () => {
    const { teamId, apiKey } = await client.teamWithKey(100, 'hostile-channels');
    for (const bot_token of [
      '123456:abc/../../getMe',
      '123456:abc?x=1',
      '123456:abc#frag',
      'abc:def',
      '123456:abc.def',
    ]) {
      const res = await request(a.url)
        .post(alerts(teamId))
        .set('api-key', apiKey)
        .send({ kind: 'balance_below', threshold_rub: 1, channels: [{ type: 'telegram', bot_token, chat_id: '1' }] });
      expect([bot_token, res.status, res.body.error?.param]).toEqual([bot_token, 400, 'channels[0].bot_token']);
    }
    const ok = await request(a.url)
      .post(alerts(teamId))
      .set('api-key', apiKey)
      .send({
        kind: 'balance_below',
        threshold_rub: 1,
        channels: [{ type: 'telegram', bot_token: '123456:AA-b_c', chat_id: '1' }],
      });
    expect(ok.status).toBe(201);
    const patched = await request(a.url)
      .patch(`${alerts(teamId)}/${ok.body.id}`)
      .set('api-key', apiKey)
      .send({ channels: [{ type: 'telegram', bot_token: '123456:abc/../x', chat_id: '1' }] });
    expect([patched.status, patched.body.error?.param]).toEqual([400, 'channels[0].bot_token']);
    await request(a.url)
      .delete(`${alerts(teamId)}/${ok.body.id}`)
      .set('api-key', apiKey)
      .expect(204);

    // the receiver (allowed) redirects to a private address (refused): failed after one attempt, no retries
    const created = await request(a.url)
      .post(alerts(teamId))
      .set('api-key', apiKey)
      .send({
        kind: 'balance_below',
        threshold_rub: 1000, // above the balance: fires on the next evaluation
        channels: [{ type: 'webhook', url: `${hooks.url}/redirect-private` }],
      });
    expect(created.status).toBe(201);
    await waitFor(async () => (await events(teamId, apiKey)).some((e) => e.deliveries[0]?.status !== 'pending'));
    await sleep(1_000); // ten retry periods (ALERT_RETRY_BASE_MS = 100): a retried delivery would show more attempts
    const [fired] = await events(teamId, apiKey);
    expect(fired.deliveries[0].status).toBe('failed');
    expect(fired.deliveries[0].attempts.map((t) => t.ok)).toEqual([false]);
    expect(hooksAt('/redirect-private')).toHaveLength(1);
  }, 60_000);

  it('send a test: one signed alert.test per channel now, listed as a test event with its attempts', async () => {
    const { teamId, apiKey } = await client.teamWithKey(10, 'test-send');
    const created = await request(a.url)
      .post(alerts(teamId))
      .set('api-key', apiKey)
      .send({
        kind: 'balance_below',
        threshold_rub: 1,
        channels: [{ type: 'webhook', url: `${hooks.url}/test-send` }],
      });
    expect(created.status).toBe(201);
    const ruleId: string = created.body.id;
    const secret: string = created.body.channels[0].secret;

    const sent = await request(b.url)
      .post(`${alerts(teamId)}/${ruleId}/test`)
      .set('api-key', apiKey);
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ rule_id: ruleId, test: true, kind: 'balance_below' });
    expect(sent.body.deliveries).toEqual([expect.objectContaining({ channel_type: 'webhook', status: 'pending' })]);
    await waitFor(() => hooksAt('/test-send').length === 1);
    const hook = hooksAt('/test-send')[0];
    const verdict = verifyWebhook(
      secret,
      {
        id: String(hook.headers['webhook-id']),
        timestamp: String(hook.headers['webhook-timestamp']),
        signature: String(hook.headers['webhook-signature']),
      },
      hook.body,
      Math.floor(Date.now() / 1000),
    );
    expect(verdict).toEqual({ ok: true });
    expect(JSON.parse(hook.body.toString())).toMatchObject({
      type: 'alert.test',
      data: { rule_id: ruleId, team_id: teamId, test: true },
    });
    await waitFor(async () => (await events(teamId, apiKey))[0]?.deliveries[0]?.status === 'delivered');
    const listed = (await events(teamId, apiKey)) as unknown as {
      test: boolean;
      deliveries: { attempts: unknown[] }[];
    }[];
    expect(listed).toHaveLength(1);
    expect(listed[0].test).toBe(true);
    expect(listed[0].deliveries[0].attempts).toHaveLength(1);
    // a second test is another event (tests never stand in for a real crossing)
    expect(
      (
        await request(a.url)
          .post(`${alerts(teamId)}/${ruleId}/test`)
          .set('api-key', apiKey)
      ).status,
    ).toBe(201);
    await waitFor(() => hooksAt('/test-send').length === 2);
    // an unknown rule and another team's caller are refused
    expect(
      (
        await request(a.url)
          .post(`${alerts(teamId)}/alr_000000000000000000000000/test`)
          .set('api-key', apiKey)
      ).status,
    ).toBe(404);
    const other = await client.teamWithKey(1, 'test-send-other');
    expect(
      (
        await request(a.url)
          .post(`${alerts(teamId)}/${ruleId}/test`)
          .set('api-key', other.apiKey)
      ).status,
    ).toBe(404);
    expect(await events(teamId, apiKey)).toHaveLength(2);
  }, 60_000);
});
