import request from 'supertest';
import { DataSource } from 'typeorm';
import { AlertRuleEntity } from '@app/alerts/entities/alert.entities';
import { AlertChannelLanguage1798200000000 } from '@app/database/migrations/1798200000000-alert-channel-language';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { AlertReceivers, readMail, startAlertReceivers, waitFor } from './alert-receivers';

/** ~6000 tokens of the local embedding model at 200 RUB / 1M: about 1.2 RUB per call */
const BIG_INPUT = 'alpha '.repeat(6000);
/** the group separator and the space before ₽ and % in Russian numbers */
const NBSP = '\u00a0';

/**
 * The language of an alert channel's messages: a Russian channel gets Russian e-mail subjects and
 * texts, Telegram texts and webhook `message`s (numbers written the Russian way), an English one
 * English, for every kind of rule and for a test; anything but en / ru is refused.
 */
describe(`alert message languages on ${backendKind()}`, () => {
  let app: TestApp;
  let receivers: AlertReceivers;
  let hooks: AlertReceivers['hooks'];
  let telegram: AlertReceivers['telegram'];
  let smtp: AlertReceivers['smtp'];
  let client: AdminClient;

  beforeAll(async () => {
    receivers = await startAlertReceivers();
    ({ hooks, telegram, smtp } = receivers);
    app = await createTestApp({ env: receivers.env });
    client = new AdminClient(app.url);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await receivers?.close();
  });

  const alerts = (teamId: string) => `/api/v1/teams/${teamId}/alerts`;
  const postRule = (teamId: string, apiKey: string, rule: object) =>
    request(app.url).post(alerts(teamId)).set('api-key', apiKey).send(rule);
  const testRule = (teamId: string, apiKey: string, ruleId: string) =>
    request(app.url)
      .post(`${alerts(teamId)}/${ruleId}/test`)
      .set('api-key', apiKey);
  const hookData = (path: string) =>
    hooks.got.filter((r) => r.path === path).map((r) => JSON.parse(r.body.toString()).data as Record<string, unknown>);
  const mailTo = (address: string) => smtp.messages.filter((m) => m.to.includes(address)).map((m) => readMail(m.raw));
  const telegramTo = (chatId: string) =>
    telegram.got
      .map((r) => JSON.parse(r.body.toString()) as { chat_id: string; text: string })
      .filter((m) => m.chat_id === chatId)
      .map((m) => m.text);
  const embed = async (apiKey: string) => {
    const res = await request(app.url)
      .post('/v1/embeddings')
      .set('api-key', apiKey)
      .send({ model: 'local-embedding-small', input: BIG_INPUT });
    expect(res.status).toBe(200);
  };

  it('balance_below: Russian channels get a Russian subject and text (`1 234,50 ₽`), English ones English; webhooks differ only in message and language', async () => {
    // 1234 RUB is below 1234.50 at once: the next pass fires
    const { teamId, apiKey } = await client.teamWithKey(1234, 'lang-balance');
    const created = await postRule(teamId, apiKey, {
      kind: 'balance_below',
      threshold_rub: 1234.5,
      channels: [
        { type: 'webhook', url: `${hooks.url}/lang-ru`, language: 'ru' },
        { type: 'webhook', url: `${hooks.url}/lang-en` },
        { type: 'email', to: ['ru@acme.test'], language: 'ru' },
        { type: 'email', to: ['en@acme.test'], language: 'en' },
        { type: 'telegram', bot_token: '123456:TEST-token-abcdef', chat_id: '-100777', language: 'ru' },
        { type: 'telegram', bot_token: '123456:TEST-token-abcdef', chat_id: '-100888' },
      ],
    });
    expect(created.status).toBe(201);
    const languages = ['ru', 'en', 'ru', 'en', 'ru', 'en'];
    expect(created.body.channels.map((c: { language: string }) => c.language)).toEqual(languages);
    const read = await request(app.url)
      .get(`${alerts(teamId)}/${created.body.id}`)
      .set('api-key', apiKey);
    expect(read.body.channels.map((c: { language: string }) => c.language)).toEqual(languages);

    await waitFor(
      () =>
        hookData('/lang-ru').length === 1 &&
        hookData('/lang-en').length === 1 &&
        mailTo('ru@acme.test').length === 1 &&
        mailTo('en@acme.test').length === 1 &&
        telegramTo('-100777').length === 1 &&
        telegramTo('-100888').length === 1,
    );
    const ruleId: string = created.body.id;
    const ruText =
      `Баланс 1${NBSP}234,00${NBSP}₽ ниже порога 1${NBSP}234,50${NBSP}₽. ` +
      `Пополнить баланс можно на странице «Оплата»: /billing?team_id=${teamId}`;
    const enText = `Balance 1234 RUB is below 1234.5 RUB. Top up on the Billing page: /billing?team_id=${teamId}`;

    const [ru] = mailTo('ru@acme.test');
    expect(ru.subject).toBe('Оповещение шлюза: баланс ниже порога');
    expect(ru.text).toMatch(
      new RegExp(
        `^${escape(ruText)}\\n\\nКоманда ${teamId}, правило ${ruleId}, \\d{1,2} [а-я]+ \\d{4} г\\. .+ UTC\\.$`,
      ),
    );
    const [en] = mailTo('en@acme.test');
    expect(en.subject).toBe('Gateway alert: balance below');
    expect(en.text).toMatch(
      new RegExp(`^${escape(enText)}\\n\\nTeam ${teamId}, rule ${ruleId}, \\d{4}-\\d\\d-\\d\\dT.+Z\\.$`),
    );

    expect(telegramTo('-100777')[0]).toMatch(new RegExp(`^${escape(ruText)}\\n\\nКоманда ${teamId}, `));
    expect(telegramTo('-100888')[0]).toMatch(new RegExp(`^${escape(enText)}\\n\\nTeam ${teamId}, `));

    const [ruHook] = hookData('/lang-ru');
    const [enHook] = hookData('/lang-en');
    expect(ruHook).toMatchObject({ message: ruText, language: 'ru', kind: 'balance_below', threshold: 1234.5 });
    expect(enHook).toMatchObject({ message: enText, language: 'en', value: 1234, unit: 'RUB' });
    const structured = (d: Record<string, unknown>) => ({ ...d, message: undefined, language: undefined });
    expect(structured(ruHook)).toEqual(structured(enHook));

    // the stored event stays English (the console says it in its own language from `details`)
    const events = await request(app.url)
      .get(`${alerts(teamId)}/events`)
      .set('api-key', apiKey);
    expect(events.body.data[0].message).toBe(enText);
  }, 60_000);

  it('budget_used and error_rate in Russian: percentages, money and counts written the Russian way', async () => {
    const { teamId, apiKey } = await client.teamWithKey(100, 'lang-budget');
    const budget = await postRule(teamId, apiKey, {
      kind: 'budget_used',
      period: 'month',
      percent: [50],
      budget_rub: 2,
      channels: [{ type: 'email', to: ['budget@acme.test'], language: 'ru' }],
    });
    expect(budget.status).toBe(201);
    await embed(apiKey); // ~1.2 of 2 RUB: over 50 %
    await waitFor(() => mailTo('budget@acme.test').length === 1);
    const [mail] = mailTo('budget@acme.test');
    expect(mail.subject).toBe('Оповещение шлюза: израсходован бюджет');
    expect(mail.text).toMatch(
      new RegExp(
        `^Расход команды достиг 50${NBSP}% месячного бюджета: 1,\\d{2,6}${NBSP}₽ из 2,00${NBSP}₽ \\(\\d\\d(,\\d{1,2})?${NBSP}%\\)\\.\\n\\nКоманда `,
      ),
    );

    const errors = await postRule(teamId, apiKey, {
      kind: 'error_rate',
      percent: 20,
      window_minutes: 5,
      min_requests: 5,
      channels: [{ type: 'telegram', bot_token: '123456:TEST-token-abcdef', chat_id: '-100999', language: 'ru' }],
    });
    expect(errors.status).toBe(201);
    // the failures first: the rule cannot fire (min_requests 5) before all three are in the window,
    // so however the engine's passes fall between the calls, the message counts 3 errors
    for (const ok of [false, false, false, true, true]) {
      const res = await request(app.url)
        .post('/v1/embeddings')
        .set('api-key', apiKey)
        .send({ model: ok ? 'local-embedding-small' : 'no-such-model', input: 'hi' });
      expect(res.status === 200).toBe(ok);
    }
    await waitFor(() => telegramTo('-100999').length === 1);
    // the embedding call of the budget check is in the window too: 3 of 6 (or of 5 if a pass ran between calls)
    expect(telegramTo('-100999')[0]).toMatch(
      new RegExp(
        `^Доля ошибок \\d\\d(,\\d{1,2})?${NBSP}% \\(3 из \\d запросов за последние 5 минут\\) выше порога 20${NBSP}%\\.\\n\\nКоманда ${teamId}, `,
      ),
    );
  }, 60_000);

  it('a test in Russian; PATCH keeps a channel given again without a language and changes it when given', async () => {
    const { teamId, apiKey } = await client.teamWithKey(100, 'lang-test');
    const created = await postRule(teamId, apiKey, {
      kind: 'error_rate',
      percent: 50,
      channels: [
        { type: 'email', to: ['test-ru@acme.test'], language: 'ru' },
        { type: 'webhook', url: `${hooks.url}/lang-test`, language: 'ru' },
      ],
    });
    expect(created.status).toBe(201);
    const ruleId: string = created.body.id;
    expect((await testRule(teamId, apiKey, ruleId)).status).toBe(201);
    await waitFor(() => mailTo('test-ru@acme.test').length === 1 && hookData('/lang-test').length === 1);
    const [mail] = mailTo('test-ru@acme.test');
    expect(mail.subject).toBe('Оповещение шлюза (тест): доля ошибок выше порога');
    expect(mail.text).toMatch(
      new RegExp(`^Тест правила оповещения «доля ошибок выше порога» ${ruleId}: его каналы доступны\\.\\n\\nКоманда `),
    );
    expect(hookData('/lang-test')[0]).toMatchObject({
      test: true,
      language: 'ru',
      message: expect.stringMatching(/^Тест правила/),
    });

    // given again without a language: kept; given with one: changed
    const kept = await request(app.url)
      .patch(`${alerts(teamId)}/${ruleId}`)
      .set('api-key', apiKey)
      .send({
        channels: [
          { type: 'email', to: ['test-ru@acme.test'] },
          { type: 'webhook', url: `${hooks.url}/lang-test`, language: 'en' },
          { type: 'webhook', url: `${hooks.url}/lang-new` },
        ],
      });
    expect(kept.status).toBe(200);
    expect(kept.body.channels.map((c: { language: string }) => c.language)).toEqual(['ru', 'en', 'en']);
    expect((await testRule(teamId, apiKey, ruleId)).status).toBe(201);
    await waitFor(() => mailTo('test-ru@acme.test').length === 2 && hookData('/lang-test').length === 2);
    expect(mailTo('test-ru@acme.test')[1].subject).toBe('Оповещение шлюза (тест): доля ошибок выше порога');
    expect(hookData('/lang-test')[1]).toMatchObject({
      language: 'en',
      message: `Test of the error rate alert rule ${ruleId}: its channels are reachable.`,
    });
  }, 60_000);

  it('refuses a language other than en or ru with 400 naming the channel field, on create and on edit', async () => {
    const { teamId, apiKey } = await client.teamWithKey(10, 'lang-invalid');
    for (const language of ['de', 'RU', 'ru-RU', '', 7, null]) {
      const res = await postRule(teamId, apiKey, {
        kind: 'balance_below',
        threshold_rub: 1,
        channels: [{ type: 'webhook', url: `${hooks.url}/x`, language }],
      });
      expect([language, res.status, res.body.error?.param, res.body.error?.type]).toEqual([
        language,
        400,
        'channels[0].language',
        'invalid_request_error',
      ]);
    }
    expect((await request(app.url).get(alerts(teamId)).set('api-key', apiKey)).body.data).toEqual([]);
    const created = await postRule(teamId, apiKey, {
      kind: 'balance_below',
      threshold_rub: 1,
      channels: [{ type: 'webhook', url: `${hooks.url}/x` }],
    });
    expect(created.body.channels[0].language).toBe('en');
    const res = await request(app.url)
      .patch(`${alerts(teamId)}/${created.body.id}`)
      .set('api-key', apiKey)
      .send({ channels: [{ type: 'webhook', url: `${hooks.url}/x`, language: 'fr' }] });
    expect([res.status, res.body.error.param]).toEqual([400, 'channels[0].language']);
    expect(res.body.error.message).toMatch(/channels\[0\]\.language must be one of the following values: en, ru/);
  }, 60_000);

  it('channels stored before they had a language read and deliver as English; the migration writes "en" into them', async () => {
    const { teamId, apiKey } = await client.teamWithKey(10, 'lang-legacy');
    const ds = app.get(DataSource);
    const id = 'alr_0123456789abcdef01234567';
    const channels = [{ type: 'email', to: ['legacy@acme.test'] }];
    await ds.getRepository(AlertRuleEntity).insert({
      id,
      teamId,
      kind: 'balance_below',
      params: JSON.stringify({ kind: 'balance_below', thresholdMicro: 1_000_000 }),
      channels: JSON.stringify(channels),
      enabled: 0,
      crossing: 0,
      createdAt: Date.now(),
      updatedAt: Date.now(),
    });
    const read = await request(app.url)
      .get(`${alerts(teamId)}/${id}`)
      .set('api-key', apiKey);
    expect(read.body.channels[0]).toMatchObject({ type: 'email', language: 'en' });
    expect(
      (
        await request(app.url)
          .post(`${alerts(teamId)}/${id}/test`)
          .set('api-key', apiKey)
      ).status,
    ).toBe(201);
    await waitFor(() => mailTo('legacy@acme.test').length === 1);
    expect(mailTo('legacy@acme.test')[0].subject).toBe('Gateway alert (test): balance below');

    // the migration names the language in every stored channel, and leaves a named one as it is
    const named = await postRule(teamId, apiKey, {
      kind: 'balance_below',
      threshold_rub: 1,
      enabled: false,
      channels: [{ ...channels[0], language: 'ru' }],
    });
    expect(named.status).toBe(201);
    const runner = ds.createQueryRunner();
    try {
      await new AlertChannelLanguage1798200000000().up(runner);
    } finally {
      await runner.release();
    }
    const stored = async (ruleId: string) =>
      JSON.parse((await ds.getRepository(AlertRuleEntity).findOneByOrFail({ id: ruleId })).channels) as unknown;
    expect(await stored(id)).toEqual([{ ...channels[0], language: 'en' }]);
    expect(await stored(named.body.id)).toEqual([{ ...channels[0], language: 'ru' }]);
  }, 60_000);
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
