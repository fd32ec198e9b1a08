import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import i18n from '../../i18n';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import type { AuthState } from '../../auth/auth-context';
import { AuditPage } from './audit-page';

const TEAM = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
const OLGA = '6f1c1c53-8b0c-4c37-9d43-6a3e3f0f8e12';
const KEY = '0f8fad5b-d9cb-469f-a165-70867728950e';
const INV = '3d2c1b0a-1111-4222-8333-944455556666';

const noDetails = {
  amount_rub: null,
  balance_rub: null,
  email: null,
  role: null,
  previous_role: null,
  name: null,
  note: null,
  reference: null,
  reason: null,
};
const base = { ip: '203.0.113.7', user_agent: 'Mozilla/5.0', diff: null, team_id: TEAM };
const olga = { type: 'user', id: OLGA, email: 'olga@acme.test', name: 'Olga Owner', label: 'Olga Owner' };
const team = { id: TEAM, name: 'Acme Robotics' };

const entries = [
  {
    ...base,
    id: 'e1',
    at: '2026-11-25T10:00:00.000Z',
    actor_type: 'operator_token',
    actor_id: null,
    action: 'team.top_up',
    target_type: 'team',
    target_id: TEAM,
    actor: { type: 'operator_token', id: null, email: null, name: null, label: null },
    team,
    target: { type: 'team', id: TEAM, label: 'Acme Robotics' },
    details: { ...noDetails, amount_rub: 1500, balance_rub: 1500, note: 'Invoice 42 paid', reference: 'inv-42' },
  },
  {
    ...base,
    id: 'e2',
    at: '2026-11-25T09:00:00.000Z',
    actor_type: 'user',
    actor_id: OLGA,
    action: 'member.role_change',
    target_type: 'user',
    target_id: OLGA,
    actor: olga,
    team,
    target: { type: 'user', id: OLGA, label: 'dev@acme.test' },
    details: { ...noDetails, email: 'dev@acme.test', role: 'admin', previous_role: 'member' },
  },
];
const older = {
  ...base,
  id: 'e3',
  at: '2026-11-24T09:00:00.000Z',
  actor_type: 'user',
  actor_id: OLGA,
  action: 'invitation.create',
  target_type: 'invitation',
  target_id: INV,
  actor: olga,
  team,
  target: { type: 'invitation', id: INV, label: 'dev@acme.test' },
  details: { ...noDetails, email: 'dev@acme.test', role: 'member' },
};
const keyEntry = {
  ...older,
  id: 'e4',
  action: 'api_key.create',
  target_type: 'api_key',
  target_id: KEY,
  target: { type: 'api_key', id: KEY, label: 'backend-prod' },
  details: { ...noDetails, name: 'backend-prod' },
};

const operatorState: AuthState = {
  ...memberState,
  email: 'root@ops.test',
  memberships: [],
  teamId: null,
  teamName: null,
  role: 'operator',
  isOperator: true,
};
const ownerState: AuthState = {
  ...memberState,
  email: 'olga@acme.test',
  memberships: [{ teamId: TEAM, teamName: 'Acme Robotics', role: 'owner' }],
  teamId: TEAM,
  teamName: 'Acme Robotics',
  role: 'owner',
};

function serve() {
  server.handle = ({ path, query }) => {
    if (path === '/api/v1/audit-log') {
      if (query.get('actor_email') === 'olga@acme.test')
        return json({ object: 'list', data: [entries[1], keyEntry], next_cursor: null });
      return query.get('cursor') === '7'
        ? json({ object: 'list', data: [older], next_cursor: null })
        : json({ object: 'list', data: entries, next_cursor: 7 });
    }
    if (path === '/api/v1/admin/teams')
      return json({ object: 'list', data: [{ id: TEAM, name: 'Acme Robotics' }], next_after: null });
    if (path === '/api/v1/admin/users')
      return json({
        object: 'list',
        data: [{ id: OLGA, email: 'olga@acme.test', name: 'Olga Owner', operator: false, disabled: false }],
      });
    if (path === `/api/v1/teams/${TEAM}/members`)
      return json({
        object: 'list',
        data: [{ user_id: OLGA, email: 'olga@acme.test', name: 'Olga Owner', role: 'owner', joined_at: '' }],
      });
    return json({ error: { message: 'unexpected' } }, 404);
  };
}

describe('Audit log page', () => {
  it('an operator sees teams, people and objects by name, amounts in RUB, roles translated; no ids; loads more', async () => {
    serve();
    renderWithApp(<AuditPage />, operatorState);
    const table = await screen.findByRole('table', { name: 'Audit log' });
    expect(within(table).getByRole('columnheader', { name: 'Team' })).toBeInTheDocument();
    const top = within(table).getByRole('row', { name: /team: topped up/ });
    expect(top).toHaveTextContent('Acme Robotics');
    expect(top).toHaveTextContent('admin token');
    expect(top).toHaveTextContent(/Amount:\s*RUB\s1,500\.00/);
    expect(top).toHaveTextContent('Invoice 42 paid');
    const role = within(table).getByRole('row', { name: /member: role changed/ });
    expect(role).toHaveTextContent('Olga Owner');
    expect(role).toHaveTextContent('olga@acme.test');
    expect(role).toHaveTextContent('dev@acme.test');
    expect(role).toHaveTextContent('Role: member → admin');
    for (const id of [TEAM, OLGA, INV]) expect(table).not.toHaveTextContent(id);

    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await within(table).findByRole('row', { name: /invitation: created/ });
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    expect(server.calls.some((c) => c.url.includes('cursor=7'))).toBe(true);
    // the operator's view asks for every team
    expect(server.calls.find((c) => c.url.includes('/audit-log'))!.url).not.toContain('team_id');
  });

  it('a team owner filters by a member; the request names the person by e-mail; no team column', async () => {
    serve();
    renderWithApp(<AuditPage />, ownerState);
    const table = await screen.findByRole('table', { name: 'Audit log' });
    expect(within(table).queryByRole('columnheader', { name: 'Team' })).not.toBeInTheDocument();
    const user = userEvent.setup();
    const input = (await screen.findAllByLabelText('Person', { selector: 'input' }))[0];
    await user.click(input);
    const listbox = await waitFor(() => document.getElementById(input.getAttribute('aria-controls') ?? '')!);
    await user.click(await within(listbox).findByRole('option', { name: 'Olga Owner (olga@acme.test)', hidden: true }));
    await screen.findByRole('row', { name: /API key: created.*backend-prod/ });
    const call = server.calls.filter((c) => c.url.includes('/audit-log')).pop()!;
    expect(call.url).toContain('actor_email=olga%40acme.test');
    expect(call.url).toContain(`team_id=${TEAM}`);
  });

  it('in Russian every action, object, actor and detail label is Russian', async () => {
    await i18n.changeLanguage('ru');
    try {
      serve();
      renderWithApp(<AuditPage />, operatorState);
      const table = await screen.findByRole('table', { name: 'Журнал аудита' });
      await within(table).findByRole('row', { name: /команда: пополнение/ });
      const text = table.textContent ?? '';
      expect(text).toContain('токен администратора');
      expect(text).toContain('участник: смена роли');
      expect(text).toContain('Роль:');
      expect(text).toContain('участник → администратор');
      for (const english of ['team', 'top_up', 'admin token', 'Role', 'Amount', 'member', 'user']) {
        const withoutData = text.replace(
          /Invoice 42 paid|inv-42|olga@acme\.test|dev@acme\.test|Olga Owner|Acme Robotics/g,
          '',
        );
        expect(withoutData, english).not.toContain(english);
      }
      await waitFor(() => expect(screen.getByRole('button', { name: 'Показать ещё' })).toBeInTheDocument());
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
