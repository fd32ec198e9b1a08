import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  admin,
  allowDataWords,
  launchBrowser,
  openSession,
  requireBuild,
  shot,
  signInWithPassword,
  startGateway,
  verify,
  type Gateway,
} from './support';

/**
 * Operator → a team → Prices in Chromium against the real built server: the operator sets a markup
 * and a model's own prices (with a fee per request) in the UI, the API's GET pricing holds them and
 * the "pays today" column shows the new prices; a value the server refuses is shown on its field
 * (in English the server's words, in Russian which field); removing own prices asks first. Then
 * the tab in Russian and dark mode with its dialog and a refusal, checked by axe-core and for
 * English leftovers. An image model's row shows the team's price per generated image.
 */
const OPERATOR = { email: 'prices-operator@example.test', password: 'team-prices-password-42' };
const TEAM = 'Pricing';
allowDataWords(TEAM, 'default');

interface Pricing {
  markup_percent: number;
  discount_percent: number;
  models: Record<string, Record<string, number>>;
  prices: { model: string; pricing: Record<string, number | null> | null }[];
}

let gw: Gateway;
let browser: Browser;
let teamId: string;

const pricing = () => admin<Pricing>(gw, 'GET', `/api/v1/admin/teams/${teamId}/pricing`);
const paid = (p: Pricing, model: string) => p.prices.find((x) => x.model === model)!.pricing!;

/** Signs in as the operator, opens the team and its Prices tab. */
async function openPrices(page: Page, ru = false) {
  const L = (en: string, r: string) => (ru ? r : en);
  await signInWithPassword(page, gw, OPERATOR.email, OPERATOR.password);
  await page.getByRole('heading', { level: 1, name: L('Overview', 'Обзор') }).waitFor();
  await page.goto(`${gw.url}/operator`);
  await page.getByRole('button', { name: L(`Open team ${TEAM}`, `Открыть команду ${TEAM}`) }).click();
  await page.getByRole('tab', { name: L('Prices', 'Цены'), exact: true }).click();
  await page.getByRole('table', { name: L('What the team pays today', 'Сколько команда платит сейчас') }).waitFor();
}

const todayRow = (page: Page, model: string, ru = false) =>
  page
    .getByRole('table', { name: ru ? 'Сколько команда платит сейчас' : 'What the team pays today' })
    .locator(`tr[data-model="${model}"]`);
/** A row's text with the no-break spaces of the number formats as plain spaces. */
const text = async (row: ReturnType<typeof todayRow>) => ((await row.textContent()) ?? '').replace(/\u00a0/g, ' ');
/** Waits until a row's text holds `part`. */
const shows = (row: ReturnType<typeof todayRow>, part: string) =>
  expect.poll(() => text(row), { timeout: 10_000 }).toContain(part);

const ownRow = (page: Page, model: string, ru = false) =>
  page.getByRole('table', { name: ru ? 'Собственные цены' : 'Own prices' }).locator(`tr[data-model="${model}"]`);

beforeAll(async () => {
  requireBuild();
  gw = await startGateway({
    BOOTSTRAP_API_KEY: 'sk-team-prices-e2e-0123456789abcdef',
    BOOTSTRAP_OPERATOR_EMAIL: OPERATOR.email,
    BOOTSTRAP_OPERATOR_PASSWORD: OPERATOR.password,
  });
  teamId = (await admin<{ id: string }>(gw, 'POST', '/api/v1/admin/teams', { name: TEAM })).id;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

describe('a team’s prices in Chromium', () => {
  it('markup and own prices set in the UI are what the API holds and the team pays; a refused value is shown on its field; removing asks first', async () => {
    const { page, context, errors } = await openSession(browser);
    await openPrices(page);
    // the built-in price of gpt-4o-mini: 15 in / 60 out per 1M, no fee
    await shows(todayRow(page, 'gpt-4o-mini'), 'in RUB 15.00 · out RUB 60.00 per 1M tokens');
    await page.getByText('No own prices').waitFor();

    await page.getByLabel('Markup, %').fill('10');
    await page.getByRole('button', { name: 'Save markup and discount' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await shows(todayRow(page, 'gpt-4o-mini'), 'in RUB 16.50 · out RUB 66.00 per 1M tokens');
    // an image model: what the team pays per generated image (the catalog's 4–12 with the markup)
    await shows(todayRow(page, 'dall-e-3'), 'RUB 4.40 – RUB 13.20 per image');
    expect(await pricing()).toMatchObject({ markup_percent: 10, discount_percent: 0, models: {} });

    // a model's own prices, the fee per request included
    await page.getByRole('button', { name: 'Add model prices' }).click();
    const dialog = page.getByRole('dialog', { name: 'Own prices of a model' });
    await dialog.getByRole('combobox', { name: /^Model/ }).fill('gpt-4o-mi');
    await page.getByRole('option', { name: 'gpt-4o-mini', exact: true }).click();
    await dialog.getByLabel('Input, RUB').fill('12');
    await dialog.getByLabel('Output, RUB').fill('48');
    await dialog.getByLabel('Per request, RUB').fill('0,2');
    await verify(page, 'team-prices-add-en-light');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await ownRow(page, 'gpt-4o-mini').waitFor();
    const own = await text(ownRow(page, 'gpt-4o-mini'));
    expect(own).toContain('RUB 12.00');
    expect(own).toContain('RUB 48.00');
    expect(own).toContain('RUB 0.20');
    expect(own).toContain('catalog');
    const after = await pricing();
    expect(after.models).toEqual({ 'gpt-4o-mini': { input_per_1m_rub: 12, output_per_1m_rub: 48, request_rub: 0.2 } });
    expect(paid(after, 'gpt-4o-mini')).toMatchObject({ input_rub_per_1m: 12, output_rub_per_1m: 48, request_rub: 0.2 });
    // the "pays today" column: own prices as set, the fee per request, the other models with the markup
    const today = todayRow(page, 'gpt-4o-mini');
    await shows(today, 'in RUB 12.00 · out RUB 48.00 per 1M tokens');
    await shows(today, 'RUB 0.20 per request');
    expect(await today.textContent()).toContain('own prices');
    expect(await todayRow(page, 'gpt-4o').textContent()).toContain('catalog');
    await shot(page, 'team-prices-en-light');

    // the server refuses a fee finer than whole µRUB: its words on the field, nothing stored
    await page.getByRole('button', { name: 'Edit own prices of gpt-4o-mini' }).click();
    const edit = page.getByRole('dialog', { name: 'Own prices of gpt-4o-mini' });
    await edit.getByLabel('Per request, RUB').fill('0.1234567');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.getByText('models.gpt-4o-mini.request_rub must have at most 6 decimals.').waitFor();
    expect(await edit.getByLabel('Per request, RUB').getAttribute('aria-invalid')).toBe('true');
    await shot(page, 'team-prices-refused-en-light');
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await edit.waitFor({ state: 'detached' });
    expect((await pricing()).models['gpt-4o-mini'].request_rub).toBe(0.2);

    // a markup over the limit: the server's refusal on the markup field
    await page.getByLabel('Markup, %').fill('2000');
    await page.getByRole('button', { name: 'Save markup and discount' }).click();
    await page.getByText(/markup_percent must not be greater than 1000/).waitFor();
    expect(await page.getByLabel('Markup, %').getAttribute('aria-invalid')).toBe('true');
    expect((await pricing()).markup_percent).toBe(10);

    // removing asks first
    await page.getByRole('button', { name: 'Remove own prices of gpt-4o-mini' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove the own prices of gpt-4o-mini?' });
    await verify(page, 'team-prices-remove-en-light');
    await confirm.getByRole('button', { name: 'Confirm' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByText('No own prices').waitFor();
    await shows(todayRow(page, 'gpt-4o-mini'), 'in RUB 16.50 · out RUB 66.00 per 1M tokens');
    expect((await pricing()).models).toEqual({});
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the tab in Russian and dark mode: Russian number formatting, the edit dialog and the server’s refusal on the field', async () => {
    await admin(gw, 'PUT', `/api/v1/admin/teams/${teamId}/pricing`, {
      markup_percent: 10,
      discount_percent: 5,
      models: {
        'gpt-4o-mini': { input_per_1m_rub: 1200.5, output_per_1m_rub: 4800, request_rub: 0 },
        'text-embedding-3-small': { input_per_1m_rub: 1.5 },
      },
    });
    const { page, context, errors } = await openSession(browser, { locale: 'ru', colorScheme: 'dark' });
    await openPrices(page, true);
    const own = await text(ownRow(page, 'gpt-4o-mini', true));
    expect(own).toContain('1 200,50 ₽');
    expect(own).toContain('каталог');
    expect(own).toContain('нет'); // no fee for this team
    // an embedding model takes an input price and a fee per request only
    expect(await text(ownRow(page, 'text-embedding-3-small', true))).toMatch(
      /^text-embedding-3-small1,50 ₽—————каталог/,
    );
    await shows(todayRow(page, 'gpt-4o-mini', true), 'вход 1 200,50 ₽ · выход 4 800,00 ₽');
    expect(await page.getByLabel('Скидка, %').inputValue()).toBe('5');
    await shot(page, 'team-prices-ru-dark');
    // per generated image: 4–12 ₽ × 1.10 × 0.95
    const image = todayRow(page, 'dall-e-3', true);
    await shows(image, '4,18 ₽ – 12,54 ₽ за изображение');
    await image.scrollIntoViewIfNeeded();
    await shot(page, 'team-prices-image-ru-dark');

    await page.getByRole('button', { name: 'Изменить собственные цены gpt-4o-mini' }).click();
    const edit = page.getByRole('dialog', { name: 'Собственные цены gpt-4o-mini' });
    await edit.getByLabel('За запрос, ₽').fill('0,1234567');
    await edit.getByRole('button', { name: 'Сохранить' }).click();
    await edit.getByText('Сервер не принял поле «За запрос».').waitFor();
    await shot(page, 'team-prices-refused-ru-dark');
    await edit.getByLabel('За запрос, ₽').fill('-1');
    await edit.getByRole('button', { name: 'Сохранить' }).click();
    await edit.getByText('Не может быть отрицательной.').waitFor();
    await edit.getByRole('button', { name: 'Отмена' }).click();

    await page.getByRole('button', { name: 'Добавить цены модели' }).click();
    const add = page.getByRole('dialog', { name: 'Собственные цены модели' });
    await add.getByRole('combobox', { name: /^Модель/ }).fill('claude-sonnet');
    await page.getByRole('option', { name: 'claude-sonnet-4', exact: true }).click();
    await add.getByLabel('Запись кеша (1 ч), ₽').waitFor();
    await shot(page, 'team-prices-add-ru-dark');
    await add.getByRole('button', { name: 'Отмена' }).click();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the tab on a 390 px screen: the page does not get wider than the screen', async () => {
    const { page, context, errors } = await openSession(browser, {
      colorScheme: 'dark',
      viewport: { width: 390, height: 900 },
    });
    await openPrices(page);
    await ownRow(page, 'gpt-4o-mini').waitFor();
    await shot(page, 'team-prices-en-dark-390');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, 'the page is wider than the screen').toBeLessThanOrEqual(0);
    await page.getByRole('button', { name: 'Edit own prices of gpt-4o-mini' }).click();
    await page.getByRole('dialog', { name: 'Own prices of gpt-4o-mini' }).getByLabel('Per request, RUB').waitFor();
    await shot(page, 'team-prices-edit-en-dark-390');
    expect(errors).toEqual([]);
    await context.close();
  });
});
