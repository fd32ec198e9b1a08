import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';

/** The accounts capability's sign-in endpoints: an HttpOnly session cookie plus a CSRF token. */
export type AuthStateDto = components['schemas']['AuthStateDto'];

export interface Membership {
  teamId: string;
  teamName: string;
  role: string;
}
export interface SessionInfo {
  user: { id: string; email: string; name?: string; isOperator: boolean };
  memberships: Membership[];
  csrfToken: string;
}

export function toSession(s: AuthStateDto): SessionInfo {
  return {
    user: { id: s.user.id, email: s.user.email, name: s.user.name, isOperator: s.user.operator },
    memberships: s.memberships.map((m) => ({ teamId: m.team_id, teamName: m.team_name, role: m.role })),
    csrfToken: s.csrf_token,
  };
}

export async function login(email: string, password: string): Promise<SessionInfo> {
  return toSession(unwrap(await api.POST('/api/v1/auth/login', { body: { email, password } })));
}

/**
 * The current session from its cookie, or null when there is none. The probe answers 200 either way,
 * so a signed-out page logs no failed request in the browser console.
 */
export async function me(): Promise<SessionInfo | null> {
  const res = await api.GET('/api/v1/auth/session');
  return res.response.ok && res.data?.state ? toSession(res.data.state) : null;
}

export async function logout(): Promise<void> {
  await api.POST('/api/v1/auth/logout');
}

export async function acceptInvitation(token: string, body: { name?: string; password?: string }) {
  return unwrap(await api.POST('/api/v1/invitations/{token}/accept', { params: { path: { token } }, body }));
}
