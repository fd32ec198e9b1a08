import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp } from '../../test/render';
import type { AuthState } from '../../auth/auth-context';
import { MembersPage } from './members-page';

const adminState: AuthState = {
  ...memberState,
  email: 'ann@example.com',
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
  { user_id: 'u1', email: 'ann@example.com', name: 'Ann', role: 'admin', joined_at: '2026-11-01T00:00:00Z' },
  { user_id: 'u2', email: 'bob@example.com', name: 'Bob', role: 'member', joined_at: '2026-11-02T00:00:00Z' },
];

describe('Members and invitations', () => {
  it('an admin invites by email with a role and gets the link to copy', async () => {
    server.handle = ({ method, path }) => {
      if (path.endsWith('/data-policy')) return json(OPEN_POLICY);
      if (method === 'GET' && path.endsWith('/members')) return json({ object: 'list', data: members });
      if (method === 'GET' && path.endsWith('/invitations')) return json({ object: 'list', data: [] });
      if (method === 'POST' && path === '/api/v1/teams/team-1/invitations')
        return json(
          { id: 'i1', token: 'inv_x', url: 'http://localhost/invitations/inv_x', expires_at: '2026-12-02T00:00:00Z' },
          201,
        );
      return json({ error: { message: 'unexpected' } }, 404);
    };
    renderWithApp(<MembersPage />, adminState);
    const user = userEvent.setup();
    await screen.findByRole('cell', { name: 'bob@example.com' });
    await user.type(screen.getByRole('textbox', { name: /^Email/ }), 'carol@example.com');
    await user.click(screen.getByRole('button', { name: 'Invite' }));
    expect(await screen.findByTestId('invitation-link')).toHaveTextContent('http://localhost/invitations/inv_x');
    expect(screen.getByRole('button', { name: 'Copy invitation link' })).toBeInTheDocument();
    const post = server.calls.find((c) => c.method === 'POST')!;
    expect(JSON.parse(post.body!)).toEqual({ email: 'carol@example.com', role: 'member' });
    expect(post.headers.get('x-csrf-token')).toBe('csrf-1');
  });

  it("an admin changes another member's role; removing asks first", async () => {
    server.handle = ({ method, path }) => {
      if (path.endsWith('/data-policy')) return json(OPEN_POLICY);
      if (method === 'GET' && path.endsWith('/members')) return json({ object: 'list', data: members });
      if (method === 'GET') return json({ object: 'list', data: [] });
      if (method === 'PATCH') return json({ ...members[1], role: 'viewer' });
      return new Response(null, { status: 204 });
    };
    renderWithApp(<MembersPage />, adminState);
    const user = userEvent.setup();
    const roleOfBob = (await screen.findAllByLabelText('Role of bob@example.com', { selector: 'input' }))[0];
    await user.click(roleOfBob);
    const listbox = await waitFor(() => document.getElementById(roleOfBob.getAttribute('aria-controls') ?? '')!);
    await user.click(within(listbox).getByRole('option', { name: 'viewer', hidden: true }));
    await waitFor(() => expect(server.calls.some((c) => c.method === 'PATCH')).toBe(true));
    const patch = server.calls.find((c) => c.method === 'PATCH')!;
    expect(patch.url).toContain('/api/v1/teams/team-1/members/u2');
    expect(JSON.parse(patch.body!)).toEqual({ role: 'viewer' });
    // the signed-in admin cannot demote or remove themself here
    expect(screen.queryByLabelText('Role of ann@example.com')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Remove' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove this member?' });
    expect(server.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await waitFor(() =>
      expect(server.calls.some((c) => c.method === 'DELETE' && c.url.endsWith('/members/u2'))).toBe(true),
    );
  });

  it('a member sees the team but no invite, role or remove control', async () => {
    server.handle = () => json({ object: 'list', data: members });
    renderWithApp(<MembersPage />, memberState);
    await screen.findByRole('cell', { name: 'bob@example.com' });
    expect(screen.queryByRole('button', { name: 'Invite' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Remove' })).not.toBeInTheDocument();
    expect(server.calls.some((c) => c.url.endsWith('/invitations'))).toBe(false);
  });
});
