import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, server } from '../../test/setup';
import { renderWithApp } from '../../test/render';
import { SignInPage } from './sign-in-page';
import { useAuth } from '../../auth/auth-context';

function Probe() {
  const auth = useAuth();
  return auth.status === 'signed-in' ? <p>signed in as {auth.email ?? auth.teamId}</p> : <SignInPage />;
}

describe('Sign in', () => {
  it('signs in with email and password: the session endpoint gets the credentials', async () => {
    server.handle = ({ path }) => {
      if (path === '/api/v1/auth/session') return json({ signed_in: false, state: null });
      if (path === '/api/v1/auth/login')
        return json({
          user: { id: 'u1', email: 'ann@example.com' },
          memberships: [{ team_id: 't1', team_name: 'Acme', role: 'admin' }],
          csrf_token: 'csrf-xyz',
        });
      return json({ error: { message: 'unexpected' } }, 404);
    };
    renderWithApp(<Probe />);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/^Email/), 'ann@example.com');
    await user.type(screen.getByLabelText(/^Password/), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('signed in as ann@example.com')).toBeInTheDocument();
    const login = server.calls.find((c) => c.url.endsWith('/api/v1/auth/login'))!;
    expect(JSON.parse(login.body!)).toEqual({ email: 'ann@example.com', password: 'correct horse' });
  });

  it("shows the server's message when the password is wrong and stays on the form", async () => {
    server.handle = ({ path }) =>
      path === '/api/v1/auth/login'
        ? json({ error: { message: 'Invalid email or password.', type: 'authentication_error' } }, 401)
        : json({ error: { message: 'no' } }, 401);
    renderWithApp(<Probe />);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText(/^Email/), 'ann@example.com');
    await user.type(screen.getByLabelText(/^Password/), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password.');
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('signs in with a team API key: the key goes in the api-key header of the balance check', async () => {
    server.handle = ({ path }) =>
      path === '/api/v1/balance'
        ? json({ team_id: 'team-9', balance_rub: 10, reserved_rub: 0, available_rub: 10, currency: 'RUB' })
        : json({ error: { message: 'no' } }, 401);
    renderWithApp(<Probe />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('tab', { name: 'API key' }));
    await user.type(screen.getByLabelText(/^Team API key/), 'sk-test-123');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('signed in as team-9')).toBeInTheDocument();
    const call = server.calls.find((c) => c.url.endsWith('/api/v1/balance'))!;
    expect(call.headers.get('api-key')).toBe('sk-test-123');
  });

  it('a refused key shows the server message', async () => {
    server.handle = () => json({ error: { message: 'Invalid API key.', type: 'authentication_error' } }, 401);
    renderWithApp(<Probe />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('tab', { name: 'API key' }));
    await user.type(screen.getByLabelText(/^Team API key/), 'sk-bad');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Invalid API key.'));
  });

  it('offers "Sign in with SSO" only when the server lists OpenID Connect, without probing the flow', async () => {
    server.handle = ({ path }) =>
      path === '/api/v1/auth/providers'
        ? json({ password: true, oidc: true })
        : json({ error: { message: 'no session' } }, 401);
    renderWithApp(<Probe />);
    const sso = await screen.findByRole('link', { name: 'Sign in with SSO' });
    expect(sso).toHaveAttribute('href', '/api/v1/auth/oidc/login');
    expect(server.calls.some((c) => c.url.includes('/api/v1/auth/oidc/login'))).toBe(false);
  });

  it('shows no SSO button when OpenID Connect is not configured', async () => {
    server.handle = ({ path }) =>
      path === '/api/v1/auth/providers'
        ? json({ password: true, oidc: false })
        : json({ error: { message: 'no session' } }, 401);
    renderWithApp(<Probe />);
    await screen.findByLabelText(/^Email/);
    await waitFor(() => expect(server.calls.some((c) => c.url.endsWith('/api/v1/auth/providers'))).toBe(true));
    expect(screen.queryByRole('link', { name: 'Sign in with SSO' })).not.toBeInTheDocument();
  });
});

describe('where a sign-in lands', () => {
  it('stays on a page the credential can use, otherwise goes home', async () => {
    const { fitsCredential } = await import('./sign-in-page');
    expect(fitsCredential('admin', '/providers')).toBe(true);
    expect(fitsCredential('admin', '/keys')).toBe(false);
    expect(fitsCredential('key', '/operator')).toBe(false);
    expect(fitsCredential('key', '/billing')).toBe(false);
    expect(fitsCredential('key', '/projects/p1/settings')).toBe(true);
    expect(fitsCredential('session', '/members')).toBe(true);
  });
});
