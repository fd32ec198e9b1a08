import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { memberState, renderWithApp, viewerState } from '../../test/render';
import type { AuthState } from '../../auth/auth-context';
import { KeysPage } from './keys-page';

const key = {
  id: 'k1',
  team_id: 'team-1',
  prefix: 'sk-AbCdEf12',
  name: 'backend',
  created_at: '2026-11-01T10:00:00Z',
  last_used_at: null,
  revoked: false,
  revoked_at: null,
  rpm_limit: 60,
  tpm_limit: null,
  budget_rub_per_day: 50,
  budget_rub_per_month: null,
  spent_rub_today: 1.5,
  spent_rub_this_month: 12.25,
};

describe('API keys', () => {
  it('a member creates a key: the secret is shown once with a copy button and a ready curl; the CSRF header is sent', async () => {
    server.handle = ({ method, path }) => {
      if (method === 'GET' && path === '/api/v1/teams/team-1/api-keys') return json({ data: [key] });
      if (method === 'POST' && path === '/api/v1/teams/team-1/api-keys')
        return json(
          { id: 'k2', api_key: 'sk-SECRET-once', prefix: 'sk-SECRET', name: 'ci', created_at: '2026-11-25T00:00:00Z' },
          201,
        );
      return json({ error: { message: 'unexpected' } }, 404);
    };
    renderWithApp(<KeysPage />, memberState);
    expect(await screen.findByRole('cell', { name: 'backend' })).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Key name'), 'ci');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    const dialog = await screen.findByRole('dialog', { name: 'Your new API key' });
    expect(within(dialog).getByTestId('new-key')).toHaveTextContent('sk-SECRET-once');
    expect(within(dialog).getByRole('button', { name: 'Copy API key' })).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Try it with curl', { selector: 'pre' }).textContent).toContain(
      'Authorization: Bearer sk-SECRET-once',
    );
    const post = server.calls.find((c) => c.method === 'POST')!;
    expect(post.headers.get('x-csrf-token')).toBe('csrf-1');
    expect(post.headers.get('x-team-id')).toBe('team-1');
    expect(JSON.parse(post.body!)).toEqual({ name: 'ci' });
    await user.click(within(dialog).getByRole('button', { name: 'I saved the key' }));
    await waitFor(() => expect(screen.queryByText('sk-SECRET-once')).not.toBeInTheDocument());
  });

  it('revoking asks for confirmation first and only then calls the server', async () => {
    server.handle = ({ method }) => (method === 'DELETE' ? new Response(null, { status: 204 }) : json({ data: [key] }));
    renderWithApp(<KeysPage />, memberState);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Revoke' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke this key?' });
    expect(server.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await waitFor(() =>
      expect(server.calls.some((c) => c.method === 'DELETE' && c.url.endsWith('/api-keys/k1'))).toBe(true),
    );
  });

  it('a viewer sees the keys but no create or revoke control', async () => {
    server.handle = () => json({ data: [key] });
    renderWithApp(<KeysPage />, viewerState);
    expect(await screen.findByRole('cell', { name: 'backend' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create key' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Revoke' })).not.toBeInTheDocument();
  });

  it("shows the server's error message", async () => {
    server.handle = () => json({ error: { message: 'You are not a member of this team.' } }, 403);
    renderWithApp(<KeysPage />, memberState);
    expect(await screen.findByRole('alert')).toHaveTextContent('You are not a member of this team.');
  });

  it("an admin edits a key's limits: empty fields remove a limit, numbers set it", async () => {
    const admin: AuthState = {
      ...memberState,
      role: 'admin',
      memberships: [{ teamId: 'team-1', teamName: 'Acme', role: 'admin' }],
    };
    server.handle = ({ method }) => (method === 'PATCH' ? json({ ...key, tpm_limit: 5000 }) : json({ data: [key] }));
    renderWithApp(<KeysPage />, admin);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Limits' }));
    const dialog = await screen.findByRole('dialog', { name: /Limits of sk-AbCdEf12/ });
    expect(within(dialog).getByLabelText('Requests per minute')).toHaveValue('60');
    await user.clear(within(dialog).getByLabelText('Requests per minute'));
    await user.type(within(dialog).getByLabelText('Tokens per minute'), '5000');
    await user.click(within(dialog).getByRole('button', { name: 'Save limits' }));
    await waitFor(() => expect(server.calls.some((c) => c.method === 'PATCH')).toBe(true));
    const patch = server.calls.find((c) => c.method === 'PATCH')!;
    expect(patch.url).toContain('/api/v1/teams/team-1/api-keys/k1');
    expect(JSON.parse(patch.body!)).toEqual({
      rpm_limit: null,
      tpm_limit: 5000,
      budget_rub_per_day: 50,
      budget_rub_per_month: null,
    });
  });

  it('a member (not admin) gets no limits editor', async () => {
    server.handle = () => json({ data: [key] });
    renderWithApp(<KeysPage />, memberState);
    await screen.findByRole('cell', { name: 'backend' });
    expect(screen.queryByRole('button', { name: 'Limits' })).not.toBeInTheDocument();
  });
});
