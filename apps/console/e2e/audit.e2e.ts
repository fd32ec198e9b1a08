import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  ADMIN_TOKEN,
  addMember,
  admin,
  axe,
  launchBrowser,
  openSession,
  requireBuild,
  shot,
  signInWithPassword,
  startGateway,
  type Gateway,
} from './support';

/**
 * The audit log read by people, in Chromium against the real built server: a team owner invites a
 * colleague and creates a key in the console, the operator tops the team up; the audit page names
 * everyone by name and e-mail and the team by its name (no ids on screen), filters by person, pages
 * with "Load more" and downloads the CSV — in English and Russian, light and dark, at 390 px.
 */
const PASSWORD = 'audit-owner-password-123';
const OPERATOR = { email: 'root@ops.test', password: 'operator-password-123' };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let gw: Gateway;
let browser: Browser;
let teamId = '';

beforeAll(async () => {
  requireBuild();
  gw = await startGateway({
    BOOTSTRAP_OPERATOR_EMAIL: OPERATOR.email,
    BOOTSTRAP_OPERATOR_PASSWORD: OPERATOR.password,
  });
  browser = await launchBrowser();
  teamId = (await admin<{ id: string }>(gw, 'POST', '/api/v1/admin/teams', { name: 'Acme Robotics', balance_rub: 0 }))
    .id;
  await addMember(gw, teamId, 'olga@acme.test', 'owner', PASSWORD);
  await admin(gw, 'POST', '/api/v1/admin/teams', { name: 'Globex' });
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

async function accessible(page: Page, name: string) {
  expect(await axe(page, name), `axe: ${name}`).toEqual([]);
}

const auditTable = (page: Page, name: RegExp = /^(Audit log|Журнал аудита)$/) => page.getByRole('table', { name });

async function openAudit(page: Page) {
  await page
    .getByRole('navigation')
    .getByRole('link', { name: /^(Audit log|Журнал аудита)$/ })
    .click();
  await auditTable(page).waitFor();
}

describe('audit log in Chromium', () => {
  it('an owner invites, creates a key; the operator tops up; the log names people, teams and amounts, filters by person, pages and exports CSV', async () => {
    const s = await openSession(browser);
    await signInWithPassword(s.page, gw, 'olga@acme.test', PASSWORD);
    await s.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    // invite a colleague
    await s.page.getByRole('navigation').getByRole('link', { name: 'Members' }).click();
    await s.page.getByRole('textbox', { name: /^Email/ }).fill('dev@acme.test');
    await s.page.getByRole('button', { name: 'Invite' }).click();
    await s.page.getByText('Invitation created').waitFor();
    // create a key
    await s.page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await s.page.getByTestId('key-form').getByLabel('Key name').fill('backend-prod');
    await s.page.getByTestId('key-form').getByRole('button', { name: 'Create key' }).click();
    const dialog = s.page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'I saved the key' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // enough admin-API changes to push the console's changes to a second page; then the operator tops up
    for (let i = 0; i < 26; i++) {
      const k = await admin<{ id: string }>(gw, 'POST', `/api/v1/admin/teams/${teamId}/api-keys`, {
        name: `batch-${i}`,
      });
      const revoked = await fetch(`${gw.url}/api/v1/admin/api-keys/${k.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(revoked.status).toBe(204);
    }

    await admin(gw, 'POST', `/api/v1/admin/teams/${teamId}/top-ups`, {
      amount_rub: 1500,
      reference: 'inv-42',
      note: 'Invoice 42 paid',
    });
    await openAudit(s.page);
    const table = auditTable(s.page);
    await table.getByText('Invoice 42 paid').waitFor();
    await table
      .getByText(/RUB\s1,500\.00/)
      .first()
      .waitFor();
    // the newest 50 first; the rest behind "Load more"
    expect(await table.getByRole('row').count()).toBe(51);
    await s.page.getByRole('button', { name: 'Load more' }).click();
    await table.getByText('olga@acme.test').first().waitFor();
    await table.getByRole('row', { name: /API key: created.*backend-prod/ }).waitFor();
    await table.getByRole('row', { name: /invitation: created.*dev@acme\.test/ }).waitFor();
    expect(await s.page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(await table.innerText()).not.toMatch(UUID);
    await accessible(s.page, 'audit-owner-en');
    await shot(s.page, 'audit-owner-en');

    // by person: only what Olga's account did
    await s.page.getByRole('combobox', { name: 'Person' }).click();
    await s.page.getByRole('option', { name: /olga@acme\.test/ }).click();
    await table.getByRole('row', { name: /API key: created.*backend-prod/ }).waitFor();
    await expect.poll(async () => (await table.innerText()).includes('admin token')).toBe(false);
    const rows = await table.getByRole('row').count();
    expect(rows).toBeGreaterThan(2);
    expect(rows).toBeLessThan(10);
    await shot(s.page, 'audit-owner-person-en');

    // the CSV of the filtered log, names beside the ids
    const [download] = await Promise.all([
      s.page.waitForEvent('download'),
      s.page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('audit-log.csv');
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toContain('actor_email');
    expect(lines.length).toBe(rows); // header + the same records as the table
    expect(lines.slice(1).every((l) => l.includes('olga@acme.test'))).toBe(true);
    expect(csv).toContain('Acme Robotics');
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('the operator sees every team with its name, filters by team and person, in Russian, dark and at 390 px', async () => {
    const s = await openSession(browser, { locale: 'ru', colorScheme: 'dark' });
    await signInWithPassword(s.page, gw, OPERATOR.email, OPERATOR.password);
    await s.page.waitForURL(/\/operator$/);
    await s.page.goto(`${gw.url}/audit-log`);
    const table = auditTable(s.page);
    await table.waitFor();
    await table.getByRole('columnheader', { name: 'Команда' }).waitFor();
    await table
      .getByRole('row', { name: /Acme Robotics.*API-ключ: создание/ })
      .first()
      .waitFor();
    await table.getByText('Сумма:').first().waitFor();
    const text = await table.innerText();
    expect(text).not.toMatch(UUID);
    // no English action, object or actor word left
    for (const english of ['created', 'topped up', 'API key:', 'admin token', 'invitation', 'team:'])
      expect(text, english).not.toContain(english);
    await accessible(s.page, 'audit-operator-ru-dark');
    await shot(s.page, 'audit-operator-ru-dark');

    await s.page.getByRole('combobox', { name: 'Команда' }).click();
    await s.page.getByRole('option', { name: 'Globex' }).click();
    await table.getByRole('row', { name: /Globex.*команда: создание/ }).waitFor();
    expect(await table.getByText('Acme Robotics').count()).toBe(0);
    await s.page.getByRole('combobox', { name: 'Команда' }).click();
    await s.page.getByRole('option', { name: 'Acme Robotics' }).click();
    await s.page.getByRole('combobox', { name: 'Человек' }).click();
    await s.page.getByRole('option', { name: /olga@acme\.test/ }).click();
    await table.getByRole('row', { name: /API-ключ: создание.*backend-prod/ }).waitFor();
    await shot(s.page, 'audit-operator-person-ru-dark');
    expect(s.errors).toEqual([]);
    await s.context.close();

    for (const [locale, colorScheme] of [
      ['en', 'light'],
      ['ru', 'light'],
    ] as const) {
      const m = await openSession(browser, { locale, colorScheme, viewport: { width: 390, height: 844 } });
      await signInWithPassword(m.page, gw, OPERATOR.email, OPERATOR.password);
      await m.page.waitForURL(/\/operator$/);
      await m.page.goto(`${gw.url}/audit-log`);
      await auditTable(m.page).waitFor();
      // the page itself does not scroll sideways: the table scrolls in its own box
      const overflow = await m.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(1);
      await accessible(m.page, `audit-operator-390-${locale}`);
      await shot(m.page, `audit-operator-390-${locale}`);
      expect(m.errors).toEqual([]);
      await m.context.close();
    }
  });
});
