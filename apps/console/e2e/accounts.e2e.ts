import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { admin, launchBrowser, openSession, requireBuild, ROOT, shot, startGateway, type Gateway } from './support';

/**
 * The console with accounts, in Chromium against the real built server: the operator (created at
 * start from BOOTSTRAP_OPERATOR_EMAIL/PASSWORD) signs in, creates a team with a balance and invites
 * people; they accept the invitation and sign in; a member creates a key and sees its usage; a
 * viewer gets no key controls and the server refuses the call anyway.
 */
const OPERATOR = { email: 'ops@example.com', password: 'operator-password-123' };

let gw: Gateway;
let browser: Browser;
let teamId = '';

beforeAll(async () => {
  requireBuild();
  gw = await startGateway({ BOOTSTRAP_OPERATOR_EMAIL: OPERATOR.email, BOOTSTRAP_OPERATOR_PASSWORD: OPERATOR.password });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${gw.url}/`);
  await page.getByLabel(/^Email/).fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The operator invites `email` with `role` into the team; returns the invitation link shown once. */
async function invite(email: string, role: string): Promise<string> {
  const { page, context } = await openSession(browser);
  await signIn(page, OPERATOR.email, OPERATOR.password);
  await page.getByRole('link', { name: 'Operator' }).click();
  await page.getByRole('button', { name: 'Open team northwind' }).click();
  await page.getByLabel(/^Email/).fill(email);
  await page.getByRole('combobox', { name: 'Role' }).click();
  await page.getByRole('option', { name: role, exact: true }).click();
  await page.getByRole('button', { name: 'Invite' }).click();
  const link = (await page.getByTestId('invitation-link').textContent())!.trim();
  await context.close();
  return link;
}

/** Accepts an invitation in a fresh browser: name and password create the account and sign in. */
async function accept(link: string, name: string, password: string) {
  const s = await openSession(browser);
  await s.page.goto(link);
  await s.page.getByLabel('Your name').fill(name);
  await s.page.getByLabel('Choose a password').fill(password);
  await s.page.getByRole('button', { name: 'Accept and create my account' }).click();
  await s.page.getByRole('button', { name: 'Go to sign in' }).click();
  await s.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return s;
}

describe('console with accounts in Chromium', () => {
  it('operator signs in, creates a team with a balance and invites a member, who accepts and signs in', async () => {
    const op = await openSession(browser);
    await signIn(op.page, OPERATOR.email, 'wrong-password-123');
    await expect.poll(() => op.page.getByRole('alert').textContent()).toMatch(/invalid|password/i);
    await signIn(op.page, OPERATOR.email, OPERATOR.password);
    await op.page.getByRole('link', { name: 'Operator' }).click();
    await op.page.getByLabel('Team name').fill('northwind');
    await op.page.getByLabel('Opening balance, RUB').fill('300');
    await op.page.getByRole('button', { name: 'Create team' }).click();
    await op.page.getByRole('button', { name: 'Open team northwind' }).click();
    await op.page.getByRole('heading', { name: /northwind · RUB 300\.00/ }).waitFor();
    // users: create one (its generated password shown once), make it an operator, disable it
    await op.page.getByRole('tab', { name: 'Users' }).click();
    await op.page.getByLabel(/^New user email/).fill('sam@example.com');
    await op.page.getByRole('button', { name: 'Create user' }).click();
    expect((await op.page.getByTestId('new-user-password').textContent())!.length).toBeGreaterThanOrEqual(12);
    await op.page.getByRole('switch', { name: 'sam@example.com is an operator' }).click({ force: true });
    await expect
      .poll(() => op.page.getByRole('switch', { name: 'sam@example.com is an operator' }).isChecked())
      .toBe(true);
    await op.page.getByRole('switch', { name: 'sam@example.com is disabled' }).click({ force: true });
    await expect
      .poll(async () => {
        const users = await admin<{ data: { email: string; operator: boolean; disabled: boolean }[] }>(
          gw,
          'GET',
          '/api/v1/admin/users',
        );
        return users.data.find((u) => u.email === 'sam@example.com');
      })
      .toMatchObject({ operator: true, disabled: true });
    await shot(op.page, 'accounts-operator-en');
    await op.context.close();

    const link = await invite('mia@example.com', 'member');
    expect(link).toMatch(new RegExp(`^${gw.url}/invitations/inv_`));
    const mia = await accept(link, 'Mia', 'mia-password-1234');
    // the session is the member's, in the invited team
    const me = await mia.page.evaluate(async () => (await fetch('/api/v1/auth/me')).json());
    expect(me.user.email).toBe('mia@example.com');
    expect(me.memberships).toEqual([expect.objectContaining({ team_name: 'northwind', role: 'member' })]);
    teamId = me.memberships[0].team_id;
    expect(await mia.page.getByText('RUB 300.00').count()).toBeGreaterThan(0);
    await mia.context.close();

    // and signs in again later with the new password
    const again = await openSession(browser);
    await signIn(again.page, 'mia@example.com', 'mia-password-1234');
    await again.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(again.errors).toEqual([]);
    await again.context.close();
  });

  it('the member creates an API key, copies it; a /v1/chat/completions request with it shows on Usage with its RUB cost', async () => {
    const { page, context, errors } = await openSession(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
    await signIn(page, 'mia@example.com', 'mia-password-1234');
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByLabel('Key name').fill('mia-laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API key' });
    const key = (await dialog.getByTestId('new-key').textContent())!.trim();
    await dialog.getByRole('button', { name: 'Copy API key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await dialog.getByRole('button', { name: 'I saved the key' }).click();
    await page.getByRole('cell', { name: 'mia-laptop' }).waitFor();

    // the team stores request bodies (set before its first call: the setting is cached for seconds)
    await admin(gw, 'PATCH', `/api/v1/teams/${teamId}`, { request_log_bodies: 'full' });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local', messages: [{ role: 'user', content: `Hello from the member, ${key}` }] }),
    });
    expect(res.status).toBe(200);
    const ledger = (await (await fetch(`${gw.url}/api/v1/usage?limit=5`, { headers: { 'api-key': key } })).json()) as {
      data: { kind: string; amount_rub: number; endpoint: string }[];
    };
    const charge = ledger.data.find((e) => e.kind === 'charge' && e.endpoint === '/v1/chat/completions')!;
    const expected = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'RUB',
      minimumFractionDigits: 2,
      maximumFractionDigits: 6,
    }).format(charge.amount_rub);

    await page.getByRole('link', { name: 'Usage' }).click();
    const row = page
      .getByRole('table', { name: 'Ledger' })
      .getByRole('row')
      .filter({ hasText: '/v1/chat/completions' });
    await expect.poll(() => row.first().textContent(), { timeout: 15_000 }).toContain(expected);
    await shot(page, 'accounts-member-usage-en');

    // the same call on the Requests page, with its cost; its drawer shows the attempt, tokens and cost
    const requestId = res.headers.get('x-request-id')!;
    const cost = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'RUB',
      minimumFractionDigits: 2,
      maximumFractionDigits: 6,
    }).format(Math.abs(charge.amount_rub)); // the log's cost is the ledger's charge, as a positive amount
    await page.getByRole('link', { name: 'Requests', exact: true }).click();
    const logged = page
      .getByRole('table', { name: 'Requests' })
      .getByRole('row')
      .filter({ hasText: '/v1/chat/completions' });
    await expect
      .poll(
        async () => {
          if ((await logged.count()) === 0) await page.reload();
          return logged.count();
        },
        { timeout: 15_000, interval: 1_500 },
      )
      .toBeGreaterThan(0);
    expect(await logged.first().textContent()).toContain(cost);
    expect(await logged.first().textContent()).toContain('mia-laptop');
    await logged
      .first()
      .getByRole('button', { name: `Details of request ${requestId}` })
      .click();
    const drawer = page.getByRole('dialog', { name: `Request ${requestId}` });
    await drawer.getByRole('table', { name: 'Tokens' }).waitFor();
    expect(await drawer.getByTestId('request-cost').textContent()).toBe(cost);
    expect(await drawer.getByText('Attempt 1: local').count()).toBe(1);
    // the stored request body, with the API key in it redacted
    const stored = drawer.getByLabel('Request body');
    expect(await stored.textContent()).toContain('Hello from the member');
    expect(await stored.textContent()).not.toContain(key);
    await shot(page, 'requests-drawer-en');
    await page.keyboard.press('Escape');
    await shot(page, 'requests-en');

    // a daily budget on the key (set by the operator): the overview shows the day's spend against it
    const listed = await admin<{ data: { id: string; name: string | null; spent_rub_today: number }[] }>(
      gw,
      'GET',
      `/api/v1/admin/teams/${teamId}/api-keys`,
    );
    const mine = listed.data.find((k) => k.name === 'mia-laptop')!;
    expect(mine.spent_rub_today).toBeCloseTo(Math.abs(charge.amount_rub), 6);
    await admin(gw, 'PATCH', `/api/v1/admin/api-keys/${mine.id}`, { budget_rub_per_day: 10 });
    await page.getByRole('link', { name: 'Overview' }).click();
    const budgets = page.getByRole('table', { name: 'Budget use of keys (UTC)' });
    const budgetRow = budgets.getByRole('row').filter({ hasText: 'mia-laptop' });
    await budgetRow.waitFor();
    expect(await budgetRow.textContent()).toContain(
      `of ${new Intl.NumberFormat('en-US', { style: 'currency', currency: 'RUB', minimumFractionDigits: 2 }).format(10)}`,
    );
    expect(await budgetRow.textContent()).toContain('no cap');
    const bar = budgetRow.getByRole('progressbar', { name: 'Daily budget used by mia-laptop' });
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBeCloseTo(
      Math.min(100, Math.round((Math.abs(charge.amount_rub) / 10) * 1000) / 10),
      5,
    );
    await shot(page, 'accounts-member-overview-budgets-en');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the member chats in the playground with the session alone and imports a Telegram export into a project', async () => {
    const { page, context, errors } = await openSession(browser);
    await signIn(page, 'mia@example.com', 'mia-password-1234');
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('button', { name: 'New project' }).first().click();
    await page.getByRole('dialog').getByLabel('Name').fill('Release notes');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { level: 1, name: 'Release notes' }).waitFor();

    await page.getByLabel('Chat export file to upload').setInputFiles({
      name: 'result.json',
      mimeType: 'application/json',
      buffer: readFileSync(join(ROOT, 'libs/projects/src/messenger/__fixtures__/telegram-single-chat.json')),
    });
    expect(await page.getByRole('combobox', { name: 'Export format' }).inputValue()).toBe('Telegram (JSON)');
    await page.getByRole('button', { name: 'Import chat' }).click();
    const chatRow = page.getByRole('row').filter({ hasText: 'messenger chat' });
    await chatRow.getByText('completed').waitFor({ timeout: 60_000 });

    const balanceBefore = await admin<{ balance_rub: number }>(gw, 'GET', `/api/v1/admin/teams/${teamId}`);
    await page.getByRole('tab', { name: 'Playground' }).click();
    expect(await page.getByLabel(/API key/).count()).toBe(0); // no key is asked for
    await page.getByLabel('Your question').fill('Who created the release group?');
    const sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/chat') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Send' }).click();
    const headers = (await sent).headers();
    expect(headers['x-team-id']).toBe(teamId);
    expect(headers['x-csrf-token']).toBeTruthy();
    expect(headers['api-key']).toBeUndefined();
    await expect
      .poll(() => page.getByTestId('answer-cost').textContent(), { timeout: 30_000 })
      .toMatch(/^Cost: RUB\s\d/);
    // charged to the team the session names
    const balanceAfter = await admin<{ balance_rub: number }>(gw, 'GET', `/api/v1/admin/teams/${teamId}`);
    expect(balanceAfter.balance_rub).toBeLessThan(balanceBefore.balance_rub);
    await shot(page, 'accounts-member-playground-en');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the operator's Delete team is refused with the server's message while money is left, and deletes an empty team", async () => {
    const { page, context, errors } = await openSession(browser);
    await signIn(page, OPERATOR.email, OPERATOR.password);
    await page.getByRole('link', { name: 'Operator' }).click();
    await page.getByRole('button', { name: 'Open team northwind' }).click();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Delete team' }).click();
    await page.getByRole('dialog', { name: 'Delete team northwind?' }).getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/balance/i);
    expect((await admin<{ id: string }>(gw, 'GET', `/api/v1/admin/teams/${teamId}`)).id).toBe(teamId);

    await page.getByLabel('Team name').first().fill('scratch');
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByRole('button', { name: 'Open team scratch' }).click();
    await page.getByRole('heading', { name: /^scratch · / }).waitFor();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Delete team' }).click();
    await page.getByRole('dialog', { name: 'Delete team scratch?' }).getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Open team scratch' }).count()).toBe(0);
    const teams = await admin<{ data: { name: string }[] }>(gw, 'GET', '/api/v1/admin/teams?limit=100');
    expect(teams.data.map((t) => t.name)).not.toContain('scratch');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a viewer sees no "Create key" control, and a direct API call with their session gets 403', async () => {
    const link = await invite('vic@example.com', 'viewer');
    const vic = await accept(link, 'Vic', 'vic-password-1234');
    await vic.page.getByRole('link', { name: 'API keys', exact: true }).click();
    await vic.page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await vic.page.getByRole('cell', { name: 'mia-laptop' }).waitFor(); // the list is readable
    expect(await vic.page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await vic.page.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    await shot(vic.page, 'accounts-viewer-keys-en');
    // the server enforces it: the same call the button would make, with the viewer's cookie and CSRF token
    const status = await vic.page.evaluate(async (team) => {
      const me = await (await fetch('/api/v1/auth/me')).json();
      const r = await fetch(`/api/v1/teams/${team}/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf_token },
        body: JSON.stringify({ name: 'sneaky' }),
      });
      return { status: r.status, body: await r.json() };
    }, teamId);
    expect(status.status).toBe(403);
    expect(status.body.error.message).toBeTruthy();
    expect(vic.errors).toEqual([]);
    await vic.context.close();
  });
});
