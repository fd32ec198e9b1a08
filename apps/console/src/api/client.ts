import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/**
 * How the console authenticates its calls. A session (cookie set by the sign-in endpoint; the CSRF
 * token goes on every state-changing request and the chosen team in `x-team-id`), a team API key,
 * or the operator's admin token. Keys and tokens live in memory only — never in web storage — so a
 * reload asks for them again; a session survives a reload through its HttpOnly cookie.
 */
export type Credential =
  | { kind: 'session'; csrfToken: string; teamId: string | null }
  | { kind: 'key'; apiKey: string }
  | { kind: 'admin'; token: string };

let credential: Credential | null = null;

export function setCredential(next: Credential | null): void {
  credential = next;
}

export function currentCredential(): Credential | null {
  return credential;
}

/** The headers that authenticate one request with the current credential. */
export function authHeaders(method: string): Record<string, string> {
  const h: Record<string, string> = {};
  if (!credential) return h;
  if (credential.kind === 'key') h['api-key'] = credential.apiKey;
  if (credential.kind === 'admin') h.authorization = `Bearer ${credential.token}`;
  if (credential.kind === 'session') {
    if (credential.teamId) h['x-team-id'] = credential.teamId;
    if (!['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase())) h['x-csrf-token'] = credential.csrfToken;
  }
  return h;
}

const auth: Middleware = {
  onRequest({ request }) {
    for (const [k, v] of Object.entries(authHeaders(request.method))) request.headers.set(k, v);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? '', credentials: 'same-origin' });
api.use(auth);

/** The gateway's error shape: {"error":{"message","type","code","param"}}. */
export interface ApiErrorBody {
  error?: { message?: string; type?: string; code?: string | null; param?: string | null };
}

export class ApiRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string | null,
    /** the request field the error is about, when the server names one */
    readonly param?: string | null,
  ) {
    super(message);
  }
}

/** Turns an openapi-fetch result into its data, or throws with the server's own message. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  if (result.response.ok) return undefined as T; // 204
  const body = result.error as ApiErrorBody | undefined;
  const message = body?.error?.message ?? `${result.response.status} ${result.response.statusText}`;
  throw new ApiRequestError(message, result.response.status, body?.error?.code, body?.error?.param);
}
