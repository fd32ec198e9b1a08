import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Browser } from 'playwright-core';
import { admin, launchBrowser, openSession, requireBuild, shot, startGateway, type Gateway } from './support';

/**
 * The console in Debian's Chromium against the real built server (embedded default): each flow
 * drives the pages by role and label as a user would, checks the result through the API too, and
 * saves screenshots under test-results/console/.
 */
const FACT = 'The Aurora office closes at 17:30 on Fridays.';

async function pdf(lines: string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 20, size: 12, font }));
  return Buffer.from(await doc.save());
}

function rub(value: number, lang: 'en' | 'ru', digits = 6): string {
  return new Intl.NumberFormat(lang === 'ru' ? 'ru-RU' : 'en-US', {
    style: 'currency',
    currency: 'RUB',
    minimumFractionDigits: 2,
    maximumFractionDigits: digits,
  }).format(value);
}

let gw: Gateway;
let browser: Browser;
let teamKey = '';
let projectId = '';

beforeAll(async () => {
  requireBuild();
  gw = await startGateway();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
});

async function signInWithKey(page: import('playwright-core').Page, key: string) {
  await page.goto(`${gw.url}/`);
  await page.getByRole('tab', { name: 'API key' }).click();
  await page.getByLabel('Team API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

describe('console in Chromium', () => {
  it('is served at / with a strict CSP and long-cached hashed assets; API paths and /docs are unchanged', async () => {
    const index = await fetch(`${gw.url}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toContain('text/html');
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/); // nothing from outside: works offline
    const html = await index.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    const asset = await fetch(`${gw.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // a client-side route gets the page; API paths keep their JSON answers
    expect(
      (await fetch(`${gw.url}/projects/x`, { headers: { accept: 'text/html' } })).headers.get('content-type'),
    ).toContain('text/html');
    const apiMiss = await fetch(`${gw.url}/api/v1/nope`, { headers: { accept: 'text/html' } });
    expect(apiMiss.status).toBe(404);
    expect(await apiMiss.json()).toHaveProperty('error');
    expect(await (await fetch(`${gw.url}/health`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${gw.url}/docs`)).headers.get('content-security-policy')).toBeNull();
    expect((await fetch(`${gw.url}/v1/models`)).status).toBe(401);
  });

  it('operator creates a team with a balance, tops it up, creates a key and copies it (secret shown once, curl ready)', async () => {
    const { page, context, errors } = await openSession(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
    await page.goto(`${gw.url}/`);
    await page.getByRole('tab', { name: 'Operator' }).click();
    await page.getByLabel('Admin token').fill('wrong-token-0123456789');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid or missing admin token');
    const { ADMIN_TOKEN } = await import('./support');
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Operator' }).waitFor();

    await page.getByLabel('Team name').fill('acme');
    await page.getByLabel('Opening balance, RUB').fill('500');
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByRole('button', { name: 'Open team acme' }).click();
    await page.getByRole('heading', { name: /acme · RUB 500\.00/ }).waitFor();

    await page.getByRole('tab', { name: 'Balance' }).click();
    await page.getByLabel('Amount, RUB').fill('250');
    await page.getByLabel('Note (reference)').fill('invoice-7');
    await page.getByRole('button', { name: 'Top up' }).click();
    await page.getByRole('heading', { name: /acme · RUB 750\.00/ }).waitFor();

    await page.getByRole('tab', { name: 'API keys' }).click();
    await page.getByLabel('Key name').fill('backend');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API key' });
    teamKey = (await dialog.getByTestId('new-key').textContent())!.trim();
    expect(teamKey).toMatch(/^sk-[A-Za-z0-9_-]{43}$/);
    expect(await dialog.getByLabel('Try it with curl', { exact: true }).textContent()).toContain(`Bearer ${teamKey}`);
    await dialog.getByRole('button', { name: 'Copy API key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(teamKey);
    await shot(page, 'operator-key-created-en');
    await dialog.getByRole('button', { name: 'I saved the key' }).click();
    await expect.poll(() => page.getByText(teamKey).count()).toBe(0); // never shown again
    await page.getByRole('cell', { name: 'backend' }).waitFor();
    await shot(page, 'operator-team-en');

    // the server agrees: 750 RUB on the team the key belongs to
    const teams = await admin<{ data: { id: string; name: string; balance_rub: number }[] }>(
      gw,
      'GET',
      '/api/v1/admin/teams',
    );
    expect(teams.data.find((t) => t.name === 'acme')?.balance_rub).toBe(750);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a request made with the key through /v1/chat/completions appears on the Usage page with its RUB cost', async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${teamKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local', messages: [{ role: 'user', content: 'Say hello to the console test.' }] }),
    });
    expect(res.status).toBe(200);
    const ledger = (await (
      await fetch(`${gw.url}/api/v1/usage?limit=5`, { headers: { 'api-key': teamKey } })
    ).json()) as { data: { kind: string; amount_rub: number; endpoint: string; model: string }[] };
    const charge = ledger.data.find((e) => e.kind === 'charge' && e.endpoint === '/v1/chat/completions')!;
    expect(charge).toBeDefined();

    const { page, context, errors } = await openSession(browser);
    await signInWithKey(page, teamKey);
    await page.getByRole('link', { name: 'Usage' }).click();
    const table = page.getByRole('table', { name: 'Ledger' });
    const row = table.getByRole('row').filter({ hasText: '/v1/chat/completions' });
    await row.first().waitFor();
    await expect.poll(() => row.first().textContent()).toContain(rub(charge.amount_rub, 'en'));
    expect(await row.first().textContent()).toContain('local');
    expect(await page.getByTestId('usage-total').textContent()).toBe(rub(Math.abs(charge.amount_rub), 'en'));
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = await (await download).createReadStream();
    let text = '';
    for await (const chunk of csv) text += String(chunk);
    expect(text.split('\n')[0]).toContain('amount_rub');
    expect(text).toContain('/v1/chat/completions');
    await shot(page, 'usage-en');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('member creates a project, uploads a PDF that reaches completed; Settings → API requests shows the id; /api/v1/chat with it answers from the PDF', async () => {
    const { page, context, errors } = await openSession(browser);
    await signInWithKey(page, teamKey);
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByText('No projects yet').waitFor();
    await page.getByRole('button', { name: 'New project' }).first().click();
    await page.getByRole('dialog').getByLabel('Name').fill('Office handbook');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { level: 1, name: 'Office handbook' }).waitFor();
    projectId = /\/projects\/([^/]+)/.exec(page.url())![1];

    const file = await pdf(['Office handbook', FACT, 'Visitors sign in at the front desk.']);
    await page
      .getByLabel('Choose files')
      .setInputFiles({ name: 'handbook.pdf', mimeType: 'application/pdf', buffer: file });
    const row = page.getByRole('row').filter({ hasText: 'handbook.pdf' });
    await row.getByText('completed').waitFor({ timeout: 60_000 });
    // a webhook integration: its URL and signing secret are shown once
    await page.getByLabel('Integration name').fill('CRM events');
    await page.getByRole('button', { name: 'Add integration' }).click();
    expect(await page.getByTestId('webhook-secret').textContent()).toMatch(/^whsec_/);
    expect(await page.getByTestId('webhook-url').textContent()).toMatch(new RegExp(`^${gw.url}/api/v1/hooks/`));
    await page.getByRole('row').filter({ hasText: 'CRM events' }).waitFor();
    // a chat pasted as "role: text" lines becomes a chat material that is indexed to completed
    await page.getByLabel('Chat title').fill('Reception chat');
    await page
      .getByLabel('Conversation')
      .fill('user: Where do parcels go?\nassistant: Parcels for the Aurora office go to locker 7 in the lobby.');
    await page.getByRole('button', { name: 'Attach chat' }).click();
    const chatRow = page.getByRole('row').filter({ hasText: 'Reception chat' });
    await chatRow.getByText('completed').waitFor({ timeout: 60_000 });
    expect(await chatRow.textContent()).toContain('chat');
    const materials = (await (
      await fetch(`${gw.url}/api/v1/projects/${projectId}/materials`, { headers: { 'api-key': teamKey } })
    ).json()) as { data: { kind: string; title: string | null; status: string }[] };
    expect(materials.data).toContainEqual(
      expect.objectContaining({ kind: 'chat', title: 'Reception chat', status: 'completed' }),
    );
    await shot(page, 'project-materials-en');

    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByRole('tab', { name: 'API requests' }).click();
    expect((await page.getByTestId('project-id').textContent())!.trim()).toBe(projectId);
    expect(await page.getByLabel('curl: POST /api/v1/chat', { exact: true }).textContent()).toContain(projectId);
    await shot(page, 'project-api-requests-en');

    const answer = await fetch(`${gw.url}/api/v1/chat`, {
      method: 'POST',
      headers: { 'api-key': teamKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'local',
        user_id: 'e2e',
        project_id: projectId,
        prompt: 'When does the Aurora office close on Fridays?',
      }),
    });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { response: { text?: string } | string; sources: { title: string }[] };
    expect(JSON.stringify(body.response)).toContain('17:30');
    expect(body.sources.map((s) => s.title)).toContain('handbook.pdf');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a knowledge base: create, upload with progress to completed, and the search tester ranks the chunk with its score and document', async () => {
    const { page, context, errors } = await openSession(browser);
    await signInWithKey(page, teamKey);
    await page.getByRole('link', { name: 'Knowledge bases' }).click();
    await page.getByText('No knowledge bases yet').waitFor();
    await page.getByRole('button', { name: 'New knowledge base' }).first().click();
    await page.getByRole('dialog').getByLabel('Name').fill('Policies');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 2, name: 'Policies' }).waitFor();
    await page.getByLabel('Choose files').setInputFiles({
      name: 'travel.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Travel policy. Economy class is required for flights under six hours.\n'),
    });
    await page.getByRole('table', { name: 'Documents' }).getByText('completed').waitFor({ timeout: 60_000 });
    await page.getByLabel('Query').fill('Which class for short flights?');
    await page.getByRole('button', { name: 'Search' }).click();
    const results = page.getByRole('table', { name: 'Search results' });
    await results.waitFor();
    const first = results.getByRole('row').nth(1);
    expect(await first.textContent()).toContain('travel.txt');
    expect(await first.textContent()).toMatch(/0\.\d{3}/);
    expect(await first.textContent()).toContain('Economy class');
    await shot(page, 'knowledge-base-search-en');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the playground streams an answer from the project with its sources, tokens and RUB cost', async () => {
    const { page, context, errors } = await openSession(browser);
    await signInWithKey(page, teamKey);
    await page.goto(`${gw.url}/projects/${projectId}`); // a reload: the key lives in memory only
    await page.getByRole('tab', { name: 'API key' }).click();
    await page.getByLabel('Team API key').fill(teamKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('tab', { name: 'Playground' }).click();
    await page.getByLabel('Your question').fill('When does the Aurora office close on Fridays?');
    const streamed = page.waitForResponse((r) => r.url().endsWith('/api/v1/chat') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send' }).click();
    const res = await streamed;
    expect(res.headers()['content-type']).toContain('text/event-stream');
    await expect.poll(() => page.getByTestId('answer').first().textContent(), { timeout: 30_000 }).toContain('17:30');
    const sources = page.getByRole('list', { name: 'Sources' });
    await sources.waitFor();
    expect(await sources.textContent()).toContain('handbook.pdf');
    expect(await page.getByTestId('answer-cost').textContent()).toMatch(/^Cost: RUB\s\d/);
    await shot(page, 'playground-en');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('overview in English and Russian, light and dark; the Russian switch translates the navigation and is remembered', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page, context, errors } = await openSession(browser, { locale: 'en', colorScheme: scheme });
      await signInWithKey(page, teamKey);
      await page
        .getByRole('img', { name: 'Spend per day by model' })
        .or(page.locator('.recharts-surface'))
        .first()
        .waitFor();
      // the value axis: one label per tick, none repeated (small amounts keep their digits)
      const tickLabels = page.locator('text.recharts-cartesian-axis-tick-value[orientation="left"]');
      await tickLabels.nth(2).waitFor();
      const ticks = await tickLabels.allTextContents();
      expect(new Set(ticks).size).toBe(ticks.length);
      await shot(page, `overview-en-${scheme}`);
      await page.getByRole('radiogroup', { name: 'Language' }).getByText('RU', { exact: true }).click();
      const nav = page.getByRole('navigation', { name: 'Основная навигация' });
      await nav.getByRole('link', { name: 'Обзор' }).waitFor();
      for (const name of ['API-ключи', 'Проекты', 'Базы знаний', 'Расходы', 'Запросы', 'Модели и цены'])
        expect(await nav.getByRole('link', { name }).count()).toBe(1);
      await page.getByRole('heading', { level: 1, name: 'Обзор' }).waitFor();
      expect(await page.getByText(/1\s?000,00\s₽|\d,\d+\s₽/).count()).toBeGreaterThan(0); // RUB per the Russian locale
      await shot(page, `overview-ru-${scheme}`);
      // the request log in Russian: the call made with the key, its cost in roubles
      await nav.getByRole('link', { name: 'Запросы' }).click();
      await page.getByRole('heading', { level: 1, name: 'Запросы' }).waitFor();
      const calls = page.getByRole('table', { name: 'Запросы' });
      await calls.getByRole('row').filter({ hasText: '/v1/chat/completions' }).first().waitFor();
      expect(await calls.textContent()).toMatch(/\d,\d+\s₽/);
      await shot(page, `requests-ru-${scheme}`);
      // remembered: after a reload the sign-in page is Russian
      await page.reload();
      await page.getByRole('heading', { name: 'Вход' }).waitFor();
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('ru');
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});
