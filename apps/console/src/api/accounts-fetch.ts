import { ApiRequestError, authHeaders, type ApiErrorBody } from './client';

/**
 * Calls of the accounts endpoints (teams, members, invitations, team keys, audit log) with the
 * session's headers. They are typed by the caller's generated schema once the OpenAPI document
 * lists them; until then their answers are read field by field where used.
 */
export async function accountsFetch<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...authHeaders(method) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) {
    const err = (await res.json().catch(() => null)) as ApiErrorBody | null;
    throw new ApiRequestError(err?.error?.message ?? `${res.status} ${res.statusText}`, res.status, err?.error?.code);
  }
  return (res.status === 204 ? undefined : await res.json()) as T;
}
