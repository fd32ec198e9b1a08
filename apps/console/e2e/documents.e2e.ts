import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { BUYER_A, oneCStatement, SELLER } from '../../../test/documents/one-c-statement';
import {
  ADMIN_TOKEN,
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
 * Paying by bank transfer through the console in Chromium against the real built server: the
 * operator sets the seller's requisites, the owner saves the company's (a wrong ИНН is refused under
 * its field, in Russian too), issues an invoice and downloads its PDF; the operator uploads the
 * bank's 1C statement (Windows-1251) and sees the matched and unmatched payments; the team sees the
 * invoice paid, the balance credited and last month's final act; the operator marks a second invoice
 * paid by hand.
 */
const PASSWORD = 'documents-password-123';

let gw: Gateway;
let browser: Browser;
let teamId = '';

const member = (email: string, role: string) => addMember(gw, teamId, email, role, PASSWORD);
const signIn = (page: Page, email: string) => signInWithPassword(page, gw, email, PASSWORD);

async function signInOperator(page: Page) {
  await page.goto(`${gw.url}/`);
  await page.getByRole('tab', { name: 'Operator' }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Operator' }).waitFor();
  await page.getByRole('tab', { name: 'Documents' }).click();
}

/** Clicks a download button and answers the saved file's bytes. */
async function download(page: Page, button: Locator): Promise<Buffer> {
  const [dl] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return readFileSync(await dl.path());
}

/** An input by its label, with or without the required-field asterisk. */
const field = (scope: Locator, label: string) =>
  scope.getByLabel(new RegExp(`^${label.replace(/[()/.*]/g, '\\$&')}( \\*)?$`));

const isPdf = (b: Buffer) => b.subarray(0, 5).toString('latin1') === '%PDF-';

function lastMonth(): string {
  const now = new Date();
  const d = new Date(now.getFullYear(), now.getMonth() - 1, 1);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
}

const today = () => {
  const d = new Date();
  return `${String(d.getDate()).padStart(2, '0')}.${String(d.getMonth() + 1).padStart(2, '0')}.${d.getFullYear()}`;
};

beforeAll(async () => {
  requireBuild();
  // a month closes on the next month's 1st day: last month's act is final whatever today's date
  gw = await startGateway({ ACTS_CLOSE_DAYS: '0' });
  browser = await launchBrowser();
  teamId = (await admin<{ id: string }>(gw, 'POST', '/api/v1/admin/teams', { name: 'acme', balance_rub: 0 })).id;
  await member('owner@example.com', 'owner');
  await member('viewer@example.com', 'viewer');
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

describe('Company documents in Chromium', () => {
  let invoiceNumber = '';

  it('the operator saves the seller’s requisites; a wrong account key is refused under its field', async () => {
    const s = await openSession(browser);
    await signInOperator(s.page);
    const form = s.page.getByTestId('seller-requisites');
    await form.getByText('The seller’s requisites are not set yet').waitFor();
    const fill = async (label: string, value: string) => field(form, label).fill(value);
    await fill('Legal name', SELLER.legal_name);
    await fill('ИНН (taxpayer number)', SELLER.inn);
    await fill('КПП', SELLER.kpp);
    await fill('ОГРН / ОГРНИП', SELLER.ogrn);
    await fill('Legal address', SELLER.address);
    await fill('Bank', SELLER.bank_name);
    await fill('БИК', SELLER.bik);
    await fill('Settlement account', SELLER.account.slice(0, 19) + '0');
    await fill('Correspondent account', SELLER.corr_account);
    await fill('Signatory (head)', SELLER.signatory);
    await fill('Chief accountant', SELLER.accountant);
    await form.getByRole('button', { name: 'Save requisites' }).click();
    await form.getByText('control key does not match the БИК').waitFor();
    expect(await field(form, 'Settlement account').getAttribute('aria-invalid')).toBe('true');
    await shot(s.page, 'documents-seller-error-en');
    await fill('Settlement account', SELLER.account);
    await form.getByRole('button', { name: 'Save requisites' }).click();
    await form.getByRole('status').getByText('Requisites saved.').waitFor();
    const stored = await admin<{ account: string; vat_rate: string }>(gw, 'GET', '/api/v1/admin/seller');
    expect(stored).toMatchObject({ account: SELLER.account, vat_rate: '22' });
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('the owner is refused a wrong ИНН in Russian, saves the requisites, issues an invoice and downloads its PDF', async () => {
    const s = await openSession(browser, { locale: 'ru' });
    await signIn(s.page, 'owner@example.com');
    await s.page.getByRole('link', { name: 'Оплата' }).click();
    const form = s.page.getByTestId('team-requisites');
    await form.getByText('Реквизитов пока нет').waitFor();
    // no requisites yet: an invoice is refused with the reason in Russian
    await s.page.getByLabel('Сумма, ₽ (с НДС)').fill('12200');
    await s.page.getByRole('button', { name: 'Выставить счёт' }).click();
    await s.page.getByTestId('document-error').getByText('Сначала сохраните реквизиты компании.').waitFor();
    await field(form, 'Полное наименование').fill(BUYER_A.legal_name);
    await field(form, 'ИНН').fill('7707083890');
    await field(form, 'КПП').fill(BUYER_A.kpp);
    await field(form, 'Юридический адрес').fill(BUYER_A.address);
    await form.getByRole('button', { name: 'Сохранить реквизиты' }).click();
    await form.getByText('контрольное число не сходится').waitFor();
    await shot(s.page, 'documents-requisites-error-ru');
    await field(form, 'ИНН').fill(BUYER_A.inn);
    await form.getByRole('button', { name: 'Сохранить реквизиты' }).click();
    await form.getByText('Реквизиты сохранены.').waitFor();

    await s.page.getByLabel('Сумма, ₽ (с НДС)').fill('12200');
    await s.page.getByRole('button', { name: 'Выставить счёт' }).click();
    await expect.poll(() => s.page.getByTestId('invoice-issued').textContent()).toMatch(/INV-\d{4}-\d{6}/);
    invoiceNumber = /INV-\d{4}-\d{6}/.exec((await s.page.getByTestId('invoice-issued').textContent()) ?? '')![0];
    const row = s.page.getByTestId(`invoice-${invoiceNumber}`);
    await row.getByText('Ожидает оплаты').waitFor();
    const pdf = await download(s.page, row.getByRole('button', { name: `Скачать ${invoiceNumber}` }));
    expect(isPdf(pdf)).toBe(true);
    expect(pdf.length).toBeGreaterThan(5_000);
    await shot(s.page, 'documents-invoice-issued-ru');
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('the operator uploads the 1C statement: the invoice’s payment is credited, a stray one is listed unmatched', async () => {
    const file = oneCStatement([
      {
        number: '512',
        date: today(),
        amount: '12200.00',
        payerInn: BUYER_A.inn,
        payerName: BUYER_A.legal_name,
        purpose: `Оплата по счёту ${invoiceNumber} за доступ к API, в т.ч. НДС 22% 2200.00`,
      },
      {
        number: '513',
        date: today(),
        amount: '500.00',
        payerInn: BUYER_A.inn,
        payerName: BUYER_A.legal_name,
        purpose: 'Оплата по счёту INV-2001-999999',
      },
    ]);
    const s = await openSession(browser);
    await signInOperator(s.page);
    const panel = s.page.getByTestId('bank-statements');
    await panel
      .locator('input[type=file]')
      .setInputFiles({ name: 'kl_to_1c.txt', mimeType: 'text/plain', buffer: file });
    await panel.getByRole('button', { name: 'Upload statement' }).click();
    const result = s.page.getByTestId('statement-result');
    await result.getByText(/1 credited .*1 unmatched/).waitFor();
    await result.getByTestId('statement-line-512').getByText('Credited').waitFor();
    await result.getByTestId('statement-line-513').getByText('unknown invoice number').waitFor();
    await shot(s.page, 'documents-statement-en');
    // the same statement again credits nothing new
    await panel
      .locator('input[type=file]')
      .setInputFiles({ name: 'kl_to_1c.txt', mimeType: 'text/plain', buffer: file });
    await panel.getByRole('button', { name: 'Upload statement' }).click();
    await result.getByTestId('statement-line-512').getByText('Already credited').waitFor();
    const team = await admin<{ balance_rub: number }>(gw, 'GET', `/api/v1/admin/teams/${teamId}`);
    expect(team.balance_rub).toBe(12200);
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('the team sees the invoice paid, the balance credited and last month’s final act', async () => {
    const s = await openSession(browser);
    await signIn(s.page, 'viewer@example.com');
    await s.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await s.page.getByRole('link', { name: 'Billing' }).click();
    await expect.poll(() => s.page.getByTestId('billing-balance').textContent()).toMatch(/12,200\.00/);
    await s.page.getByTestId(`invoice-${invoiceNumber}`).getByText('Paid').waitFor();
    // a viewer reads and downloads, but neither edits the requisites nor issues invoices
    expect(await s.page.getByRole('button', { name: 'Issue invoice' }).count()).toBe(0);
    expect(await s.page.getByRole('button', { name: 'Save requisites' }).count()).toBe(0);
    const act = s.page.getByTestId(`act-${lastMonth()}`);
    await act.getByText('Final').waitFor();
    const current = s.page.locator('[data-testid^="act-"]').first();
    await current.getByText('Preliminary').waitFor();
    const pdf = await download(s.page, act.getByRole('button', { name: /^Download ACT-/ }));
    expect(isPdf(pdf)).toBe(true);
    await shot(s.page, 'documents-team-paid-en');
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('the operator marks a second invoice paid by hand', async () => {
    const second = await fetch(`${gw.url}/api/v1/teams/${teamId}/invoices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount_rub: 1000 }),
    }).then((r) => r.json() as Promise<{ number: string }>);
    const s = await openSession(browser, { locale: 'ru' });
    await s.page.goto(`${gw.url}/`);
    await s.page.getByRole('tab', { name: 'Оператор' }).click();
    await s.page.getByLabel('Токен администратора').fill(ADMIN_TOKEN);
    await s.page.getByRole('button', { name: 'Войти' }).click();
    await s.page.getByRole('button', { name: /acme/ }).click();
    await s.page.getByRole('tab', { name: 'Баланс' }).click();
    await s.page.getByRole('button', { name: `Отметить оплату ${second.number}` }).click();
    const dialog = s.page.getByRole('dialog');
    await dialog.getByLabel(/Основание платежа/).fill('п/п 77 от 20.11.2026');
    await shot(s.page, 'documents-mark-paid-ru');
    await dialog.getByRole('button', { name: 'Отметить оплату' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await s.page.getByRole('table', { name: 'Счета' }).getByText('Оплачен').first().waitFor();
    const team = await admin<{ balance_rub: number }>(gw, 'GET', `/api/v1/admin/teams/${teamId}`);
    expect(team.balance_rub).toBe(13200);
    await shot(s.page, 'documents-operator-ru');
    expect(s.errors).toEqual([]);
    await s.context.close();
  });
});
