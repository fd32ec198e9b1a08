/**
 * Null for a field that is not nullable is a 400 naming the field, for every JSON body of the API.
 * The table is the gateway's own OpenAPI document: every POST/PUT/PATCH operation with a JSON body,
 * every property of its schema (and of nested object schemas) that is not declared `nullable` is sent
 * as null on its own; the answer must be 400 `invalid_value` with `param` = that field's path, before
 * anything is written (`PATCH /api/v1/projects/{id}` with `{"name":null}` used to answer 500 from the
 * database's NOT NULL constraint). Nullable fields keep accepting null.
 */
import request from 'supertest';
import { FakeOpenAI } from '../fakes';
import { as, Browser, createUser, signIn } from '../accounts/accounts-helpers';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';

interface Schema {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
}
interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
type OpenApi = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

interface Case {
  method: 'post' | 'put' | 'patch';
  path: string;
  body: unknown;
  param: string;
}

describe(`null for a non-nullable body field → 400 with param (${backendKind()})`, () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let apiKey: string;
  let teamId: string;
  let keyId: string;
  let doc: OpenApi;
  const cases: Case[] = [];
  const nullable: Case[] = [];

  const resolve = (s: Schema | undefined): Schema | undefined => {
    if (!s) return undefined;
    if (s.$ref) return resolve(doc.components.schemas[s.$ref.replace('#/components/schemas/', '')]);
    if (s.allOf?.length === 1) return { ...resolve(s.allOf[0]), nullable: s.nullable };
    return s;
  };

  /** One case per property: null at that property, nested objects and array items reached by wrapping. */
  const collect = (
    schema: Schema | undefined,
    wrap: (v: unknown) => unknown,
    prefix: string,
    emit: (param: string, body: unknown, isNullable: boolean) => void,
    depth = 0,
  ): void => {
    const s = resolve(schema);
    if (!s?.properties || depth > 3) return;
    for (const [name, raw] of Object.entries(s.properties)) {
      const prop = resolve(raw) ?? raw;
      const path = prefix ? `${prefix}.${name}` : name;
      emit(path, wrap({ [name]: null }), raw.nullable === true || prop.nullable === true);
      if (prop.properties) collect(prop, (v) => wrap({ [name]: v }), path, emit, depth + 1);
      const item = resolve(prop.items);
      if (prop.type === 'array' && item?.properties)
        collect(item, (v) => wrap({ [name]: [v] }), `${path}[0]`, emit, depth + 1);
    }
  };

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    t = await createTestApp({ env: openAiEnv(fake) });
    ({ apiKey, teamId, keyId } = await new AdminClient(t.url).teamWithKey(10));
    doc = (await request(t.url).get('/docs-json')).body as OpenApi;
    for (const [rawPath, ops] of Object.entries(doc.paths)) {
      for (const method of ['post', 'put', 'patch'] as const) {
        const schema = ops[method]?.requestBody?.content?.['application/json']?.schema;
        // /mcp takes any JSON-RPC message: the MCP transport checks it and answers in JSON-RPC
        if (!schema || rawPath === '/mcp') continue;
        // path parameters: ids of the right shape that need not exist (the body is checked first)
        const path = rawPath
          .replace('{teamId}', teamId)
          .replace('{team_id}', teamId)
          .replace('{keyId}', keyId)
          .replace(/\{[^}]+\}/g, 'does-not-exist');
        collect(
          schema,
          (v) => v,
          '',
          (param, body, isNullable) => (isNullable ? nullable : cases).push({ method, path, body, param }),
        );
      }
    }
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  // the account routes take a signed-in session (cookie + CSRF), made once when first needed
  let browser: Browser | undefined;
  const send = async (c: Case) => {
    if (c.path.startsWith('/api/v1/auth/') && c.path !== '/api/v1/auth/login') {
      if (!browser) {
        await createUser(t.url, 'nulls@example.com', 'null-fields-password');
        browser = await signIn(t.url, 'nulls@example.com', 'null-fields-password');
      }
      return as(t.url, browser)
        [c.method === 'put' ? 'patch' : c.method](c.path)
        .send(c.body as object);
    }
    // the admin API and the people API (teams, audit log) take the operator token
    const auth = /^\/api\/v1\/(admin|teams|audit-log)(\/|$)/.test(c.path)
      ? `Bearer ${ADMIN_TOKEN}`
      : c.path.startsWith('/v1/')
        ? `Bearer ${apiKey}`
        : `api-key ${apiKey}`;
    return request(t.url)
      [c.method](c.path)
      .set('authorization', auth)
      .send(c.body as object);
  };

  it('covers every JSON body of the API (the table is not empty)', () => {
    const operations = new Set(cases.map((c) => `${c.method} ${c.path}`));
    expect(operations.size).toBeGreaterThan(25);
    expect(cases.map((c) => `${c.method} ${c.path} ${c.param}`)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^patch \/api\/v1\/projects\/does-not-exist name$/),
        expect.stringMatching(/^patch \/api\/v1\/projects\/does-not-exist mode$/),
        expect.stringMatching(/^post \/v1\/chat\/completions messages$/),
        expect.stringMatching(/^post \/api\/v1\/chat messages\[0\]\.role$/),
        expect.stringMatching(/^post \/v1\/vector_stores\/does-not-exist\/file_batches files\[0\]\.file_id$/),
        expect.stringMatching(/^post \/v1\/vector_stores\/does-not-exist\/search ranking_options\.ranker$/),
      ]),
    );
  });

  it('every non-nullable field sent as null → 400 invalid_value naming it, nothing sent upstream', async () => {
    const wrong: string[] = [];
    for (const c of cases) {
      const res = await send(c);
      // the Anthropic Messages path answers in Anthropic's error shape, which has no param or code:
      // there the message names the field
      const anthropic = c.path.startsWith('/v1/messages');
      const ok =
        res.status === 400 &&
        res.body?.error?.type === 'invalid_request_error' &&
        (anthropic
          ? res.body?.type === 'error' && res.body.error.message === `${c.param} must not be null.`
          : res.body?.error?.param === c.param && res.body?.error?.code === 'invalid_value');
      if (!ok) wrong.push(`${c.method.toUpperCase()} ${c.path} ${c.param}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(wrong).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it('PATCH a project with {"name":null} or {"mode":null} → 400, the project unchanged', async () => {
    const created = await request(t.url)
      .post('/api/v1/projects')
      .set('api-key', apiKey)
      .send({ name: 'kept', mode: 'code_mode' });
    expect(created.status).toBe(201);
    for (const field of ['name', 'mode', 'description', 'rag']) {
      const res = await request(t.url)
        .patch(`/api/v1/projects/${created.body.id}`)
        .set('api-key', apiKey)
        .send({ [field]: null });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_value', param: field });
    }
    const after = await request(t.url).get(`/api/v1/projects/${created.body.id}`).set('api-key', apiKey);
    expect(after.body).toMatchObject({ name: 'kept', mode: 'code_mode' });
  });

  it('fields declared nullable still take null (null clears a key limit)', async () => {
    expect(nullable.map((c) => c.param)).toEqual(expect.arrayContaining(['rpm_limit', 'project_id']));
    const set = await request(t.url)
      .patch(`/api/v1/admin/api-keys/${keyId}`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ rpm_limit: 60 });
    expect(set.status).toBe(200);
    const cleared = await request(t.url)
      .patch(`/api/v1/admin/api-keys/${keyId}`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ rpm_limit: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.rpm_limit).toBeNull();
  });
});
