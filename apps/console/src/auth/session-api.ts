import { ApiRequestError, type ApiErrorBody } from '../api/client';

/**
 * The sign-in endpoints of the accounts capability (session cookie + CSRF token). Their bodies are
 * read defensively: only the fields the console needs are taken, each checked at run time.
 */
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

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function parseSession(body: unknown): SessionInfo | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const user = (b.user ?? {}) as Record<string, unknown>;
  const csrfToken = str(b.csrf_token);
  if (!csrfToken || !str(user.email)) return null;
  const list = Array.isArray(b.memberships) ? (b.memberships as Record<string, unknown>[]) : [];
  return {
    user: {
      id: str(user.id) ?? '',
      email: str(user.email)!,
      name: str(user.name),
      isOperator: user.operator === true,
    },
    memberships: list
      .filter((m) => str(m.team_id))
      .map((m) => ({
        teamId: str(m.team_id)!,
        teamName: str(m.team_name) ?? str(m.team_id)!,
        role: str(m.role) ?? 'viewer',
      })),
    csrfToken,
  };
}

async function failure(res: Response): Promise<never> {
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as ApiErrorBody;
    message = body.error?.message ?? message;
  } catch {
    // not JSON
  }
  throw new ApiRequestError(message, res.status);
}

export async function login(email: string, password: string): Promise<SessionInfo> {
  const res = await fetch('/api/v1/auth/login', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) return failure(res);
  const s = parseSession(await res.json());
  if (!s) throw new ApiRequestError('Unexpected sign-in response', res.status);
  return s;
}

/** The current session from its cookie, or null when there is none. */
export async function me(): Promise<SessionInfo | null> {
  const res = await fetch('/api/v1/auth/me', { credentials: 'same-origin' });
  if (!res.ok) return null;
  return parseSession(await res.json().catch(() => null));
}

export async function logout(csrfToken: string): Promise<void> {
  await fetch('/api/v1/auth/logout', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'x-csrf-token': csrfToken },
  });
}

export async function acceptInvitation(token: string, body: { name?: string; password?: string }): Promise<void> {
  const res = await fetch(`/api/v1/invitations/${encodeURIComponent(token)}/accept`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) return failure(res);
}
