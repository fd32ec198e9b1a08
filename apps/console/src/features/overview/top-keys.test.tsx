import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import { OverviewPage } from './overview-page';

const row = (group: string | null, amount_rub: number) => ({
  group,
  requests: 3,
  prompt_tokens: 10,
  completion_tokens: 5,
  total_tokens: 15,
  amount_rub,
});

describe('Overview → top keys', () => {
  it('names each key by its name and display prefix, not its id; charges without a key say so', async () => {
    server.handle = ({ path, query }) => {
      if (path === '/api/v1/teams/team-1/api-keys')
        return json({
          object: 'list',
          data: [
            { id: 'k-1111', prefix: 'sk-aaaa', name: 'backend', revoked: false },
            { id: 'k-2222', prefix: 'sk-bbbb', name: null, revoked: true },
          ],
        });
      if (path === '/api/v1/teams/team-1/balance')
        return json({ team_id: 'team-1', balance_rub: 100, reserved_rub: 0, available_rub: 100, currency: 'RUB' });
      if (path === '/api/v1/teams/team-1/usage/summary')
        return json({
          object: 'usage.summary',
          team_id: 'team-1',
          data: query.get('group_by') === 'key' ? [row('k-2222', 1.5), row('k-1111', 4), row(null, 0.25)] : [],
          total: row(null, 5.75),
        });
      if (path === '/api/v1/teams/team-1/ledger') return json({ object: 'list', data: [], has_more: false });
      if (path === '/api/v1/requests') return json({ object: 'list', data: [], has_more: false, next_cursor: null });
      return json({ error: { message: 'unexpected' } }, 404);
    };
    renderWithApp(<OverviewPage />, memberState);
    const table = await screen.findByRole('table', { name: 'Top keys (30 days)' });
    await within(table).findByRole('cell', { name: 'backend (sk-aaaa…)' });
    const rows = within(table).getAllByRole('row');
    expect(rows.map((r) => within(r).queryAllByRole('cell')[0]?.textContent)).toEqual([
      undefined,
      'backend (sk-aaaa…)',
      'sk-bbbb…',
      'without a key (ingestion, internal)',
    ]);
    expect(table).not.toHaveTextContent('k-1111');
  });
});

describe('Overview → top keys named by the summary', () => {
  it('shows the name and prefix the spend summary returns and the e-mail of who created the key', async () => {
    server.handle = ({ path, query }) => {
      if (path === '/api/v1/teams/team-1/api-keys') return json({ object: 'list', data: [] });
      if (path === '/api/v1/teams/team-1/balance')
        return json({ team_id: 'team-1', balance_rub: 100, reserved_rub: 0, available_rub: 100, currency: 'RUB' });
      if (path === '/api/v1/teams/team-1/usage/summary')
        return json({
          object: 'usage.summary',
          team_id: 'team-1',
          data:
            query.get('group_by') === 'key'
              ? [
                  {
                    ...row('0f8fad5b-d9cb-469f-a165-70867728950e', 4),
                    key_name: 'backend-prod',
                    key_prefix: 'sk-cccc',
                    key_created_by_email: 'olga@acme.test',
                  },
                ]
              : [],
          total: row(null, 4),
        });
      if (path === '/api/v1/teams/team-1/ledger') return json({ object: 'list', data: [], has_more: false });
      if (path === '/api/v1/requests') return json({ object: 'list', data: [], has_more: false, next_cursor: null });
      return json({ error: { message: 'unexpected' } }, 404);
    };
    renderWithApp(<OverviewPage />, memberState);
    const table = await screen.findByRole('table', { name: 'Top keys (30 days)' });
    const cell = await within(table).findByRole('cell', { name: /^backend-prod \(sk-cccc…\)/ });
    expect(cell).toHaveTextContent('olga@acme.test');
    expect(table).not.toHaveTextContent('0f8fad5b');
  });
});

describe('Overview → top keys with an API key sign-in', () => {
  it('labels keys by the display prefix the request log records (the key list is not readable with a key)', async () => {
    const keyState = { ...memberState, mode: 'key' as const, email: null, memberships: [], teamName: null };
    server.handle = ({ path, query }) => {
      if (path === '/api/v1/requests')
        return json({
          object: 'list',
          data: query.get('status') ? [] : [{ id: 'req_1', api_key_id: 'k-1111', key_prefix: 'sk-aaaa' }],
          has_more: false,
          next_cursor: null,
        });
      if (path === '/api/v1/usage/summary')
        return json({
          object: 'usage.summary',
          team_id: 'team-1',
          data: query.get('group_by') === 'key' ? [row('k-1111', 4)] : [],
          total: row(null, 4),
        });
      if (path === '/api/v1/usage') return json({ object: 'list', data: [], has_more: false });
      if (path === '/api/v1/balance')
        return json({ team_id: 'team-1', balance_rub: 100, reserved_rub: 0, available_rub: 100, currency: 'RUB' });
      return json({ error: { message: 'unexpected' } }, 404);
    };
    renderWithApp(<OverviewPage />, keyState);
    const table = await screen.findByRole('table', { name: 'Top keys (30 days)' });
    await within(table).findByRole('cell', { name: 'sk-aaaa…' });
    expect(server.calls.some((c) => c.url.includes('/api-keys'))).toBe(false);
  });
});

describe('Overview → recent errors', () => {
  it('lists the last failed calls from the request log, each linking to its detail', async () => {
    server.handle = ({ path, query }) => {
      if (path === '/api/v1/requests') {
        expect(query.get('status')).toBe('error');
        expect(query.get('limit')).toBe('5');
        return json({
          object: 'list',
          data: [
            {
              id: 'req_e1',
              created_at: '2026-11-26T12:00:00.000Z',
              endpoint: '/v1/chat/completions',
              model: 'gpt-4o',
              served_model: null,
              status: 402,
              error_code: 'insufficient_balance',
            },
          ],
          has_more: false,
          next_cursor: null,
        });
      }
      if (path.endsWith('/usage/summary'))
        return json({ object: 'usage.summary', team_id: 'team-1', data: [], total: row(null, 0) });
      if (path.endsWith('/ledger')) return json({ object: 'list', data: [], has_more: false });
      if (path.endsWith('/balance'))
        return json({ team_id: 'team-1', balance_rub: 0, reserved_rub: 0, available_rub: 0, currency: 'RUB' });
      return json({ object: 'list', data: [] });
    };
    renderWithApp(<OverviewPage />, memberState);
    const table = await screen.findByRole('table', { name: 'Recent errors' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toHaveTextContent('insufficient_balance');
    expect(rows[1]).toHaveTextContent('402');
    expect(within(rows[1]).getByRole('link')).toHaveAttribute('href', '/requests?status=error&id=req_e1');
    expect(screen.getByRole('link', { name: 'All errors' })).toHaveAttribute('href', '/requests?status=error');
  });
});
