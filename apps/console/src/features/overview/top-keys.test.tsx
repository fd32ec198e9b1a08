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
