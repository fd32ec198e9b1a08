import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
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
 * The operators' models-and-prices editor in Chromium against the real built server with an
 * OpenAI-compatible upstream inside the test: the operator changes a model's prices (and adds a fee
 * per request) in the UI and the next chat call with an API key is charged exactly that; disables
 * the model and a call to it answers 404; resets the override after a confirmation and the built-in
 * price applies again. Then the page in English and Russian, light and dark, at 390 px: the table,
 * the edit drawer of an image model and a refused price, each checked with axe-core.
 */
const OPERATOR = { email: 'catalog-operator@example.test', password: 'catalog-editor-password-42' };
const KEY = 'sk-catalog-e2e-0123456789abcdef';
const UPSTREAM_KEY = 'sk-upstream-catalog-e2e';

let gw: Gateway;
let browser: Browser;
let upstream: { url: string; calls: { model: string }[]; close(): Promise<void> };

/** An OpenAI chat endpoint that answers every call with 1000 prompt and 100 completion tokens. */
async function startUpstream(): Promise<typeof upstream> {
  const calls: { model: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += String(c)));
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${UPSTREAM_KEY}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}');
        return;
      }
      const parsed = JSON.parse(body || '{}') as { model?: string };
      calls.push({ model: parsed.model ?? '' });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${calls.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: parsed.model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls, close: () => new Promise((r) => server.close(() => r())) };
}

const chat = (model: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

/** The newest charge of the key's team, from its ledger. */
async function lastCharge(): Promise<{ amount_rub: number; model: string }> {
  const res = await fetch(`${gw.url}/api/v1/usage?limit=5`, { headers: { 'api-key': KEY } });
  const body = (await res.json()) as { data: { kind: string; amount_rub: number; model: string }[] };
  return body.data.find((e) => e.kind === 'charge')!;
}

async function accessible(page: Page, name: string) {
  expect(await axe(page, name), `axe: ${name}`).toEqual([]);
}

/** Signs in as the operator and opens Operator → Models and prices. */
async function openEditor(page: Page, ru = false) {
  const L = (en: string, r: string) => (ru ? r : en);
  await signInWithPassword(page, gw, OPERATOR.email, OPERATOR.password);
  await page.getByRole('heading', { level: 1, name: L('Overview', 'Обзор') }).waitFor();
  await page.goto(`${gw.url}/operator`);
  await page.getByRole('heading', { level: 1, name: L('Operator', 'Оператор') }).waitFor();
  await page.getByRole('tab', { name: L('Models and prices', 'Модели и цены') }).click();
  await page.getByRole('table', { name: L('Models and prices', 'Модели и цены') }).waitFor();
}

const row = (page: Page, model: string) => page.locator(`tr[data-model="${model}"]`);

beforeAll(async () => {
  requireBuild();
  upstream = await startUpstream();
  gw = await startGateway({
    BOOTSTRAP_API_KEY: KEY,
    BOOTSTRAP_BALANCE_RUB: '100',
    BOOTSTRAP_OPERATOR_EMAIL: OPERATOR.email,
    BOOTSTRAP_OPERATOR_PASSWORD: OPERATOR.password,
    OPENAI_API_KEY: UPSTREAM_KEY,
    OPENAI_BASE_URL: `${upstream.url}/v1`,
  });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await upstream?.close();
});

describe('models and prices editor in Chromium', () => {
  it('a price edited in the UI is what the next call costs; disabled answers 404; reset restores the built-in price', async () => {
    const { page, context, errors } = await openSession(browser);
    await openEditor(page);
    // the built-in price first: 15 in / 60 out per 1M → 1000 × 15 / 1M + 100 × 60 / 1M
    expect((await chat('gpt-4o-mini')).status).toBe(200);
    expect(await lastCharge()).toMatchObject({ model: 'gpt-4o-mini', amount_rub: -0.021 });

    await page.getByLabel('Search', { exact: true }).fill('gpt-4o-mini');
    await row(page, 'gpt-4o-mini').waitFor();
    expect(await row(page, 'gpt-4o-mini').textContent()).toContain('built-in');
    await page.getByRole('button', { name: 'Edit gpt-4o-mini' }).click();
    const drawer = page.getByRole('dialog');
    await drawer.getByLabel('Input, RUB', { exact: true }).fill('30');
    await drawer.getByLabel('Output, RUB', { exact: true }).fill('90');
    await drawer.getByLabel('Per request, RUB').fill('0,5');
    await drawer.getByRole('button', { name: 'Save' }).click();
    await drawer.waitFor({ state: 'detached' });
    await row(page, 'gpt-4o-mini').getByText('0.50 per request').waitFor();
    expect(await row(page, 'gpt-4o-mini').textContent()).toContain('override');
    // the edited fields are marked as overridden when the drawer opens again
    await page.getByRole('button', { name: 'Edit gpt-4o-mini' }).click();
    expect(await page.getByRole('dialog').getByText('overridden').count()).toBe(3);
    await accessible(page, 'catalog-edit-overridden-en-light');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    // 1000 × 30 / 1M + 100 × 90 / 1M + 0.5 per request
    expect((await chat('gpt-4o-mini')).status).toBe(200);
    expect(await lastCharge()).toMatchObject({ model: 'gpt-4o-mini', amount_rub: -0.539 });

    await page.getByRole('switch', { name: 'Enable gpt-4o-mini' }).click({ force: true }); // the track covers the input
    await row(page, 'gpt-4o-mini').getByText('disabled', { exact: true }).waitFor();
    const before = upstream.calls.length;
    const off = await chat('gpt-4o-mini');
    expect(off.status).toBe(404);
    expect(((await off.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
    expect(upstream.calls.length).toBe(before);
    await accessible(page, 'catalog-disabled-en-light');
    await shot(page, 'catalog-disabled-en-light');

    await page.getByRole('button', { name: 'Reset gpt-4o-mini to its built-in entry' }).click();
    const confirm = page.getByRole('dialog', { name: 'Reset gpt-4o-mini?' });
    await accessible(page, 'catalog-reset-confirm-en-light');
    await confirm.getByRole('button', { name: 'Reset override' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row(page, 'gpt-4o-mini').getByText('built-in').waitFor();
    expect((await chat('gpt-4o-mini')).status).toBe(200);
    expect(await lastCharge()).toMatchObject({ model: 'gpt-4o-mini', amount_rub: -0.021 });
    expect(errors).toEqual([]);
    await context.close();
  });

  for (const [lang, scheme, width] of [
    ['en', 'light', 1280],
    ['ru', 'dark', 1280],
    ['en', 'dark', 390],
    ['ru', 'light', 390],
  ] as const) {
    it(`the page (${lang}, ${scheme}, ${width} px): filters, per-image prices of an image model, a price refused in the browser and by the server`, async () => {
      const ru = lang === 'ru';
      const L = (en: string, r: string) => (ru ? r : en);
      const name = `${lang}-${scheme}-${width}`;
      const { page, context, errors } = await openSession(browser, {
        locale: lang,
        colorScheme: scheme,
        viewport: { width, height: 900 },
      });
      await openEditor(page, ru);
      await accessible(page, `catalog-table-${name}`);
      await shot(page, `catalog-table-${name}`);
      if (width === 390) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, 'the page is wider than the screen').toBeLessThanOrEqual(0);
      }

      // the kind filter: image models only, priced per image (never "0.00 / 0.00")
      await page.getByRole('combobox', { name: L('Kind', 'Тип'), exact: true }).click();
      await page.getByRole('option', { name: L('image generation', 'генерация изображений') }).click();
      const dalle = row(page, 'dall-e-3');
      await dalle.waitFor();
      expect(await dalle.textContent()).toMatch(ru ? /за изображение/ : /per image/);
      expect(await dalle.getByText(L('image generation', 'генерация изображений')).count()).toBe(1);
      expect(await page.locator('tbody tr').count()).toBeGreaterThan(0);
      for (const r of await page.locator('tbody tr').all()) expect(await r.textContent()).not.toMatch(/chat|чат/);
      await dalle.getByRole('button', { name: L('Edit dall-e-3', 'Изменить dall-e-3') }).click();
      const drawer = page.getByRole('dialog');
      await drawer
        .getByRole('group', { name: L('Per generated image, RUB', 'За сгенерированное изображение, ₽') })
        .waitFor();
      await accessible(page, `catalog-edit-image-${name}`);
      await shot(page, `catalog-edit-image-${name}`);
      await drawer.getByRole('button', { name: L('Cancel', 'Отмена') }).click();
      await drawer.waitFor({ state: 'detached' });

      // a negative price is refused before anything is sent, in the interface's language
      await page.getByRole('combobox', { name: L('Kind', 'Тип'), exact: true }).click();
      await page.getByRole('option', { name: L('chat', 'чат'), exact: true }).click();
      await page.getByLabel(L('Search', 'Поиск'), { exact: true }).fill('gpt-4o-mini');
      await row(page, 'gpt-4o-mini')
        .getByRole('button', { name: L('Edit gpt-4o-mini', 'Изменить gpt-4o-mini') })
        .click();
      const form = page.getByRole('dialog');
      await form.getByLabel(L('Input, RUB', 'Вход, ₽'), { exact: true }).fill('-1');
      await form.getByLabel(L('Output, RUB', 'Выход, ₽'), { exact: true }).fill('');
      await form.getByRole('button', { name: L('Save', 'Сохранить') }).click();
      await form.getByText(L('Must not be negative.', 'Не может быть отрицательной.')).waitFor();
      await form.getByText(L('Required for an enabled model.', 'Обязательно для включённой модели.')).waitFor();
      await accessible(page, `catalog-edit-refused-${name}`);
      await shot(page, `catalog-edit-refused-${name}`);
      if (width === 390) {
        expect(errors).toEqual([]);
        await context.close();
        return;
      }
      // the server's refusal (an alias that is another model's key), in the interface's language
      await form.getByLabel(L('Input, RUB', 'Вход, ₽'), { exact: true }).fill('15');
      await form.getByLabel(L('Output, RUB', 'Выход, ₽'), { exact: true }).fill('60');
      await form.getByLabel(L('Aliases', 'Псевдонимы'), { exact: true }).fill('gpt-4o');
      await form.getByLabel(L('Aliases', 'Псевдонимы'), { exact: true }).press('Enter');
      await form.getByRole('button', { name: L('Save', 'Сохранить') }).click();
      await form
        .getByRole('alert')
        .getByText(
          ru
            ? 'Цена или настройка модели указана неверно.'
            : 'model gpt-4o-mini: alias "gpt-4o" is the key of a catalog model',
        )
        .waitFor();
      await accessible(page, `catalog-edit-server-refused-${name}`);
      await shot(page, `catalog-edit-server-refused-${name}`);
      await form.getByRole('button', { name: L('Cancel', 'Отмена') }).click();
      expect(await row(page, 'gpt-4o-mini').textContent()).toContain(L('built-in', 'встроенная'));
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
