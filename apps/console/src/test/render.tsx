import type { ReactNode } from 'react';
import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { Providers } from '../app/app';
import type { AuthState } from '../auth/auth-context';
import { setCredential } from '../api/client';

export const memberState: AuthState = {
  status: 'signed-in',
  mode: 'session',
  email: 'member@example.com',
  memberships: [{ teamId: 'team-1', teamName: 'Acme', role: 'member' }],
  teamId: 'team-1',
  teamName: 'Acme',
  role: 'member',
  isOperator: false,
};

export const viewerState: AuthState = {
  ...memberState,
  email: 'viewer@example.com',
  memberships: [{ teamId: 'team-1', teamName: 'Acme', role: 'viewer' }],
  role: 'viewer',
};

/** Renders inside the app's providers; `auth` skips the session probe with a signed-in state. */
export function renderWithApp(ui: ReactNode, auth?: AuthState, path = '/') {
  if (auth?.mode === 'session') setCredential({ kind: 'session', csrfToken: 'csrf-1', teamId: auth.teamId });
  return render(
    <Providers auth={auth}>
      <MemoryRouter initialEntries={[path]}>{ui}</MemoryRouter>
    </Providers>,
  );
}
