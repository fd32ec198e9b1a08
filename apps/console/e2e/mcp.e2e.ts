import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { FakeMcpServer } from '../../../test/fakes/fake-mcp';
import {
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
 * The MCP servers page in Chromium against the real built server and an MCP server inside the test
 * (the official SDK, behind a secret header): an admin registers it with the header, sees its tools,
 * runs a test call (a JSON error first), edits it without ever seeing the secret, and gives a key an
 * MCP tool allowlist that /mcp then enforces; Russian in the dark theme; a viewer at 390 px.
 */
const PASSWORD = 'mcp-console-password-123';
const SECRET = 'Bearer console-e2e-secret-42';

let gw: Gateway;
let browser: Browser;
let upstream: FakeMcpServer;
let teamId = '';

async function accessible(page: Page, name: string) {
  expect(await axe(page, name), `axe: ${name}`).toEqual([]);
}

interface Server {
  id: string;
  name: string;
  status: string;
  header_names: string[];
  tool_count: number;
}
const servers = async () => (await admin<{ data: Server[] }>(gw, 'GET', `/api/v1/teams/${teamId}/mcp-servers`)).data;

async function mcpClient(key: string): Promise<Client> {
  const client = new Client({ name: 'console-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

beforeAll(async () => {
  requireBuild();
  upstream = await FakeMcpServer.start({ requireHeader: { name: 'authorization', value: SECRET } });
  gw = await startGateway({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', REQUEST_LOG_FLUSH_MS: '50' });
  browser = await launchBrowser();
  teamId = (await admin<{ id: string }>(gw, 'POST', '/api/v1/admin/teams', { name: 'acme', balance_rub: 100 })).id;
  await addMember(gw, teamId, 'mcp-admin@example.com', 'admin', PASSWORD);
  await addMember(gw, teamId, 'mcp-viewer@example.com', 'viewer', PASSWORD);
});

afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await upstream?.close();
});

describe('MCP servers in Chromium', () => {
  it('registers a server with a secret header, shows its tools and runs a test call', async () => {
    const s = await openSession(browser);
    const { page } = s;
    await signInWithPassword(page, gw, 'mcp-admin@example.com', PASSWORD);
    await page.getByRole('link', { name: 'MCP servers' }).click();
    await page.getByText('No MCP servers yet').waitFor();
    await accessible(page, 'mcp-empty-en');

    await page.getByRole('button', { name: 'Add server' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('docs');
    await dialog.getByRole('textbox', { name: 'URL' }).fill(upstream.url);
    await dialog.getByLabel('Price per call, ₽').fill('0.5');
    await dialog.getByLabel('Name of header 1').fill('Authorization');
    await dialog.getByLabel('Value of header 1').fill(SECRET);
    await accessible(page, 'mcp-add-dialog-en');
    await shot(page, 'mcp-add-dialog-en');
    await dialog.getByRole('button', { name: 'Add server' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const row = page.getByTestId('mcp-row-docs');
    await row.getByText('ok', { exact: true }).waitFor();
    await row.getByText('Streamable HTTP').waitFor();
    const [server] = await servers();
    expect(server).toMatchObject({ name: 'docs', status: 'ok', header_names: ['Authorization'], tool_count: 5 });
    expect(upstream.requests.length).toBeGreaterThan(0);
    expect(upstream.requests.every((r) => r.headers.authorization === SECRET)).toBe(true);

    // the tools, the input schema folded away until opened
    const detail = page.getByTestId('mcp-server-detail');
    await detail.getByText('Echoes the text').waitFor();
    await detail.getByRole('button', { name: /^echo/ }).click();
    await detail.getByText('"text"', { exact: false }).first().waitFor();
    await accessible(page, 'mcp-tools-en');

    // the test call: arguments checked as JSON in the form
    await detail.getByRole('combobox', { name: 'Tool', exact: true }).click();
    await page.getByRole('option', { name: 'echo', exact: true }).click();
    const args = detail.getByLabel('Arguments (JSON)');
    await args.fill('{"text": ');
    await detail.getByText('This is not valid JSON.', { exact: false }).waitFor();
    expect(await detail.getByRole('button', { name: 'Run' }).isDisabled()).toBe(true);
    await accessible(page, 'mcp-call-invalid-en');
    await args.fill('{"text": "hello console"}');
    await detail.getByRole('button', { name: 'Run' }).click();
    const result = page.getByTestId('mcp-call-result');
    await result.getByText('echo: hello console').waitFor();
    await result.getByText('Success').waitFor();
    await result.getByText('"echoed"', { exact: false }).waitFor();
    expect(await page.getByTestId('mcp-call-duration').textContent()).toMatch(/^\d+ ms$/);
    await accessible(page, 'mcp-call-result-en');
    await shot(page, 'mcp-call-en');

    // an image result is shown as an image; a tool error as such
    await detail.getByRole('combobox', { name: 'Tool', exact: true }).click();
    await page.getByRole('option', { name: 'image', exact: true }).click();
    await detail.getByRole('button', { name: 'Run' }).click();
    await result.getByRole('img', { name: 'Image result 2' }).waitFor();
    await detail.getByRole('combobox', { name: 'Tool', exact: true }).click();
    await page.getByRole('option', { name: 'fail', exact: true }).click();
    await detail.getByRole('button', { name: 'Run' }).click();
    await result.getByText('Tool error (isError)').waitFor();

    // logged as MCP tool calls; the priced successful ones charged
    await expect
      .poll(
        async () =>
          (
            await admin<{ data: { kind: string; cost_rub: number }[] }>(
              gw,
              'GET',
              `/api/v1/requests?team_id=${teamId}&kind=mcp_tool&limit=10`,
            )
          ).data.length,
        { timeout: 10_000 },
      )
      .toBe(3);
    const balance = await admin<{ balance_rub: number }>(gw, 'GET', `/api/v1/teams/${teamId}/balance`);
    expect(balance.balance_rub).toBeCloseTo(99, 6);

    // editing: the stored header is a name marked "set", its value never on the page
    await page.getByRole('button', { name: 'Edit docs' }).click();
    const edit = page.getByRole('dialog');
    await edit.getByTestId('stored-header-Authorization').getByText('set').waitFor();
    expect(await page.content()).not.toContain('console-e2e-secret');
    await edit.getByRole('button', { name: 'Add header' }).click();
    await edit.getByLabel('Name of header 2').fill('X-Org');
    await edit.getByLabel('Value of header 2').fill('acme');
    await accessible(page, 'mcp-edit-dialog-en');
    await shot(page, 'mcp-edit-dialog-en');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    await expect.poll(async () => (await servers())[0].header_names.sort()).toEqual(['Authorization', 'X-Org']);
    // the secret was kept: the tools were read again with it
    expect((await servers())[0].status).toBe('ok');
    expect(upstream.requests.at(-1)?.headers['x-org']).toBe('acme');
    await shot(page, 'mcp-servers-en');
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('gives a key an MCP tool allowlist that /mcp enforces; empty turns MCP off', async () => {
    const s = await openSession(browser);
    const { page } = s;
    await signInWithPassword(page, gw, 'mcp-admin@example.com', PASSWORD);
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    const form = page.getByTestId('key-form');
    await form.getByLabel('Key name').fill('agent');
    await form.getByText('Empty: MCP is off for this key', { exact: false }).waitFor();
    const field = form.getByRole('combobox', { name: 'MCP tools' });
    await field.click();
    await page.getByRole('option', { name: 'docs/echo', exact: true }).click();
    await field.fill('docs/im*');
    await field.press('Enter');
    await page.keyboard.press('Escape');
    await accessible(page, 'mcp-key-form-en');
    await form.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    const secret = ((await dialog.getByTestId('new-key').textContent()) ?? '').trim();
    await dialog.getByRole('button', { name: 'I saved the key' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const keys = await admin<{ data: { prefix: string; allowed_mcp_tools: string[] }[] }>(
      gw,
      'GET',
      `/api/v1/teams/${teamId}/api-keys`,
    );
    expect(keys.data[0].allowed_mcp_tools).toEqual(['docs/echo', 'docs/im*']);
    const cell = page.getByTestId(`mcp-tools-${keys.data[0].prefix}`);
    await cell.getByText('docs/im*').waitFor();
    await shot(page, 'mcp-keys-en');

    const client = await mcpClient(secret);
    try {
      expect((await client.listTools()).tools.map((x) => x.name).sort()).toEqual(['docs__echo', 'docs__image']);
      const echoed = await client.callTool({ name: 'docs__echo', arguments: { text: 'via key' } });
      expect(echoed.content).toEqual([{ type: 'text', text: 'echo: via key' }]);
      const denied = await client.callTool({ name: 'docs__whoami', arguments: {} }).catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(McpError);
      expect((denied as McpError).code).toBe(-32003);
    } finally {
      await client.close();
    }

    // emptied in the edit dialog: the key reaches no tool
    await page.getByRole('button', { name: `MCP tools of ${keys.data[0].prefix}…` }).click();
    const edit = page.getByRole('dialog');
    const tags = edit.getByRole('combobox', { name: 'MCP tools' });
    await tags.click();
    await tags.press('Backspace');
    await tags.press('Backspace');
    await edit.getByText('MCP off').waitFor();
    await edit.getByRole('heading').click(); // the suggestions close
    await edit.getByRole('button', { name: 'Save MCP tools' }).click();
    await edit.waitFor({ state: 'hidden' });
    await cell.getByText('MCP off').waitFor();
    const off = await mcpClient(secret);
    try {
      expect((await off.listTools()).tools).toEqual([]);
    } finally {
      await off.close();
    }
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('in Russian, dark: the page, the dialog and a refused name in Russian', async () => {
    const s = await openSession(browser, { locale: 'ru', colorScheme: 'dark' });
    const { page } = s;
    await signInWithPassword(page, gw, 'mcp-admin@example.com', PASSWORD);
    await page.getByRole('link', { name: 'MCP-серверы' }).click();
    await page.getByTestId('mcp-row-docs').getByText('работает').waitFor();
    await page.getByRole('button', { name: 'Инструменты docs', exact: true }).click();
    await page.getByTestId('mcp-server-detail').getByText('Пробный вызов').waitFor();
    await accessible(page, 'mcp-ru-dark');
    await shot(page, 'mcp-ru-dark');
    await page.getByRole('button', { name: 'Добавить сервер' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Название' }).fill('docs');
    await dialog.getByRole('textbox', { name: 'Адрес' }).fill(upstream.url);
    await dialog.getByRole('button', { name: 'Добавить сервер' }).click();
    await dialog.getByText('В команде уже есть MCP-сервер с таким названием.').waitFor();
    await accessible(page, 'mcp-add-error-ru-dark');
    await shot(page, 'mcp-add-error-ru-dark');
    expect(s.errors).toEqual([]);
    await s.context.close();
  });

  it('a viewer at 390 px reads the servers and tools, and cannot change or call them', async () => {
    for (const locale of ['en', 'ru'] as const) {
      const s = await openSession(browser, { locale, viewport: { width: 390, height: 844 } });
      const { page } = s;
      await signInWithPassword(page, gw, 'mcp-viewer@example.com', PASSWORD);
      await page.getByRole('button', { name: locale === 'en' ? 'Menu' : 'Меню' }).click();
      await page.getByRole('link', { name: locale === 'en' ? 'MCP servers' : 'MCP-серверы' }).click();
      await page.getByTestId('mcp-row-docs').waitFor();
      expect(await page.getByRole('button', { name: locale === 'en' ? 'Add server' : 'Добавить сервер' }).count()).toBe(
        0,
      );
      await page
        .getByRole('button', { name: locale === 'en' ? 'Tools of docs' : 'Инструменты docs', exact: true })
        .click();
      await page
        .getByText(locale === 'en' ? 'test calls need the member role' : 'нужна роль участника', { exact: false })
        .waitFor();
      expect(await page.getByRole('button', { name: locale === 'en' ? 'Run' : 'Выполнить' }).count()).toBe(0);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await accessible(page, `mcp-viewer-390-${locale}`);
      await shot(page, `mcp-viewer-390-${locale}`);
      expect(s.errors).toEqual([]);
      await s.context.close();
    }
  });
});
