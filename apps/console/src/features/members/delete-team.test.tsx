import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import type { AuthState } from '../../auth/auth-context';
import { MembersPage } from './members-page';

const ownerState: AuthState = {
  ...memberState,
  email: 'olga@example.com',
  memberships: [{ teamId: 'team-1', teamName: 'Acme', role: 'owner' }],
  role: 'owner',
};
const adminState: AuthState = {
  ...ownerState,
  memberships: [{ teamId: 'team-1', teamName: 'Acme', role: 'admin' }],
  role: 'admin',
};
/** the team's data policy as the server answers it when none was set */
const OPEN_POLICY = {
  residency: 'any',
  pii: 'off',
  pii_scope: 'foreign_only',
  entities: ['email', 'phone', 'card', 'inn', 'snils', 'passport', 'ogrn', 'bank_account', 'ip', 'person'],
  custom_patterns: [],
  allow_list: [],
  updated_at: null,
};
const members = [
  { user_id: 'u1', email: 'olga@example.com', name: 'Olga', role: 'owner', joined_at: '2026-11-01T00:00:00Z' },
];

function teamServer(deleteAnswer: () => Response) {
  server.handle = ({ method, path }) => {
    if (path.endsWith('/data-policy')) return json(OPEN_POLICY);
    if (method === 'DELETE' && path === '/api/v1/teams/team-1') return deleteAnswer();
    if (path === '/api/v1/auth/session')
      return json({
        signed_in: true,
        state: {
          user: { id: 'u1', email: 'olga@example.com', name: 'Olga', operator: false },
          memberships: [],
          csrf_token: 'csrf-2',
        },
      });
    if (path.endsWith('/members')) return json({ object: 'list', data: members });
    if (path === '/api/v1/teams/team-1') return json({ id: 'team-1', name: 'Acme', request_log_bodies: 'metadata' });
    return json({ object: 'list', data: [] });
  };
}

async function confirmDelete() {
  const user = userEvent.setup();
  await screen.findByRole('cell', { name: 'olga@example.com' });
  await user.click(screen.getByRole('button', { name: 'Delete team' }));
  const dialog = await screen.findByRole('dialog', { name: 'Delete team Acme?' });
  expect(server.calls.some((c) => c.method === 'DELETE')).toBe(false);
  await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
}

describe('Members → delete the team', () => {
  it("the owner confirms; a refusal shows the server's own message and nothing else changes", async () => {
    const message = 'The team still has RUB 120.00 on its balance: spend it or have the operator settle it first';
    teamServer(() => json({ error: { message, type: 'conflict', code: 'team_has_balance' } }, 409));
    renderWithApp(<MembersPage />, ownerState);
    await confirmDelete();
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    const del = server.calls.find((c) => c.method === 'DELETE')!;
    expect(del.headers.get('x-csrf-token')).toBe('csrf-1');
    expect(server.calls.some((c) => c.url.endsWith('/api/v1/auth/session'))).toBe(false);
  });

  it('after the deletion the session is read again (the team is gone from its memberships)', async () => {
    teamServer(() => new Response(null, { status: 204 }));
    renderWithApp(<MembersPage />, ownerState);
    await confirmDelete();
    await waitFor(() => expect(server.calls.some((c) => c.url.endsWith('/api/v1/auth/session'))).toBe(true));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('an admin gets no delete control (owners and operators only)', async () => {
    teamServer(() => json({ error: { message: 'unexpected' } }, 500));
    renderWithApp(<MembersPage />, adminState);
    await screen.findByRole('cell', { name: 'olga@example.com' });
    expect(screen.queryByRole('button', { name: 'Delete team' })).not.toBeInTheDocument();
  });
});
