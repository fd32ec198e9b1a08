import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  allowDataWords,
  launchBrowser,
  openSession,
  requireBuild,
  ROOT,
  shot,
  startGateway,
  verify,
  type Gateway,
} from './support';

/**
 * First contact, the operator's job and the quality bar, in Chromium against the real built server
 * started the way the README's quick start starts it (a bootstrap key and operator): sign in and
 * out, the invitation page, Settings → API requests "Run", the operator's team drill-down and
 * all-teams usage, the providers page with a test call; axe-core on every page state visited,
 * Russian, the OS dark preference and a 390 px screen.
 */
/** The variables of the README quick start's `… npm start` line: the server these flows run against. */
function readmeServerEnv(): Record<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /<!-- readme-test: server -->\s*```bash\n([\s\S]*?)```/.exec(readme)![1];
  const start = block.split('\n').find((l) => /\bnpm start$/.test(l.trim()))!;
  return Object.fromEntries(
    start
      .trim()
      .split(/\s+/)
      .filter((p) => p.includes('='))
      .map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]),
  );
}

const README_ENV = readmeServerEnv();
/** Names the flows give their data, shown as such on the pages (not interface words). */
const TOUR_DATA = ['default', 'bootstrap', 'Handbook', 'local', 'Nina'];
allowDataWords(...TOUR_DATA);
const OPERATOR = { email: README_ENV.BOOTSTRAP_OPERATOR_EMAIL, password: README_ENV.BOOTSTRAP_OPERATOR_PASSWORD };
const KEY = README_ENV.BOOTSTRAP_API_KEY;

let gw: Gateway;
let browser: Browser;

beforeAll(async () => {
  requireBuild();
  // started as the README's quick start says (its ADMIN_TOKEN aside: the tests' own)
  const env = { ...README_ENV };
  delete env.ADMIN_TOKEN;
  gw = await startGateway(env);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

/** The page state's quality check (axe-core; in Russian, no English words): see `verify`. */
const accessible = (page: Page, name: string, allow?: string[]) => verify(page, name, { allow });

async function signIn(page: Page, email = OPERATOR.email, password = OPERATOR.password) {
  await page.getByLabel(/^(Email|Эл\. почта)/).fill(email);
  await page.getByLabel(/^(Password|Пароль)/).fill(password);
  await page.getByRole('button', { name: /^(Sign in|Войти)$/ }).click();
}

/** Every browser console error of the page (failed requests included). */
function consoleErrors(page: Page): string[] {
  const out: string[] = [];
  page.on('console', (m) => m.type() === 'error' && out.push(m.text()));
  return out;
}

describe('operator console in Chromium', () => {
  it('first contact: the README quick start signs in; the signed-out page logs no error and says what to do; sign-in lands on the overview; sign-out forgets the route', async () => {
    expect(OPERATOR.email && OPERATOR.password && KEY).toBeTruthy();
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`sign in with \`${OPERATOR.email}\` and \`${OPERATOR.password}\``);
    const { page, context, errors } = await openSession(browser);
    const logged = consoleErrors(page);
    await page.goto(`${gw.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.getByTestId('no-user-hint').textContent()).toContain('BOOTSTRAP_OPERATOR_EMAIL');
    await shot(page, 'first-contact-sign-in-en');
    expect(logged).toEqual([]); // the session probe answers 200 when signed out

    await signIn(page);
    // the README's operator owns the bootstrap workspace: its overview, not the address typed before
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await accessible(page, 'overview-en');
    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await signIn(page);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await context.close();

    // a credential signed in at a page it cannot use lands on its home: a key at /operator → overview
    const k = await openSession(browser);
    await k.page.goto(`${gw.url}/operator`);
    await k.page.getByRole('tab', { name: 'API key' }).click();
    await k.page.getByLabel('Team API key').fill(KEY);
    await k.page.getByRole('button', { name: 'Sign in' }).click();
    await k.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(new URL(k.page.url()).pathname).toBe('/');
    expect([...errors, ...k.errors]).toEqual([]);
    await k.context.close();
  });

  it('invitations: re-inviting asks to resend; the page shows team, inviter and e-mail, says at once when the link is dead, enforces the password rule, in either language', async () => {
    const op = await openSession(browser);
    await op.page.goto(`${gw.url}/`);
    await signIn(op.page);
    await op.page.getByRole('link', { name: 'Members' }).click();
    await op.page.getByLabel(/^Email/).fill('nina@example.com');
    expect(await op.page.getByRole('combobox', { name: 'Role' }).inputValue()).toBe('member'); // the default role
    await op.page.getByRole('button', { name: 'Invite' }).click();
    const first = (await op.page.getByTestId('invitation-link').textContent())!.trim();
    await op.page.getByLabel(/^Email/).fill('nina@example.com');
    await op.page.getByRole('button', { name: 'Invite' }).click();
    const dialog = op.page.getByRole('dialog', { name: 'Invitation already pending' });
    await dialog.waitFor();
    await accessible(op.page, 'members-resend-en');
    await dialog.getByRole('button', { name: 'Send a new invitation' }).click();
    await expect.poll(async () => (await op.page.getByTestId('invitation-link').textContent())!.trim()).not.toBe(first);
    const link = (await op.page.getByTestId('invitation-link').textContent())!.trim();
    await op.context.close();

    const s = await openSession(browser);
    await s.page.goto(first); // revoked by the resend
    await s.page.getByTestId('invitation-invalid').waitFor();
    expect(await s.page.getByRole('textbox').count()).toBe(0);
    await accessible(s.page, 'invitation-invalid-en');
    await s.page.goto(link);
    const facts = s.page.getByTestId('invitation-facts');
    await facts.waitFor();
    expect(await facts.textContent()).toMatch(/default.*Operator <admin@example\.com>.*nina@example\.com/);
    await s.page.getByLabel('Your name').fill('Nina');
    await s.page.getByLabel('Choose a password').fill('short-pw');
    expect(await s.page.getByText('At least 12 characters, not a common password (8 typed)').count()).toBe(1);
    expect(await s.page.getByRole('button', { name: 'Accept and create my account' }).isDisabled()).toBe(true);
    await shot(s.page, 'invitation-en');
    await s.page.getByText('RU', { exact: true }).click();
    await s.page.getByRole('heading', { name: 'Принять приглашение' }).waitFor();
    await shot(s.page, 'invitation-ru');
    await s.page.getByLabel('Придумайте пароль').fill('nina-long-passphrase-7');
    await s.page.getByRole('button', { name: 'Принять и создать аккаунт' }).click();
    await s.page.getByRole('button', { name: 'Ко входу' }).click();
    await s.page.getByRole('heading', { level: 1, name: 'Обзор' }).waitFor();
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('Settings → API requests: the snippets run as pasted and "Run" sends the curl request with the session', async () => {
    const created = await fetch(`${gw.url}/api/v1/projects`, {
      method: 'POST',
      headers: { 'api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Handbook' }),
    });
    const project = (await created.json()) as { id: string };
    const { page, context, errors } = await openSession(browser);
    await page.goto(`${gw.url}/`);
    await signIn(page);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.goto(`${gw.url}/projects/${project.id}`);
    await page.getByRole('tab', { name: 'Settings' }).click();
    const curl = (await page.getByLabel('curl: POST /api/v1/chat', { exact: true }).textContent())!;
    const python = (await page.getByLabel('Python (openai SDK)', { exact: true }).textContent())!;
    const ts = (await page.getByLabel('TypeScript (openai SDK)', { exact: true }).textContent())!;
    expect(curl).toContain('$GATEWAY_API_KEY');
    expect(python).toContain('os.environ["GATEWAY_API_KEY"]');
    expect(ts).toContain('process.env.GATEWAY_API_KEY');
    expect(curl + python + ts).not.toMatch(/<[A-Z_]+>/);
    await page.getByRole('button', { name: 'Run' }).click();
    const answer = page.getByTestId('run-answer');
    await answer.waitFor();
    expect(await answer.textContent()).toMatch(/Model local · \d+ tokens · RUB/);
    await accessible(page, 'api-requests-en');
    await shot(page, 'api-requests-run-en');
    expect(errors).toEqual([]);
    await context.close();
  });

  for (const [lang, scheme] of [
    ['en', 'light'],
    ['ru', 'dark'],
  ] as const) {
    it(`operator (${lang}, ${scheme}): drills into a team — members, keys, usage, requests, balance with note and actor, settings — and sees every team's usage`, async () => {
      const ru = lang === 'ru';
      const L = (en: string, r: string) => (ru ? r : en);
      const { page, context, errors } = await openSession(browser, { locale: lang, colorScheme: scheme });
      await page.goto(`${gw.url}/`);
      await signIn(page);
      await page.getByRole('heading', { level: 1, name: L('Overview', 'Обзор') }).waitFor();
      await page.getByRole('link', { name: L('Operator', 'Оператор') }).click();
      await page.getByRole('button', { name: L('Open team default', 'Открыть команду default') }).click();
      await page.getByRole('cell', { name: OPERATOR.email }).waitFor(); // members: the owner
      await accessible(page, `operator-team-members-${lang}-${scheme}`);
      await page.getByRole('tab', { name: L('API keys', 'API-ключи') }).click();
      await page.getByRole('cell', { name: 'bootstrap' }).waitFor();
      await accessible(page, `operator-team-keys-${lang}-${scheme}`);
      await page.getByRole('tab', { name: L('Usage', 'Расход'), exact: true }).click();
      await page
        .getByRole('table', { name: L('Spend by model (last 30 days)', 'Расход по моделям (30 дней)') })
        .waitFor();
      await shot(page, `operator-team-usage-${lang}-${scheme}`);
      await page.getByRole('tab', { name: L('Requests', 'Запросы') }).click();
      await page.getByRole('cell', { name: '/api/v1/chat' }).first().waitFor();
      await accessible(page, `operator-team-requests-${lang}-${scheme}`);
      await page.getByRole('tab', { name: L('Balance', 'Баланс') }).click();
      const note = `INV-${lang}-42`; // a reference, the same in either language
      await page.getByLabel(L('Amount, RUB', 'Сумма, ₽')).fill('50');
      await page.getByLabel(L('Note (reference)', 'Примечание (референс)')).fill(note);
      await page.getByRole('button', { name: L('Top up', 'Пополнить') }).click();
      const row = page.getByRole('row').filter({ hasText: note });
      await row.waitFor();
      expect(await row.textContent()).toContain(OPERATOR.email);
      await shot(page, `operator-team-balance-${lang}-${scheme}`);
      await page.getByRole('tab', { name: L('Settings', 'Настройки') }).click();
      await page.getByLabel(L('Team name', 'Название команды')).last().waitFor();
      await accessible(page, `operator-team-settings-${lang}-${scheme}`);

      await page.getByRole('tab', { name: L('Usage of all teams', 'Расход всех команд') }).click();
      const teams = page.getByRole('table', { name: L('Spend per team', 'Расход по командам') });
      await teams.waitFor();
      expect(await teams.textContent()).toContain('default');
      expect(await page.getByRole('table', { name: L('Top models', 'Топ моделей') }).textContent()).toContain('local');
      await shot(page, `operator-all-usage-${lang}-${scheme}`);
      if (ru) {
        const text = (await page.locator('body').innerText()).replace(/\s+/g, ' ');
        for (const english of ['Sign out', 'Members', 'Usage', 'Operator', 'Requests', 'Top models'])
          expect(text).not.toContain(english);
      }
      expect(errors).toEqual([]);
      await context.close();
    });

    it(`providers page (${lang}, ${scheme}): configuration, a test call with latency or error, health`, async () => {
      const ru = lang === 'ru';
      const L = (en: string, r: string) => (ru ? r : en);
      const { page, context, errors } = await openSession(browser, { locale: lang, colorScheme: scheme });
      await page.goto(`${gw.url}/`);
      await signIn(page);
      await page.getByRole('link', { name: L('Providers', 'Провайдеры') }).click();
      const local = page.getByTestId('provider-local');
      await local.waitFor();
      expect(await page.getByTestId('provider-openai').textContent()).toContain('OPENAI_API_KEY');
      await local.getByRole('button', { name: L('Test local', 'Проверить local') }).click();
      await expect
        .poll(() => page.getByTestId('test-local').textContent())
        .toMatch(ru ? /Работает: local ответила за \d+ мс/ : /OK: local answered in \d+ ms/);
      await page.getByRole('button', { name: L('Test openai', 'Проверить openai') }).click();
      await expect.poll(() => page.getByTestId('test-openai').textContent()).toContain('503, provider_not_configured');
      // the local calls made by the other flows show in its health
      expect(await local.textContent()).toMatch(ru ? /вызовов: \d+/ : /\d+ calls/);
      await shot(page, `providers-${lang}-${scheme}`);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it('ru: a server error is said in Russian with the server message as a tooltip; no English labels', async () => {
    const { page, context } = await openSession(browser, { locale: 'ru' });
    await page.goto(`${gw.url}/`);
    await signIn(page, OPERATOR.email, 'not-the-password-123');
    const text = page.getByTestId('error-text');
    await text.waitFor();
    expect(await text.textContent()).toBe('Неверная почта или пароль.');
    expect(await text.getAttribute('title')).toMatch(/[A-Za-z]/); // the server's own (English) message
    await shot(page, 'sign-in-error-ru');
    await context.close();
  });

  it('follows the OS dark preference until a theme is picked; the signed-out probe logs no error', async () => {
    const { page, context, errors } = await openSession(browser, { colorScheme: 'dark', pickTheme: false });
    const logged = consoleErrors(page);
    await page.goto(`${gw.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    const scheme = () => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'));
    expect(await scheme()).toBe('dark');
    await accessible(page, 'sign-in-en-os-dark');
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    expect(await scheme()).toBe('light');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await scheme()).toBe('light'); // the pick is remembered over the OS preference
    expect(logged).toEqual([]); // the session probe answers 200 when signed out
    expect(errors).toEqual([]);
    await context.close();
  });

  // every page of the console (those with their own flows aside: models, audit log, MCP) in both
  // languages and both themes: axe-core, and in Russian no English word left
  for (const [lang, scheme] of [
    ['en', 'light'],
    ['en', 'dark'],
    ['ru', 'light'],
    ['ru', 'dark'],
  ] as const) {
    it(`every page passes the quality check (${lang}, ${scheme})`, async () => {
      const { page, context, errors } = await openSession(browser, { locale: lang, colorScheme: scheme });
      await page.goto(`${gw.url}/`);
      await verify(page, `tour-sign-in-${lang}-${scheme}`);
      await signIn(page);
      await page.getByRole('heading', { level: 1, name: lang === 'ru' ? 'Обзор' : 'Overview' }).waitFor();
      const signOut = page.getByRole('banner').getByRole('button', { name: lang === 'ru' ? 'Выйти' : 'Sign out' });
      const projects = (await (await fetch(`${gw.url}/api/v1/projects`, { headers: { 'api-key': KEY } })).json()) as {
        data: { id: string }[];
      };
      const project = projects.data[0]?.id;
      const paths = [
        '/',
        '/keys',
        '/projects',
        ...(project
          ? [`/projects/${project}/materials`, `/projects/${project}/playground`, `/projects/${project}/settings`]
          : []),
        '/knowledge-bases',
        '/usage',
        '/billing',
        '/requests',
        '/members',
        '/alerts',
        '/operator',
        '/providers',
      ];
      for (const path of paths) {
        await page.goto(`${gw.url}${path}`);
        await signOut.waitFor(); // signed in, not the sign-in page
        await page.getByRole('heading', { level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
        await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached', timeout: 10_000 }); // loaded
        // what the test created is data, not interface text: the team, project and key names
        await verify(page, `tour-${path.replace(/\//g, '_') || '_'}-${lang}-${scheme}`, { allow: TOUR_DATA });
      }
      await page.goto(`${gw.url}/operator`);
      await signOut.waitFor();
      for (const [en, ru] of [
        ['Usage of all teams', 'Расход всех команд'],
        ['Documents', 'Документы'],
        ['Users', 'Пользователи'],
      ]) {
        await page.getByRole('tab', { name: lang === 'ru' ? ru : en }).click();
        await page.waitForLoadState('networkidle');
        await verify(page, `tour-operator-${en.split(' ')[0].toLowerCase()}-${lang}-${scheme}`, { allow: TOUR_DATA });
      }
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it('390 px: the header controls are in the menu and wide tables scroll inside the page', async () => {
    const { page, context, errors } = await openSession(browser, { viewport: { width: 390, height: 844 } });
    await page.goto(`${gw.url}/`);
    await signIn(page);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const burger = page.getByRole('button', { name: 'Menu' });
    expect(await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await burger.click();
    await page.getByRole('navigation').getByRole('button', { name: 'Sign out' }).waitFor({ state: 'visible' });
    expect(await page.getByRole('navigation').getByRole('radio', { name: 'RU' }).count()).toBe(1);
    await accessible(page, 'menu-390');
    await shot(page, 'menu-390-en');
    await burger.click(); // closes the menu
    for (const [path, title] of [
      ['/', 'Overview'],
      ['/requests', 'Requests'],
      ['/providers', 'Providers'],
      ['/operator', 'Operator'],
      ['/members', 'Members'],
    ]) {
      await page.goto(`${gw.url}${path}`);
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
      const link = title;
      await page.waitForTimeout(300);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${link} is wider than the screen`).toBeLessThanOrEqual(0);
      await accessible(page, `${link.toLowerCase()}-390`);
    }
    await shot(page, 'operator-390-en');
    expect(errors).toEqual([]);
    await context.close();
  });
});
