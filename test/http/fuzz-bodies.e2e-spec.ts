/**
 * Empty and garbage bodies against every POST / PUT / PATCH operation of docs/openapi.json, sent to
 * resources that exist and with credentials that pass, so the body is what gets judged: no body,
 * `{}`, `[]`, `null`, a string, malformed JSON, the documented example without each field in turn, and the example with every field of the wrong type. Asserted: no answer is 5xx.
 */
import request from 'supertest';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';
import { admin, Browser, createUser, joinTeam, signIn } from '../accounts/accounts-helpers';
import openapi from '../../docs/openapi.json';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
  example?: Json;
  required?: string[];
}
interface OperationDoc {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: Record<string, unknown>[];
}
const doc = openapi as unknown as {
  paths: Record<string, Record<string, OperationDoc>>;
  components: { schemas: Record<string, Schema> };
};

function resolve(s: Schema | undefined, depth = 0): Schema | undefined {
  if (!s?.$ref || depth > 5) return s;
  return resolve(doc.components.schemas[s.$ref.split('/').pop()!], depth + 1);
}

function exampleOf(s: Schema | undefined, depth = 0): Json {
  const r = resolve(s);
  if (!r || depth > 4) return null;
  if (r.example !== undefined) return r.example;
  if (r.properties)
    return Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [k, exampleOf(v, depth + 1)]));
  if (r.type === 'array') return [exampleOf(r.items, depth + 1)];
  if (r.type === 'string') return 'text';
  if (r.type === 'number' || r.type === 'integer') return 1;
  if (r.type === 'boolean') return true;
  return null;
}

/** The bodies sent to one operation: [label, raw JSON text or undefined for none]. */
function bodiesOf(schema: Schema | undefined): [string, string | undefined][] {
  const out: [string, string | undefined][] = [
    ['no body', undefined],
    ['{}', '{}'],
    ['[]', '[]'],
    ['null', 'null'],
    ['a string', '"x"'],
    ['malformed JSON', '{"a":'],
  ];
  const r = resolve(schema);
  const example = exampleOf(schema);
  if (r?.properties && example && typeof example === 'object' && !Array.isArray(example)) {
    // each field left out in turn (required or not: a field the document calls optional may not be)
    for (const field of Object.keys(example)) {
      const without: Record<string, Json> = { ...example };
      delete without[field];
      out.push([`example without ${field}`, JSON.stringify(without)]);
    }
    const keys = Object.keys(r.properties);
    out.push(['every field an object', JSON.stringify(Object.fromEntries(keys.map((k) => [k, { a: 1 }])))]);
    out.push(['every field a number', JSON.stringify(Object.fromEntries(keys.map((k) => [k, 7])))]);
    out.push(['every field null', JSON.stringify(Object.fromEntries(keys.map((k) => [k, null])))]);
  }
  return out;
}

describe(`fuzz: empty and garbage bodies to every write operation (${backendKind()})`, () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let apiKey: string;
  let operator: Browser;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({ env: { ...openAiEnv(fake), INGEST_CONCURRENCY: '0', AUTH_FAILURE_LIMIT: '0' } });
    const adminClient = new AdminClient(t.url);
    const team = await adminClient.teamWithKey(1000, 'fuzz-bodies');
    apiKey = team.apiKey;
    ids.team = team.teamId;
    // a second key and a second user, so that a body that happens to disable them harms nothing else
    ids.key = (await adminClient.createKey(team.teamId, 'spare')).id;
    ids.user = await createUser(t.url, 'spare@example.com', 'correct horse battery staple');
    await createUser(t.url, 'op@example.com', 'correct horse battery staple', true);
    operator = await signIn(t.url, 'op@example.com', 'correct horse battery staple');
    ids.member = (
      await joinTeam(t.url, team.teamId, 'member@example.com', 'member', 'correct horse battery staple')
    ).userId;
    const created = async (path: string, body: object, auth: 'key' | 'admin'): Promise<string> => {
      const r = request(t.url).post(path).send(body);
      const res = await (auth === 'admin' ? admin(r) : r.set('authorization', `Bearer ${apiKey}`));
      if (res.status !== 201 && res.status !== 200)
        throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return String(res.body.id ?? res.body.token);
    };
    ids.kb = await created('/api/v1/knowledge-bases', { name: 'kb' }, 'key');
    ids.project = await created('/api/v1/projects', { name: 'p' }, 'key');
    ids.vector_store = await created('/v1/vector_stores', { name: 'vs' }, 'key');
    ids.alert = await created(
      `/api/v1/teams/${team.teamId}/alerts`,
      {
        kind: 'balance_below',
        threshold_rub: 1,
        channels: [{ type: 'telegram', bot_token: '123456:ABC-DEF1234ghIkl', chat_id: '1' }],
      },
      'admin',
    );
    ids.invitation = await created(
      `/api/v1/teams/${team.teamId}/invitations`,
      { email: 'invited@example.com', role: 'viewer' },
      'admin',
    );
    const file = await request(t.url)
      .post('/v1/files')
      .set('authorization', `Bearer ${apiKey}`)
      .field('purpose', 'assistants')
      .attach('file', Buffer.from('hello world'), 'hello.txt');
    ids.file = String(file.body.id);
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  /** A real id for a path parameter where one exists, else a well-formed unknown one. */
  function param(path: string, name: string): string {
    if (name === 'team_id') return ids.team;
    if (name === 'user_id') return ids.member;
    if (name === 'key_id') return ids.key;
    if (name === 'alert_id') return ids.alert;
    if (name === 'vector_store_id') return ids.vector_store;
    if (name === 'file_id') return ids.file;
    if (name === 'token') return ids.invitation;
    if (name === 'id') {
      if (path.startsWith('/api/v1/admin/users')) return ids.user;
      if (path.startsWith('/api/v1/admin/teams')) return ids.team;
      if (path.startsWith('/api/v1/admin/api-keys')) return ids.key;
      if (path.startsWith('/api/v1/knowledge-bases')) return ids.kb;
      if (path.startsWith('/api/v1/projects')) return ids.project;
    }
    return '00000000-0000-4000-8000-000000000000';
  }

  it('never answers 5xx', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const [template, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!['post', 'put', 'patch'].includes(method)) continue;
        if (template === '/api/v1/auth/logout') continue; // would end the session the others use
        const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(param(template, name)));
        const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
        const headers: Record<string, string> = {};
        if (schemes.includes('admin')) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
        else if (schemes.includes('api-key') || schemes.includes('x-api-key'))
          headers.authorization = `Bearer ${apiKey}`;
        else if (schemes.includes('session')) {
          headers.cookie = operator.cookie;
          headers['x-csrf-token'] = operator.csrf;
        }
        for (const [label, body] of bodiesOf(op.requestBody?.content?.['application/json']?.schema)) {
          const res = await fetch(`${t.url}${path}`, {
            method: method.toUpperCase(),
            headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
            body,
            signal: AbortSignal.timeout(10_000),
          });
          sent++;
          const text = await res.text();
          if (res.status >= 500)
            failures.push(`${method.toUpperCase()} ${template} (${label}) → ${res.status} ${text.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(300);
  }, 90_000);
});
