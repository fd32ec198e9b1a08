import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  addMember,
  admin,
  launchBrowser,
  openSession,
  requireBuild,
  shot,
  signInWithPassword,
  startGateway,
  type Gateway,
} from './support';

/**
 * A team admin's job in Chromium against the real built server: a key with a model allowlist,
 * expiry and a daily budget (a call to another model is refused), its rotation with a grace period
 * (both secrets work meanwhile), and an alert rule whose test reaches a webhook inside the test; a
 * Russian channel's webhook says the fired event in Russian, which appears on the open page by itself.
 */
const PASSWORD = 'team-admin-password-123';

let gw: Gateway;
let browser: Browser;
let teamId = '';
let hook: { url: string; got: { headers: IncomingHttpHeaders; body: string }[]; close(): Promise<void> };

async function startHook(): Promise<typeof hook> {
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += String(c)));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/gateway-alerts`,
    got,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const call = (path: string, key: string, body: unknown) =>
  fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const embed = (key: string) => call('/v1/embeddings', key, { model: 'local-embedding-small', input: 'hello' });
const chat = (key: string) =>
  call('/v1/chat/completions', key, { model: 'local', messages: [{ role: 'user', content: 'hi' }] });

async function newSecret(page: Page): Promise<string> {
  const dialog = page.getByRole('dialog');
  const secret = ((await dialog.getByTestId('new-key').textContent()) ?? '').trim();
  await dialog.getByRole('button', { name: /^(I saved the key|Ключ сохранён)$/ }).click();
  await dialog.waitFor({ state: 'hidden' });
  return secret;
}

beforeAll(async () => {
  requireBuild();
  hook = await startHook();
  gw = await startGateway({
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    ALERT_RETRY_BASE_MS: '200',
    ALERTS_EVAL_INTERVAL_MS: '500',
  });
  browser = await launchBrowser();
  teamId = (await admin<{ id: string }>(gw, 'POST', '/api/v1/admin/teams', { name: 'acme', balance_rub: 100 })).id;
  await addMember(gw, teamId, 'admin@example.com', 'admin', PASSWORD);
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await hook?.close();
});

describe('Team admin in Chromium', () => {
  let secret = '';

  it('creates a key with an allowlist, an expiry and a daily budget; a call to another model is refused', async () => {
    const s = await openSession(browser);
    await signInWithPassword(s.page, gw, 'admin@example.com', PASSWORD);
    await s.page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    const form = s.page.getByTestId('key-form');
    await form.getByLabel('Key name').fill('backend');
    await form.getByLabel('Allowed models').click();
    await s.page.getByRole('option', { name: 'local-embedding-small' }).click();
    await s.page.keyboard.press('Escape');
    const tomorrow = new Date(Date.now() + 86_400_000);
    const local = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}T12:00`;
    await form.getByLabel('Expires at').fill(local);
    await form.getByLabel('Budget per day, RUB').fill('5');
    await form.getByLabel('Requests per minute').fill('30');
    await shot(s.page, 'team-admin-key-form-en');
    await form.getByRole('button', { name: 'Create key' }).click();
    secret = await newSecret(s.page);
    expect(secret).toMatch(/^sk-/);

    const row = s.page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /backend/ });
    await row.getByText('local-embedding-small').waitFor();
    await row.getByText('admin', { exact: true }).waitFor(); // created by
    await row.getByText(/30 RPM/).waitFor();
    const keys = await admin<{ data: { expires_at: string; budget_rub_per_day: number; allowed_models: string[] }[] }>(
      gw,
      'GET',
      `/api/v1/teams/${teamId}/api-keys`,
    );
    expect(keys.data[0]).toMatchObject({ budget_rub_per_day: 5, allowed_models: ['local-embedding-small'] });
    expect(Math.abs(Date.parse(keys.data[0].expires_at) - new Date(local).getTime())).toBeLessThan(60_000);

    expect((await embed(secret)).status).toBe(200);
    const refused = await chat(secret);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('model_not_allowed');
    await shot(s.page, 'team-admin-keys-en');
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('rotates the key in Russian: a new secret, the old one still valid for the grace period', async () => {
    const s = await openSession(browser, { locale: 'ru' });
    await signInWithPassword(s.page, gw, 'admin@example.com', PASSWORD);
    await s.page.getByRole('navigation').getByRole('link', { name: 'API-ключи' }).click();
    await s.page.getByRole('button', { name: /^Заменить sk-/ }).click();
    const dialog = s.page.getByRole('dialog');
    await dialog.getByLabel('Старый секрет работает ещё').waitFor();
    await shot(s.page, 'team-admin-rotate-ru');
    await dialog.getByRole('button', { name: 'Заменить ключ' }).click();
    await dialog.getByTestId('new-key').waitFor();
    const rotated = await newSecret(s.page);
    expect(rotated).not.toBe(secret);
    await expect.poll(() => s.page.getByTestId('rotation-note').textContent()).toMatch(/Старый секрет работает до/);
    expect((await embed(rotated)).status).toBe(200);
    expect((await embed(secret)).status).toBe(200); // within the hour of grace
    await shot(s.page, 'team-admin-rotated-ru');
    const log = await admin<{ data: { action: string }[] }>(gw, 'GET', `/api/v1/audit-log?team_id=${teamId}&limit=100`);
    expect(log.data.filter((e) => e.action === 'api_key.rotate')).toHaveLength(2);
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('creates an alert rule with a webhook and sends a test that reaches it', async () => {
    const s = await openSession(browser);
    await signInWithPassword(s.page, gw, 'admin@example.com', PASSWORD);
    await s.page.getByRole('navigation').getByRole('link', { name: 'Alerts' }).click();
    await s.page.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
    const form = s.page.getByTestId('alert-rule-form');
    await form.getByLabel('Threshold, RUB').fill('50');
    await form.getByLabel(/^Webhook URL/).fill(hook.url);
    await form.getByRole('button', { name: 'Create rule' }).click();
    await form.getByTestId('webhook-secret').waitFor();
    await s.page.getByRole('button', { name: /^Send a test of rule alr_/ }).click();
    await s.page.getByTestId('test-sent').waitFor();
    await expect.poll(() => hook.got.length, { timeout: 15_000 }).toBe(1);
    expect(JSON.parse(hook.got[0].body)).toMatchObject({ type: 'alert.test', data: { team_id: teamId, test: true } });
    expect(hook.got[0].headers['webhook-signature']).toMatch(/^v1,/);
    const events = s.page.getByRole('table', { name: 'Events and deliveries' });
    await events.getByText('delivered').waitFor({ timeout: 15_000 });
    await events.getByText('test', { exact: true }).waitFor();
    await shot(s.page, 'team-admin-alerts-en');

    // a rule that fires at once (the balance of 100 RUB is below 500), its webhook in Russian: the
    // event appears on the open page by itself, said by the console from the event's fields in either
    // language (the server's English message kept as a tooltip), and the webhook's message is Russian
    await form.getByLabel('Threshold, RUB').fill('500');
    await form.getByLabel(/^Webhook URL/).fill(hook.url);
    await form.getByRole('combobox', { name: 'Message language' }).click();
    await s.page.getByRole('option', { name: 'Russian', exact: true }).click();
    await form.getByRole('button', { name: 'Create rule' }).click();
    await s.page.getByTestId('alert-channel-language').filter({ hasText: 'Russian' }).waitFor();
    const fired = events.getByTestId('alert-event-text').filter({ hasText: /^Balance / });
    // no reload: the events list refreshes by itself
    await fired.waitFor({ timeout: 30_000 });
    expect(await fired.textContent()).toMatch(/^Balance RUB\s[\d.,]+ is below RUB\s500\.00\.$/);
    expect(await fired.getAttribute('title')).toMatch(/^Balance [\d.]+ RUB is below 500 RUB\. Top up/);
    const firedHook = async () =>
      hook.got
        .map((h) => JSON.parse(h.body) as { type: string; data: Record<string, unknown> })
        .find((b) => b.type === 'alert.fired');
    await expect.poll(firedHook, { timeout: 15_000 }).toBeTruthy();
    expect((await firedHook())!.data).toMatchObject({
      language: 'ru',
      message: expect.stringMatching(
        /^Баланс [\d\s,]+₽ ниже порога 500,00\s₽\. Пополнить баланс можно на странице «Оплата»: /,
      ),
    });
    await s.page.getByRole('radiogroup', { name: 'Language' }).getByText('RU', { exact: true }).click();
    await s.page.getByRole('heading', { level: 1, name: 'Оповещения' }).waitFor();
    const ruEvents = s.page.getByRole('table', { name: 'События и доставки' });
    await ruEvents.getByText('доставлено').first().waitFor();
    expect(await ruEvents.getByTestId('alert-event-text').first().textContent()).toMatch(
      /^Баланс [\d\s,]+₽ ниже порога 500,00\s₽\.$/,
    );
    // every event row is re-rendered in Russian (the list also refreshes by itself meanwhile)
    await expect
      .poll(() => ruEvents.getByTestId('alert-event-text').allTextContents(), { timeout: 10_000 })
      .not.toContainEqual(expect.stringMatching(/RUB|Balance/));
    await shot(s.page, 'team-admin-alerts-ru');
    expect(s.errors).toEqual([]);
    await s.context.close();
  });
});
