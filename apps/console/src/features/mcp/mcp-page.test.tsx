import { describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp, viewerState } from '../../test/render';
import type { AuthState } from '../../auth/auth-context';
import { McpPage } from './mcp-page';
import { headersBody, storedRows } from './headers-editor';
import { argumentsTemplate, parseArguments } from './mcp-queries';

const adminState: AuthState = {
  ...memberState,
  memberships: [{ teamId: 'team-1', teamName: 'Acme', role: 'admin' }],
  role: 'admin',
};

const docs = {
  id: 'mcp_1',
  name: 'docs',
  url: 'https://mcp.example.com/mcp',
  transport: 'streamable_http',
  status: 'ok',
  status_error: null,
  description: 'Our documentation',
  price_per_call_rub: 0.5,
  header_names: ['Authorization'],
  tool_count: 1,
  tools_refreshed_at: '2026-11-20T10:00:00Z',
  created_at: '2026-11-20T10:00:00Z',
  updated_at: '2026-11-20T10:00:00Z',
};
const echo = {
  name: 'echo',
  gateway_name: 'docs__echo',
  description: 'Echoes the text',
  input_schema: { type: 'object', properties: { text: { type: 'string' } } },
};

function api() {
  server.handle = ({ method, path }) => {
    if (method === 'GET' && path === '/api/v1/teams/team-1/mcp-servers') return json({ object: 'list', data: [docs] });
    if (method === 'GET' && path === '/api/v1/teams/team-1/mcp-servers/mcp_1/tools')
      return json({ object: 'list', data: [echo] });
    if (method === 'PATCH') return json(docs);
    if (method === 'POST' && path.endsWith('/tools/echo/call'))
      return json({
        content: [{ type: 'text', text: 'echo: hi' }],
        structured_content: { echoed: 'hi' },
        is_error: false,
        duration_ms: 12,
        cost_rub: 0.5,
      });
    return json({ error: { message: 'unexpected' } }, 404);
  };
}

describe('MCP servers page', () => {
  it('an edit keeps the stored header (sent as null), adds a new one, and never shows a value', async () => {
    api();
    renderWithApp(<McpPage />, adminState);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit docs' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit docs' });
    expect(within(dialog).getByText('set')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Add header' }));
    await user.type(within(dialog).getByLabelText('Name of header 2'), 'X-Org');
    await user.type(within(dialog).getByLabelText('Value of header 2'), 'acme');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(server.calls.some((c) => c.method === 'PATCH')).toBe(true));
    const patch = server.calls.find((c) => c.method === 'PATCH')!;
    expect(JSON.parse(patch.body!)).toEqual({ headers: { Authorization: null, 'X-Org': 'acme' } });
  });

  it('the test call checks the JSON, then shows the result, its duration and charge', async () => {
    api();
    renderWithApp(<McpPage />, memberState);
    const user = userEvent.setup();
    expect(await screen.findByText('You can see the servers and their tools; owners and admins change them.'));
    expect(screen.queryByRole('button', { name: 'Add server' })).not.toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Tools of docs' }));
    const input = await screen.findByRole('combobox', { name: 'Tool' });
    await user.click(input);
    const listbox = await waitFor(() => document.getElementById(input.getAttribute('aria-controls') ?? '')!);
    await user.click(within(listbox).getByRole('option', { name: 'echo', hidden: true }));
    const args = screen.getByLabelText('Arguments (JSON)');
    expect(JSON.parse((args as HTMLTextAreaElement).value)).toEqual({ text: '' });
    fireEvent.change(args, { target: { value: '[1]' } });
    expect(await screen.findByText(/must be a JSON object/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Run' })).toBeDisabled();
    fireEvent.change(args, { target: { value: '{"text": "hi"}' } });
    await user.click(screen.getByRole('button', { name: 'Run' }));
    const result = await screen.findByTestId('mcp-call-result');
    expect(within(result).getByText('echo: hi')).toBeInTheDocument();
    expect(within(result).getByText('12 ms')).toBeInTheDocument();
    const call = server.calls.find((c) => c.url.endsWith('/tools/echo/call'))!;
    expect(JSON.parse(call.body!)).toEqual({ arguments: { text: 'hi' } });
  });

  it('a viewer reads the tools and gets no test call', async () => {
    api();
    renderWithApp(<McpPage />, viewerState);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Tools of docs' }));
    expect(await screen.findByText(/test calls need the member role/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Run' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Edit docs' })).not.toBeInTheDocument();
  });
});

describe('MCP form helpers', () => {
  it('parses arguments: empty is {}, arrays and bad JSON are refused', () => {
    expect(parseArguments('')).toEqual({ ok: true, value: {} });
    expect(parseArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseArguments('[1]')).toMatchObject({ ok: false, reason: 'object' });
    expect(parseArguments('{"a":')).toMatchObject({ ok: false, reason: 'json' });
  });

  it('builds headers: nothing changed sends none; removed ones are left out, kept ones null', () => {
    const rows = storedRows(['Authorization', 'X-Org']);
    expect(headersBody(rows, true)).toBeUndefined();
    rows[1] = { ...rows[1], state: 'remove' } as (typeof rows)[number];
    expect(headersBody(rows, true)).toEqual({ Authorization: null });
    rows[0] = { ...rows[0], state: 'replace', value: 'Bearer new' } as (typeof rows)[number];
    expect(headersBody(rows, true)).toEqual({ Authorization: 'Bearer new' });
    expect(argumentsTemplate({ properties: { n: { type: 'integer' }, b: { type: 'boolean' } } })).toBe(
      JSON.stringify({ n: 0, b: false }, null, 2),
    );
  });
});
