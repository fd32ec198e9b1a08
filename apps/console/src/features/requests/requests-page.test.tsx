import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import { RequestsPage, whoCalled } from './requests-page';
import { attemptSteps, toQuery, emptyFilters } from './request-queries';

const usage = {
  input_tokens: 120,
  output_tokens: 48,
  cache_read_tokens: 20,
  cache_write_tokens: 0,
  reasoning_tokens: 7,
};
const record = (over: Record<string, unknown> = {}) => ({
  id: 'req_ok1',
  created_at: '2026-11-26T12:00:00.000Z',
  team_id: 'team-1',
  endpoint: '/v1/chat/completions',
  model: 'gpt-4o-mini',
  served_model: 'gpt-4o-mini',
  provider: 'openai',
  status: 200,
  error_code: null,
  stream: false,
  usage,
  cost_rub: 0.012345,
  fx_rate: null,
  fx_date: null,
  latency_ms: 812,
  ttft_ms: null,
  attempts: 1,
  fallback_path: null,
  api_key_id: 'k-1111',
  key_prefix: 'sk-aaaa',
  session_user_id: null,
  user: 'customer-42',
  project_id: null,
  knowledge_base_id: null,
  client_ip: '203.0.113.7',
  user_agent: 'OpenAI/Python 1.54.0',
  data_protection: null,
  kind: 'model' as const,
  mcp_server: null,
  mcp_tool: null,
  bytes: null,
  ...over,
});
const failed = record({
  id: 'req_fb2',
  status: 502,
  error_code: 'upstream_error',
  model: 'claude-sonnet-4',
  served_model: 'claude-sonnet-4',
  attempts: 3,
  fallback_path: ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4'],
  cost_rub: 0,
  usage: { ...usage, input_tokens: 0, output_tokens: 0 },
});

function requestsServer() {
  server.handle = ({ path, query }) => {
    if (path === '/api/v1/teams/team-1/api-keys')
      return json({ object: 'list', data: [{ id: 'k-1111', prefix: 'sk-aaaa', name: 'backend', revoked: false }] });
    if (path === '/api/v1/requests') {
      const data = query.get('status') === 'error' ? [failed] : [record(), failed];
      return json({ object: 'list', data, has_more: false, next_cursor: null });
    }
    if (path === '/api/v1/requests/req_ok1')
      return json({
        ...record(),
        request_body: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hi"}]}',
        response_body: '{"id":"chatcmpl-1","choices":[]}',
        body_truncated: false,
      });
    if (path === '/api/v1/requests/req_fb2') return json(failed);
    return json({ error: { message: 'unexpected' } }, 404);
  };
}

describe('request log helpers', () => {
  it('turns the form into the API query: whole UTC days (to inclusive), empty fields left out', () => {
    expect(toQuery(emptyFilters)).toEqual({});
    expect(
      toQuery({
        ...emptyFilters,
        from: '2026-11-01',
        to: '2026-11-26',
        status: '5xx',
        model: ' gpt-4o ',
        minCost: 0.5,
      }),
    ).toEqual({
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-27T00:00:00.000Z',
      status: '5xx',
      model: 'gpt-4o',
      min_cost_rub: 0.5,
    });
  });

  it('names the caller: the key by name and prefix, a console session, or nobody for internal work', () => {
    const labels = new Map([['k-1111', 'backend (sk-aaaa…)']]);
    expect(whoCalled(record(), labels, 'console session')).toBe('backend (sk-aaaa…)');
    expect(whoCalled(record({ api_key_id: 'k-9', key_prefix: 'sk-zzzz' }), labels, 'console session')).toBe('sk-zzzz…');
    expect(whoCalled(record({ api_key_id: null, session_user_id: 'u1' }), labels, 'console session')).toBe(
      'console session',
    );
    expect(whoCalled(record({ api_key_id: null }), labels, 'console session')).toBe('—');
  });

  it('lays out attempts: fallbacks in path order, retries of one model, none when refused', () => {
    expect(attemptSteps(failed)).toEqual([
      { model: 'gpt-4o', outcome: 'fell_back' },
      { model: 'gpt-4o-mini', outcome: 'fell_back' },
      { model: 'claude-sonnet-4', outcome: 'failed' },
    ]);
    expect(attemptSteps(record({ attempts: 2 }))).toEqual([
      { model: 'gpt-4o-mini', outcome: 'retried' },
      { model: 'gpt-4o-mini', outcome: 'answered' },
    ]);
    expect(attemptSteps(record({ attempts: 0, status: 402 }))).toEqual([]);
  });
});

describe('Requests page', () => {
  it('lists calls with key names and cost, filters by status, and the drawer shows tokens, cost and bodies', async () => {
    requestsServer();
    renderWithApp(<RequestsPage />, memberState);
    const user = userEvent.setup();
    const table = await screen.findByRole('table', { name: 'Requests' });
    expect(await within(table).findAllByRole('cell', { name: 'backend (sk-aaaa…)' })).toHaveLength(2);
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toHaveTextContent('/v1/chat/completions');
    expect(rows[1]).toHaveTextContent('RUB 0.012345');
    expect(rows[1]).toHaveTextContent('120 / 48');
    expect(rows[2]).toHaveTextContent('502');
    expect(rows[2]).toHaveTextContent('upstream_error');

    // a status filter goes to the API
    const status = screen.getAllByLabelText('Status', { selector: 'input' })[0];
    await user.click(status);
    const listbox = await waitFor(() => document.getElementById(status.getAttribute('aria-controls') ?? '')!);
    await user.click(within(listbox).getByRole('option', { name: 'errors', hidden: true }));
    await waitFor(() =>
      expect(within(screen.getByRole('table', { name: 'Requests' })).getAllByRole('row')).toHaveLength(2),
    );
    expect(server.calls.some((c) => c.url.includes('/api/v1/requests?') && c.url.includes('status=error'))).toBe(true);
    const listCall = server.calls.find((c) => c.url.includes('/api/v1/requests?'))!;
    expect(listCall.headers.get('x-team-id')).toBe('team-1');

    // clear and open the successful call
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await user.click(await screen.findByRole('button', { name: 'Details of request req_ok1' }));
    const drawer = await screen.findByRole('dialog', { name: 'Request req_ok1' });
    const tokens = await within(drawer).findByRole('table', { name: 'Tokens' });
    expect(tokens).toHaveTextContent('120');
    expect(within(drawer).getByTestId('request-cost')).toHaveTextContent('RUB 0.012345');
    expect(within(drawer).getByRole('table', { name: 'Request facts' })).toHaveTextContent('customer-42');
    expect(within(drawer).getByLabelText('Request body')).toHaveTextContent('"content": "Hi"');
    expect(within(drawer).getByLabelText('Response body')).toHaveTextContent('chatcmpl-1');
    expect(within(drawer).getByText('Attempt 1: gpt-4o-mini')).toBeInTheDocument();
  });

  it('the drawer of a fallback shows each attempt in order, and says bodies are not stored', async () => {
    requestsServer();
    renderWithApp(<RequestsPage />, memberState);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Details of request req_fb2' }));
    const drawer = await screen.findByRole('dialog', { name: 'Request req_fb2' });
    await within(drawer).findByText('Attempt 1: gpt-4o');
    expect(within(drawer).getByText('Attempt 2: gpt-4o-mini')).toBeInTheDocument();
    expect(within(drawer).getByText('Attempt 3: claude-sonnet-4')).toBeInTheDocument();
    expect(within(drawer).getAllByText('failed, fell back to the next model')).toHaveLength(2);
    expect(within(drawer).getByText(/HTTP 502 · upstream_error/)).toBeInTheDocument();
    expect(within(drawer).getByText(/Bodies are not stored/)).toBeInTheDocument();
  });

  it('the drawer names the key, who created it, the signed-in user and the project instead of their ids', async () => {
    server.handle = ({ path }) => {
      if (path === '/api/v1/teams/team-1/api-keys') return json({ object: 'list', data: [] });
      if (path === '/api/v1/requests') return json({ object: 'list', data: [], has_more: false, next_cursor: null });
      if (path === '/api/v1/requests/req_named')
        return json({
          ...record({ id: 'req_named', session_user_id: 'u-5f0e', project_id: 'p-77aa' }),
          key_name: 'backend-prod',
          key_created_by_email: 'olga@acme.test',
          session_user_email: 'dev@acme.test',
          project_name: 'Support bot',
        });
      return json({ error: { message: 'unexpected' } }, 404);
    };
    renderWithApp(<RequestsPage />, memberState, '/requests?id=req_named');
    const drawer = await screen.findByRole('dialog', { name: 'Request req_named' });
    const facts = await within(drawer).findByRole('table', { name: 'Request facts' });
    expect(facts).toHaveTextContent('backend-prod (sk-aaaa…)');
    expect(facts).toHaveTextContent('Key created byolga@acme.test');
    expect(facts).toHaveTextContent('dev@acme.test');
    expect(facts).toHaveTextContent('Support bot');
    for (const id of ['k-1111', 'u-5f0e', 'p-77aa']) expect(facts).not.toHaveTextContent(id);
  });

  it('opens the drawer of the call named in the address (links from the ledger and the overview)', async () => {
    requestsServer();
    renderWithApp(<RequestsPage />, memberState, '/requests?id=req_fb2');
    const drawer = await screen.findByRole('dialog', { name: 'Request req_fb2' });
    await within(drawer).findByText('Attempt 3: claude-sonnet-4');
  });

  it('says what to do when the log is empty', async () => {
    server.handle = ({ path }) =>
      path === '/api/v1/requests'
        ? json({ object: 'list', data: [], has_more: false, next_cursor: null })
        : json({ object: 'list', data: [] });
    renderWithApp(<RequestsPage />, memberState);
    expect(await screen.findByText('No requests')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeDisabled();
  });
});
