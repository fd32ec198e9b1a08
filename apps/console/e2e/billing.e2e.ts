import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { FakeYooKassa } from '../../../test/fakes/fake-yookassa';
import {
  addMember,
  admin,
  freePort,
  launchBrowser,
  openSession,
  requireBuild,
  shot,
  signInWithPassword,
  startGateway,
  type Gateway,
} from './support';

/**
 * The Billing page in Chromium against the real built server and a fake YooKassa: the owner tops up
 * 1,500 RUB through the fake's confirmation page and comes back to see the payment paid and the
 * balance grown; a viewer gets no Top up button; a member redeems a code in Russian.
 */
const PASSWORD = 'billing-password-123';

let gw: Gateway;
let yk: FakeYooKassa;
let browser: Browser;
let teamId = '';

const member = (email: string, role: string) => addMember(gw, teamId, email, role, PASSWORD);
const signIn = (page: Page, email: string) => signInWithPassword(page, gw, email, PASSWORD);

beforeAll(async () => {
  requireBuild();
  yk = await FakeYooKassa.start();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  gw = await startGateway(
    {
      YOOKASSA_SHOP_ID: yk.shopId,
      YOOKASSA_SECRET_KEY: yk.secretKey,
      YOOKASSA_BASE_URL: yk.baseUrl,
      PAYMENTS_RETURN_URL: `${url}/billing`,
      PAYMENTS_RECONCILE_MS: '1000',
    },
    port,
  );
  yk.notifyUrl = `${gw.url}/api/v1/payments/yookassa/notifications`;
  browser = await launchBrowser();
  teamId = (await admin<{ id: string }>(gw, 'POST', '/api/v1/admin/teams', { name: 'acme', balance_rub: 0 })).id;
  await member('owner@example.com', 'owner');
  await member('viewer@example.com', 'viewer');
  await member('member@example.com', 'member');
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await yk?.close();
});

describe('Billing page in Chromium', () => {
  it('the owner tops up 1,500 RUB through the confirmation page and sees the balance change', async () => {
    const s = await openSession(browser);
    await signIn(s.page, 'owner@example.com');
    await s.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await s.page.getByRole('link', { name: 'Billing' }).click();
    await s.page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    await expect.poll(() => s.page.getByTestId('billing-balance').textContent()).toMatch(/0\.00/);
    await s.page.getByRole('button', { name: /1,500/ }).click();
    await shot(s.page, 'billing-owner-en');
    await s.page.getByRole('button', { name: 'Top up', exact: true }).click();
    await s.page.waitForURL(/\/checkout\//);
    await shot(s.page, 'billing-yookassa-checkout', { check: false }); // the payment provider's page, not the console's
    const paid = yk.payments.get(new URL(s.page.url()).pathname.split('/').pop()!);
    expect(paid?.amount).toEqual({ value: '1500.00', currency: 'RUB' });
    await s.page.locator('#pay').click();
    await s.page.waitForURL(/\/billing\?/);
    await expect.poll(() => s.page.getByTestId('returned-payment').textContent(), { timeout: 15_000 }).toMatch(/Paid/);
    await expect
      .poll(() => s.page.getByTestId('billing-balance').textContent(), { timeout: 15_000 })
      .toMatch(/1,500\.00/);
    await s.page.getByRole('table', { name: 'Payments' }).getByText('Paid').waitFor();
    await shot(s.page, 'billing-owner-paid-en');
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('a viewer sees the balance and history but no Top up and no Redeem', async () => {
    const s = await openSession(browser);
    await signIn(s.page, 'viewer@example.com');
    await s.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await s.page.getByRole('link', { name: 'Billing' }).click();
    await s.page.getByRole('table', { name: 'Payments' }).waitFor();
    await expect.poll(() => s.page.getByTestId('billing-balance').textContent()).toMatch(/1,500\.00/);
    expect(await s.page.getByRole('button', { name: 'Top up', exact: true }).count()).toBe(0);
    expect(await s.page.getByRole('button', { name: 'Redeem' }).count()).toBe(0);
    await shot(s.page, 'billing-viewer-en');
    await s.context.close();
  });

  it('a member redeems a code in Russian', async () => {
    const made = await admin<{ codes: { code: string }[] }>(gw, 'POST', '/api/v1/admin/redemption-codes', {
      amount_rub: 250,
      count: 1,
    });
    const s = await openSession(browser, { locale: 'ru' });
    await signIn(s.page, 'member@example.com');
    await s.page.getByRole('link', { name: 'Оплата' }).click();
    await s.page.getByRole('heading', { level: 1, name: 'Оплата' }).waitFor();
    expect(await s.page.getByRole('button', { name: 'Пополнить', exact: true }).count()).toBe(0);
    await s.page.getByLabel('Код').fill(made.codes[0].code);
    await s.page.getByRole('button', { name: 'Активировать' }).click();
    await expect.poll(() => s.page.getByTestId('redeemed').textContent()).toMatch(/зачислено/);
    await expect.poll(() => s.page.getByTestId('billing-balance').textContent()).toMatch(/1\s?750,00/);
    await shot(s.page, 'billing-member-redeem-ru');
    // the same code again: refused
    await s.page.getByLabel('Код').fill(made.codes[0].code);
    await s.page.getByRole('button', { name: 'Активировать' }).click();
    await s.page.getByRole('alert').waitFor();
    expect(s.errors).toEqual([]);
    await s.context.close();
  });
});
