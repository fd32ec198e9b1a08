import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import { OverviewPage } from './overview-page';
import { budgetPercent } from './budget-use';

const key = (over: Record<string, unknown>) => ({
  id: 'k1',
  prefix: 'sk-aaaa',
  name: 'backend',
  created_at: '2026-11-01T00:00:00.000Z',
  last_used_at: null,
  revoked: false,
  revoked_at: null,
  rpm_limit: null,
  tpm_limit: null,
  budget_rub_per_day: null,
  budget_rub_per_month: null,
  spent_rub_today: 0,
  spent_rub_this_month: 0,
  created_by: null,
  expires_at: null,
  allowed_models: [],
  ...over,
});

function overviewServer(keys: unknown[]) {
  server.handle = ({ path }) => {
    if (path === '/api/v1/teams/team-1/api-keys') return json({ object: 'list', data: keys });
    if (path === '/api/v1/teams/team-1/balance')
      return json({ team_id: 'team-1', balance_rub: 100, reserved_rub: 0, available_rub: 100, currency: 'RUB' });
    if (path === '/api/v1/teams/team-1/usage/summary')
      return json({
        object: 'usage.summary',
        team_id: 'team-1',
        data: [],
        total: { group: null, requests: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, amount_rub: 0 },
      });
    if (path === '/api/v1/teams/team-1/ledger') return json({ object: 'list', data: [], has_more: false });
    return json({ error: { message: 'unexpected' } }, 404);
  };
}

describe('budgetPercent', () => {
  it('is the spent share of the cap, capped at 100; a zero cap counts as used up', () => {
    expect(budgetPercent(12.5, 50)).toBe(25);
    expect(budgetPercent(60, 50)).toBe(100);
    expect(budgetPercent(0, 0)).toBe(100);
  });
});

describe('Overview → budget use', () => {
  it("shows each capped key's spend against its daily and monthly budgets; uncapped and revoked keys are left out", async () => {
    overviewServer([
      key({ budget_rub_per_day: 50, spent_rub_today: 12.5, budget_rub_per_month: 1000, spent_rub_this_month: 900 }),
      key({ id: 'k2', prefix: 'sk-bbbb', name: 'free', spent_rub_today: 3 }),
      key({ id: 'k3', prefix: 'sk-cccc', name: 'old', revoked: true, budget_rub_per_day: 5 }),
      key({ id: 'k4', prefix: 'sk-dddd', name: null, budget_rub_per_month: 200, spent_rub_this_month: 20 }),
    ]);
    renderWithApp(<OverviewPage />, memberState);
    const table = await screen.findByRole('table', { name: 'Budget use of keys (UTC)' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3); // header + the two capped, live keys
    expect(rows[1]).toHaveTextContent('backend');
    expect(rows[1]).toHaveTextContent('(25%)');
    expect(rows[1]).toHaveTextContent('(90%)');
    expect(rows[2]).toHaveTextContent('sk-dddd');
    expect(rows[2]).toHaveTextContent('no cap');
    expect(rows[2]).toHaveTextContent('(10%)');
    expect(within(table).getByRole('progressbar', { name: 'Daily budget used by backend' })).toHaveAttribute(
      'aria-valuenow',
      '25',
    );
    expect(within(table).getByRole('progressbar', { name: 'Monthly budget used by backend' })).toHaveAttribute(
      'aria-valuenow',
      '90',
    );
    expect(within(table).queryByText(/sk-bbbb|sk-cccc/)).not.toBeInTheDocument();
  });

  it('says so when no key has a budget, with a way to the keys page', async () => {
    overviewServer([key({})]);
    renderWithApp(<OverviewPage />, memberState);
    expect(await screen.findByText(/No key has a daily or monthly budget/)).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Budget use of keys (UTC)' })).not.toBeInTheDocument();
  });
});
