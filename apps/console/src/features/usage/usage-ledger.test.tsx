import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import { UsagePage } from './usage-page';

const entry = (over: Record<string, unknown>) => ({
  id: '7',
  created_at: new Date().toISOString(),
  kind: 'charge',
  endpoint: '/v1/chat/completions',
  model: 'local',
  request_id: 'req_abc',
  prompt_tokens: 10,
  completion_tokens: 5,
  total_tokens: 15,
  amount_rub: -0.00002,
  balance_after_rub: 99.99998,
  reference: null,
  ...over,
});

describe('Usage → ledger', () => {
  it('links a charge to its call on the Requests page; a top-up has no request', async () => {
    server.handle = ({ path }) => {
      if (path === '/api/v1/teams/team-1/ledger')
        return json({
          object: 'list',
          data: [entry({}), entry({ id: '6', kind: 'top_up', request_id: null, endpoint: null, model: null })],
          has_more: false,
        });
      if (path === '/api/v1/teams/team-1/usage/summary')
        return json({ object: 'usage.summary', team_id: 'team-1', data: [], total: { group: null, amount_rub: 0 } });
      return json({ object: 'list', data: [] });
    };
    renderWithApp(<UsagePage />, memberState);
    const table = await screen.findByRole('table', { name: 'Ledger' });
    const links = within(table).getAllByRole('link', { name: /^Open the request of / });
    expect(links).toHaveLength(1);
    expect(links[0]).toHaveAttribute('href', '/requests?id=req_abc');
  });

  it('opening Usage again shows a charge made since it was last open, without waiting for a cache to expire', async () => {
    let calls = 0;
    const topUp = entry({ id: '6', kind: 'top_up', request_id: null, endpoint: null, model: null, amount_rub: 300 });
    server.handle = ({ path }) => {
      if (path === '/api/v1/teams/team-1/ledger')
        return json({ object: 'list', data: calls > 0 ? [entry({}), topUp] : [topUp], has_more: false });
      if (path === '/api/v1/teams/team-1/usage/summary')
        return json({ object: 'usage.summary', team_id: 'team-1', data: [], total: { group: null, amount_rub: 0 } });
      return json({ object: 'list', data: [] });
    };
    function Switcher() {
      const [open, setOpen] = useState(true);
      return (
        <>
          <button onClick={() => setOpen((o) => !o)}>switch</button>
          {open ? <UsagePage /> : <p>elsewhere</p>}
        </>
      );
    }
    renderWithApp(<Switcher />, memberState);
    const first = await screen.findByRole('table', { name: 'Ledger' });
    expect(within(first).queryByText('/v1/chat/completions')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'switch' }));
    await screen.findByText('elsewhere');
    calls++; // an API call charges the team meanwhile
    fireEvent.click(screen.getByRole('button', { name: 'switch' }));
    const again = await screen.findByRole('table', { name: 'Ledger' });
    expect(await within(again).findByText('/v1/chat/completions')).toBeTruthy();
  });
});
