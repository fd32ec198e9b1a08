import request from 'supertest';
import { ADMIN_TOKEN } from '../support/test-app';

export const admin = (r: request.Test) => r.set('authorization', `Bearer ${ADMIN_TOKEN}`);

/** A signed-in browser: the session cookie and CSRF token of one sign-in. */
export interface Browser {
  cookie: string;
  csrf: string;
  userId: string;
  setCookie: string;
}

export async function signIn(
  url: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<Browser> {
  const res = await request(url).post('/api/v1/auth/login').set(headers).send({ email, password });
  if (res.status !== 200) throw new Error(`login ${email}: ${res.status} ${JSON.stringify(res.body)}`);
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('gw_session='));
  if (!setCookie) throw new Error('no session cookie');
  return { cookie: setCookie.split(';')[0], csrf: res.body.csrf_token, userId: res.body.user.id, setCookie };
}

/** A request as the browser: the cookie always, the CSRF header on state-changing methods. */
export function as(url: string, b: Browser) {
  const withCsrf = (r: request.Test) => r.set('cookie', b.cookie).set('x-csrf-token', b.csrf);
  return {
    get: (path: string) => request(url).get(path).set('cookie', b.cookie),
    post: (path: string) => withCsrf(request(url).post(path)),
    patch: (path: string) => withCsrf(request(url).patch(path)),
    put: (path: string) => withCsrf(request(url).put(path)),
    delete: (path: string) => withCsrf(request(url).delete(path)),
  };
}

/** Creates a user through the admin API (operator token); returns its id. */
export async function createUser(url: string, email: string, password: string, operator = false): Promise<string> {
  const res = await admin(request(url).post('/api/v1/admin/users')).send({
    email,
    password,
    operator,
    name: email.split('@')[0],
  });
  if (res.status !== 201) throw new Error(`create user: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** A new user who joined `teamId` with `role` by accepting an invitation (operator token), then signed in. */
export async function joinTeam(
  url: string,
  teamId: string,
  email: string,
  role: 'viewer' | 'member' | 'admin' | 'owner',
  password: string,
): Promise<Browser> {
  const inv = await admin(request(url).post(`/api/v1/teams/${teamId}/invitations`)).send({ email, role });
  if (inv.status !== 201) throw new Error(`invite: ${inv.status} ${JSON.stringify(inv.body)}`);
  const acc = await request(url).post(`/api/v1/invitations/${inv.body.token}/accept`).send({ name: email, password });
  if (acc.status !== 200) throw new Error(`accept: ${acc.status} ${JSON.stringify(acc.body)}`);
  return signIn(url, email, password);
}
