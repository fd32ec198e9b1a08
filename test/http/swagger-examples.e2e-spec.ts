/**
 * Every example in /docs works: for each operation listed in /docs-json this suite
 * sends what Swagger UI's "Try it out" sends — the request body sampled from the schema the way
 * Swagger UI does it (an `example` wins, then `default`, then the first enum value, otherwise a
 * type placeholder such as "string", 0, true or {"additionalProp1": {}}), and the parameters'
 * examples — against the app with the bootstrap key, and fails on any non-2xx.
 *
 * Resources are created first and the ids they return are used for path parameters and id fields
 * (FLOW below), deletions run last. A new endpoint needs nothing here when its examples work on
 * their own; an endpoint that needs an id or a specific order gets one FLOW entry.
 */
import { createHmac } from 'node:crypto';
import { FakeYooKassa } from '../fakes';
import { FakeMcpServer } from '../fakes/fake-mcp';
import { createTestApp, ADMIN_TOKEN, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  example?: Json;
  default?: Json;
  enum?: Json[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  nullable?: boolean;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  example?: Json;
  schema?: Schema;
}

interface MediaType {
  schema?: Schema;
  example?: Json;
  examples?: Record<string, { value?: Json }>;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  security?: Record<string, string[]>[];
}

interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** What one step got back: the parsed body (or text) and the headers. */
interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** Ids captured along the way (`team`, `file`, `vector_store` …). */
type Captured = Record<string, string>;

interface FlowEntry {
  /** lower runs first; the default is 10 for creates (POST without path parameters), 50 for the rest, 90 for DELETE */
  order?: number;
  /** path (and query) parameter → captured name */
  params?: Record<string, string>;
  /** fields merged into the sampled JSON body (values computed from the captured ids) */
  body?: (c: Captured) => Record<string, Json>;
  /** ids to remember from a 2xx answer */
  capture?: (a: Answer) => Captured;
  /** the file sent for binary multipart fields (default UPLOAD) */
  upload?: { name: string; type: string; text: string };
  /** headers computed from the captured values and the exact body sent (e.g. a webhook signature) */
  headers?: (c: Captured, body: string) => Record<string, string>;
}

/** Standard Webhooks: v1,base64(HMAC-SHA256(base64-decoded secret after "whsec_", "id.timestamp.body")). */
function signWebhook(secret: string, body: string): Record<string, string> {
  const msgId = `msg_${Date.now()}`;
  const ts = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const sig = createHmac('sha256', key).update(`${msgId}.${ts}.${body}`).digest('base64');
  return { 'webhook-id': msgId, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` };
}

/** A minimal Telegram Desktop export (single chat), for the messenger-chat upload. */
const TELEGRAM_EXPORT = JSON.stringify({
  name: 'Ops',
  type: 'personal_chat',
  id: 1,
  messages: [
    {
      id: 1,
      type: 'message',
      date: '2026-01-15T10:00:00',
      date_unixtime: '1768471200',
      from: 'Ann',
      from_id: 'user1',
      text: 'The VPN guide is on the wiki.',
    },
  ],
});

/**
 * Operations whose example cannot succeed unchanged on an offline machine, each with the reason and
 * the suite that proves the operation instead. Keep this list short.
 */
const NOT_EXECUTED: Record<string, string> = {
  'POST /api/v1/knowledge-bases/{id}/documents/{doc_id}/retry':
    'needs a document whose ingestion failed, which no example makes (test/knowledge/trusted-ingestion.e2e-spec.ts retries one)',
  'POST /api/v1/projects/{id}/integrations/{integration_id}/sync':
    'needs an external API reachable through the SSRF guard (test/projects/projects.e2e-spec.ts serves one)',
  'DELETE /api/v1/auth/sessions/{id}':
    "would end a session other than the suite's only one (test/accounts/auth.e2e-spec.ts ends one)",
  'DELETE /api/v1/teams/{team_id}/invitations/{id}':
    "the suite's only invitation is accepted first (test/accounts/keys-invitations-audit.e2e-spec.ts revokes one)",
  'POST /api/v1/payments/yookassa/notifications':
    'YooKassa posts it with its own payment object, which no Swagger example carries (test/payments/payments.e2e-spec.ts sends genuine and forged ones)',
  'DELETE /api/v1/teams/{team_id}':
    "the suite's only team keeps the balance its other examples spend, so deleting it is refused (test/accounts/team-delete.e2e-spec.ts deletes one)",
};

const id = (a: Answer): string => String(a.body.id);

/**
 * The explicit ordering table: resources created first, then the operations that use them, deletions
 * last (children before parents). Extend it when an endpoint needs an id from another one.
 */
const FLOW: Record<string, FlowEntry> = {
  'POST /api/v1/admin/teams': { order: 1, capture: (a) => ({ team: id(a) }) },
  'GET /api/v1/admin/teams/{id}': { params: { id: 'team' } },
  'GET /api/v1/admin/teams/{team_id}/pricing': { params: { team_id: 'team' } },
  'PUT /api/v1/admin/teams/{team_id}/pricing': { params: { team_id: 'team' } },
  'POST /api/v1/admin/teams/{id}/api-keys': { order: 2, params: { id: 'team' }, capture: (a) => ({ api_key: id(a) }) },
  'POST /api/v1/admin/teams/{id}/top-ups': { params: { id: 'team' } },
  'GET /api/v1/admin/teams/{id}/top-ups': { params: { id: 'team' } },
  'PATCH /api/v1/admin/teams/{id}': { params: { id: 'team' } },
  'GET /api/v1/admin/teams/{id}/api-keys': { params: { id: 'team' } },
  'GET /api/v1/admin/teams/{id}/usage/summary': { params: { id: 'team' } },
  'GET /api/v1/admin/api-keys/{id}': { params: { id: 'api_key' } },
  'PATCH /api/v1/admin/api-keys/{id}': { params: { id: 'api_key' } },
  'DELETE /api/v1/admin/api-keys/{id}': { order: 99, params: { id: 'api_key' } },

  // people: the bootstrap operator (the login example's credentials) signs in first; session-only
  // operations then carry its cookie and CSRF token
  'POST /api/v1/auth/login': {
    order: 0,
    capture: (a) => ({
      cookie: a.headers
        .getSetCookie()
        .find((c) => c.startsWith('gw_session='))!
        .split(';')[0],
      csrf: String(a.body.csrf_token),
      me: String((a.body.user as { id: string }).id),
    }),
  },
  'POST /api/v1/auth/password': { order: 80 },
  'POST /api/v1/auth/logout': { order: 100 },
  'POST /api/v1/admin/users': { order: 3, capture: (a) => ({ user: id(a) }) },
  'GET /api/v1/admin/users/{id}': { params: { id: 'user' } },
  'PATCH /api/v1/admin/users/{id}': { params: { id: 'user' } },
  'POST /api/v1/teams/{team_id}/invitations': {
    order: 20,
    capture: (a) => ({ invitation: id(a), invitation_token: String(a.body.token) }),
  },
  'GET /api/v1/invitations/{token}': { order: 25, params: { token: 'invitation_token' } },
  'POST /api/v1/invitations/{token}/accept': { order: 30, params: { token: 'invitation_token' } },
  'PATCH /api/v1/teams/{team_id}/members/{user_id}': { params: { user_id: 'me' } },
  'DELETE /api/v1/teams/{team_id}/members/{user_id}': { order: 90, params: { user_id: 'me' } },
  'POST /api/v1/teams/{team_id}/api-keys': { order: 20, capture: (a) => ({ team_api_key: id(a) }) },
  'PATCH /api/v1/teams/{team_id}/api-keys/{key_id}': { params: { key_id: 'team_api_key' } },
  'DELETE /api/v1/teams/{team_id}/api-keys/{key_id}': { order: 95, params: { key_id: 'team_api_key' } },
  'POST /api/v1/teams/{team_id}/alerts': { order: 20, capture: (a) => ({ alert: id(a) }) },
  'GET /api/v1/teams/{team_id}/alerts/{alert_id}': { params: { alert_id: 'alert' } },
  'PATCH /api/v1/teams/{team_id}/alerts/{alert_id}': { params: { alert_id: 'alert' } },
  'DELETE /api/v1/teams/{team_id}/alerts/{alert_id}': { order: 95, params: { alert_id: 'alert' } },
  'POST /api/v1/teams/{team_id}/alerts/{alert_id}/test': { params: { alert_id: 'alert' } },
  'POST /api/v1/teams/{team_id}/api-keys/{key_id}/rotate': { order: 60, params: { key_id: 'team_api_key' } },

  // MCP: a server registered at the in-test MCP server; the gateway's own endpoint asked for its tools
  'POST /api/v1/teams/{team_id}/mcp-servers': {
    order: 20,
    body: (c) => ({ url: c.mcp_url }),
    capture: (a) => ({ mcp_server: id(a) }),
  },
  'GET /api/v1/teams/{team_id}/mcp-servers/{id}': { params: { id: 'mcp_server' } },
  'PATCH /api/v1/teams/{team_id}/mcp-servers/{id}': { params: { id: 'mcp_server' }, body: (c) => ({ url: c.mcp_url }) },
  'POST /api/v1/teams/{team_id}/mcp-servers/{id}/refresh': { params: { id: 'mcp_server' } },
  'GET /api/v1/teams/{team_id}/mcp-servers/{id}/tools': { params: { id: 'mcp_server' } },
  'POST /api/v1/teams/{team_id}/mcp-servers/{id}/tools/{tool}/call': { params: { id: 'mcp_server' } },
  'DELETE /api/v1/teams/{team_id}/mcp-servers/{id}': { order: 95, params: { id: 'mcp_server' } },
  'POST /mcp': { headers: () => ({ accept: 'application/json, text/event-stream' }) },

  'POST /v1/images/generations': {
    order: 5,
    capture: (a) => {
      const url = new URL(String((a.body.data as { url: string }[])[0].url));
      return {
        image: url.pathname.split('/').pop()!,
        image_sig: url.searchParams.get('sig')!,
        image_expires: url.searchParams.get('expires')!,
      };
    },
  },
  'GET /v1/images/files/{id}': { params: { id: 'image', sig: 'image_sig', expires: 'image_expires' } },

  'POST /v1/files': { order: 3, capture: (a) => ({ file: id(a) }) },
  'GET /v1/files/{id}': { params: { id: 'file' } },
  'GET /v1/files/{id}/content': { params: { id: 'file' } },
  'DELETE /v1/files/{id}': { order: 95, params: { id: 'file' } },

  'POST /v1/vector_stores': { order: 4, capture: (a) => ({ vector_store: id(a) }) },
  'POST /v1/vector_stores/{vector_store_id}/files': {
    order: 20,
    params: { vector_store_id: 'vector_store' },
    body: (c) => ({ file_id: c.file }),
  },
  'POST /v1/vector_stores/{vector_store_id}/file_batches': {
    order: 21,
    params: { vector_store_id: 'vector_store' },
    body: (c) => ({ file_ids: [c.file] }),
    capture: (a) => ({ file_batch: id(a) }),
  },
  'POST /v1/vector_stores/{vector_store_id}/file_batches/{batch_id}/cancel': {
    order: 60,
    params: { vector_store_id: 'vector_store', batch_id: 'file_batch' },
  },
  'DELETE /v1/vector_stores/{vector_store_id}/files/{file_id}': {
    order: 91,
    params: { vector_store_id: 'vector_store', file_id: 'file' },
  },
  'DELETE /v1/vector_stores/{vector_store_id}': { order: 93, params: { vector_store_id: 'vector_store' } },

  'POST /api/v1/knowledge-bases': { order: 4, capture: (a) => ({ knowledge_base: id(a) }) },
  'POST /api/v1/knowledge-bases/{id}/documents': {
    order: 20,
    params: { id: 'knowledge_base' },
    capture: (a) => ({ kb_document: id(a) }),
  },
  'POST /api/v1/knowledge-bases/{id}/links': {
    order: 21,
    params: { id: 'knowledge_base' },
    capture: (a) => ({ kb_link: id(a) }),
  },
  'POST /api/v1/knowledge-bases/{id}/links/{link_id}/refresh': {
    order: 60,
    params: { id: 'knowledge_base', link_id: 'kb_link' },
  },
  'DELETE /api/v1/knowledge-bases/{id}/documents/{doc_id}': {
    order: 91,
    params: { id: 'knowledge_base', doc_id: 'kb_document' },
  },
  'DELETE /api/v1/knowledge-bases/{id}': { order: 93, params: { id: 'knowledge_base' } },

  'POST /api/v1/projects': { order: 5, capture: (a) => ({ project: id(a) }) },
  'POST /api/v1/projects/{id}/files': { order: 20, body: (c) => ({ file_id: c.file }) },
  'POST /api/v1/projects/{id}/links': { order: 20, capture: (a) => ({ link_material: id(a) }) },
  'POST /api/v1/projects/{id}/chats': { order: 20, capture: (a) => ({ material: id(a) }) },
  'POST /api/v1/projects/{id}/knowledge-bases': { order: 20, body: (c) => ({ knowledge_base_id: c.knowledge_base }) },
  'POST /api/v1/projects/{id}/messenger-chats': {
    order: 20,
    upload: { name: 'result.json', type: 'application/json', text: TELEGRAM_EXPORT },
  },
  'POST /api/v1/projects/{id}/integrations': {
    order: 20,
    capture: (a) => ({ integration: id(a), webhook_secret: String(a.body.secret) }),
  },
  'POST /api/v1/hooks/{integration_id}': {
    order: 30,
    params: { integration_id: 'integration' },
    headers: (c, body) => signWebhook(c.webhook_secret, body),
  },
  'POST /api/v1/projects/{id}/materials/{material_id}/refresh': {
    params: { id: 'project', material_id: 'link_material' },
  },
  'DELETE /api/v1/projects/{id}/materials/{material_id}': {
    order: 90,
    params: { id: 'project', material_id: 'material' },
  },
  'DELETE /api/v1/projects/{id}/knowledge-bases/{kb_id}': {
    order: 90,
    params: { id: 'project', kb_id: 'knowledge_base' },
  },
  'DELETE /api/v1/projects/{id}': { order: 92, params: { id: 'project' } },

  'POST /v1/responses': {
    order: 6,
    capture: (a) => ({ response: id(a), logged_request: String(a.headers.get('x-request-id')) }),
  },
  'GET /v1/responses/{response_id}': { params: { response_id: 'response' } },
  'GET /v1/responses/{response_id}/input_items': { params: { response_id: 'response' } },
  'DELETE /v1/responses/{response_id}': { order: 94, params: { response_id: 'response' } },
  // the request log's record of that call (written within REQUEST_LOG_FLUSH_MS)
  'GET /api/v1/requests/{id}': { order: 97, params: { id: 'logged_request' } },

  // documents: the seller's and the team's requisites before an invoice; a statement with no payments
  'PUT /api/v1/admin/seller': { order: 5 },
  'PUT /api/v1/teams/{team_id}/requisites': { order: 5 },
  'POST /api/v1/teams/{team_id}/invoices': { order: 6, capture: (a) => ({ invoice: id(a) }) },
  'GET /api/v1/teams/{team_id}/invoices/{invoice_id}/pdf': { params: { invoice_id: 'invoice' } },
  'POST /api/v1/admin/invoices/{id}/mark-paid': { order: 60, params: { id: 'invoice' } },
  'POST /api/v1/admin/bank-statements': {
    order: 7,
    upload: {
      name: 'kl_to_1c.txt',
      type: 'text/plain',
      text: '1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=UTF-8\r\nРасчСчет=40702810438000034726\r\nКонецФайла\r\n',
    },
    capture: (a) => ({ statement: id(a) }),
  },
  'GET /api/v1/admin/bank-statements/{id}': { params: { id: 'statement' } },

  // payments (against the in-test YooKassa) and redemption codes: one code redeemed, another disabled
  'POST /api/v1/teams/{team_id}/payments': { order: 20, capture: (a) => ({ payment: id(a) }) },
  'GET /api/v1/teams/{team_id}/payments/{payment_id}': { params: { payment_id: 'payment' } },
  'POST /api/v1/admin/redemption-codes': {
    capture: (a) => {
      const codes = a.body.codes as { id: string; code: string }[];
      return { redemption_code: codes[0].code, unused_code: codes[1].id };
    },
  },
  'POST /api/v1/teams/{team_id}/redeem': { order: 30, body: (c) => ({ code: c.redemption_code }) },
  'DELETE /api/v1/admin/redemption-codes/{id}': { params: { id: 'unused_code' } },
};

/** Path parameters named like this take the captured id of the same resource unless FLOW says otherwise. */
const PARAM_DEFAULTS: [RegExp, string, string][] = [
  [/^\/api\/v1\/teams\/\{team_id\}/, 'team_id', 'team'],
  [/^\/v1\/vector_stores\/\{vector_store_id\}/, 'vector_store_id', 'vector_store'],
  [/^\/v1\/vector_stores\/\{vector_store_id\}\/files\/\{file_id\}/, 'file_id', 'file'],
  [/^\/v1\/vector_stores\/\{vector_store_id\}\/file_batches\/\{batch_id\}/, 'batch_id', 'file_batch'],
  [/^\/api\/v1\/knowledge-bases\/\{id\}/, 'id', 'knowledge_base'],
  [/^\/api\/v1\/knowledge-bases\/\{id\}\/documents\/\{doc_id\}/, 'doc_id', 'kb_document'],
  [/^\/api\/v1\/projects\/\{id\}/, 'id', 'project'],
  [/^\/api\/v1\/projects\/\{id\}\/materials\/\{material_id\}/, 'material_id', 'material'],
];

/** A small valid upload for multipart binary fields (text is accepted by every upload endpoint). */
const UPLOAD = {
  name: 'paris.txt',
  type: 'text/plain',
  text: 'Paris is the capital of France. The Eiffel Tower is in Paris.',
};

const BOOTSTRAP_KEY = 'sk-swagger-examples-0123456789abcdef';

class Sampler {
  constructor(private readonly doc: Doc) {}

  resolve(s: Schema | undefined, depth = 0): Schema {
    if (!s) return {};
    if (depth > 20) throw new Error('schema nesting too deep');
    if (s.$ref) {
      const name = s.$ref.replace('#/components/schemas/', '');
      const target = this.doc.components?.schemas?.[name];
      if (!target) throw new Error(`unresolved ${s.$ref}`);
      return this.resolve({ ...target, ...(s.example !== undefined ? { example: s.example } : {}) }, depth + 1);
    }
    if (s.allOf) {
      const merged: Schema = {
        ...s,
        allOf: undefined,
        properties: { ...s.properties },
        required: [...(s.required ?? [])],
      };
      for (const part of s.allOf.map((p) => this.resolve(p, depth + 1))) {
        Object.assign(merged.properties!, part.properties);
        merged.required!.push(...(part.required ?? []));
        if (merged.type === undefined && part.type !== undefined) merged.type = part.type;
      }
      return merged;
    }
    return s;
  }

  /** Swagger UI's sample of a schema. */
  sample(raw: Schema | undefined, depth = 0): Json {
    const s = this.resolve(raw, depth);
    if (s.example !== undefined) return s.example;
    if (s.default !== undefined) return s.default;
    if (s.enum?.length) return s.enum[0];
    const alt = s.oneOf ?? s.anyOf;
    if (alt?.length) return this.sample(alt[0], depth + 1);
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    if (type === 'object' || s.properties) {
      const out: Record<string, Json> = {};
      for (const [k, v] of Object.entries(s.properties ?? {})) out[k] = this.sample(v, depth + 1);
      if (!s.properties && s.additionalProperties !== false)
        out.additionalProp1 =
          typeof s.additionalProperties === 'object' ? this.sample(s.additionalProperties, depth + 1) : {};
      return out;
    }
    if (type === 'array') return [this.sample(s.items, depth + 1)];
    if (type === 'string') return s.format === 'date-time' ? new Date(0).toISOString() : 'string';
    if (type === 'integer' || type === 'number') return 0;
    if (type === 'boolean') return true;
    return {};
  }

  /** For a oneOf body, the alternative that fits the media type (binary fields ↔ multipart). */
  bodySchema(media: string, s: Schema | undefined): Schema {
    const r = this.resolve(s);
    const alt = r.oneOf ?? r.anyOf;
    if (!alt) return r;
    const multipart = media === 'multipart/form-data';
    return this.resolve(alt.find((a) => this.hasBinary(this.resolve(a)) === multipart) ?? alt[0]);
  }

  hasBinary(s: Schema): boolean {
    return Object.values(s.properties ?? {}).some((p) => this.resolve(p).format === 'binary');
  }
}

interface Call {
  key: string;
  method: string;
  path: string;
  op: Operation;
  media: string | null;
  order: number;
}

function defaultOrder(method: string, path: string): number {
  if (method === 'DELETE') return 90;
  if (method === 'POST' && !path.includes('{')) return 10;
  return 50;
}

describe(`every Swagger example works (${backendKind()})`, () => {
  let t: TestApp;
  let doc: Doc;
  let yookassa: FakeYooKassa;
  let mcp: FakeMcpServer;

  beforeAll(async () => {
    yookassa = await FakeYooKassa.start();
    mcp = await FakeMcpServer.start();
    t = await createTestApp({
      env: {
        YOOKASSA_SHOP_ID: yookassa.shopId,
        YOOKASSA_SECRET_KEY: yookassa.secretKey,
        YOOKASSA_BASE_URL: yookassa.baseUrl,
        // the payment example's return_url is on this origin
        PAYMENTS_RETURN_URL: 'https://gateway.example.com/billing',
        BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
        BOOTSTRAP_BALANCE_RUB: '1000',
        // the sign-in example's credentials
        BOOTSTRAP_OPERATOR_EMAIL: 'ada@example.com',
        BOOTSTRAP_OPERATOR_PASSWORD: 'correct horse battery staple',
        REQUEST_LOG_FLUSH_MS: '10',
        // the MCP server example is registered at the in-test server on this machine
        OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      },
    });
    doc = (await (await fetch(`${t.url}/docs-json`)).json()) as Doc;
  });
  afterAll(async () => {
    await t?.close();
    await yookassa?.close();
    await mcp?.close();
  });

  it('executes each operation of /docs-json with its examples (creates first, deletes last) and gets a 2xx', async () => {
    const sampler = new Sampler(doc);
    const calls: Call[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(methods)) {
        const method = m.toUpperCase();
        const key = `${method} ${path}`;
        const order = FLOW[key]?.order ?? defaultOrder(method, path);
        const medias = op.requestBody ? Object.keys(op.requestBody.content) : [null];
        if (NOT_EXECUTED[key] !== undefined) continue;
        for (const media of medias) calls.push({ key, method, path, op, media, order });
      }
    }
    calls.sort((a, b) => a.order - b.order);
    expect(calls.length).toBeGreaterThan(50);

    const captured: Captured = { mcp_url: mcp.url };
    const failures: string[] = [];
    for (const call of calls) {
      const label = `${call.key}${call.media ? ` (${call.media})` : ''}`;
      let prepared: { url: string; init: RequestInit };
      try {
        prepared = prepare(sampler, call, captured);
      } catch (err) {
        failures.push(`${label}: no usable example — ${(err as Error).message}`);
        continue;
      }
      const res = await fetch(prepared.url, prepared.init);
      const text = await res.text();
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = { text };
      }
      if (res.status < 200 || res.status > 299) {
        failures.push(`${label} → ${res.status} ${text.slice(0, 300)}`);
        continue;
      }
      const capture = FLOW[call.key]?.capture;
      if (capture) Object.assign(captured, capture({ status: res.status, body, headers: res.headers }));
    }
    expect(failures).toEqual([]);
  }, 120_000);

  function prepare(sampler: Sampler, call: Call, captured: Captured): { url: string; init: RequestInit } {
    const flow = FLOW[call.key] ?? {};
    const valueOf = (p: Parameter): string | undefined => {
      const name =
        flow.params?.[p.name] ??
        (p.in === 'path'
          ? PARAM_DEFAULTS.find(([re, param]) => param === p.name && re.test(call.path))?.[2]
          : undefined);
      if (name !== undefined) {
        if (captured[name] === undefined)
          throw new Error(
            `parameter ${p.name} needs the captured "${name}", which no earlier step produced (see FLOW)`,
          );
        return captured[name];
      }
      const example = p.example ?? p.schema?.example;
      if (example !== undefined && example !== null) return String(example);
      if (p.required) throw new Error(`required ${p.in} parameter "${p.name}" has no example`);
      return undefined;
    };
    let path = call.path;
    const query = new URLSearchParams();
    const headers: Record<string, string> = {};
    for (const p of call.op.parameters ?? []) {
      if (p.in === 'header' && flow.headers) continue; // computed from the body below
      const v = valueOf(p);
      if (v === undefined) continue;
      if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(v));
      else if (p.in === 'query') query.set(p.name, v);
      else if (p.in === 'header') headers[p.name] = v;
    }
    const schemes = (call.op.security ?? []).flatMap((s) => Object.keys(s));
    if (schemes.includes('admin')) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
    else if (schemes.includes('api-key')) headers['api-key'] = BOOTSTRAP_KEY;
    else if (schemes.includes('session') && captured.cookie) {
      headers.cookie = captured.cookie;
      headers['x-csrf-token'] = captured.csrf;
    } else if (schemes.length) headers['api-key'] = BOOTSTRAP_KEY;

    let body: RequestInit['body'];
    if (call.media) {
      const media = call.op.requestBody!.content[call.media];
      const schema = sampler.bodySchema(call.media, media.schema);
      const example = media.example ?? Object.values(media.examples ?? {})[0]?.value;
      let sampled = example !== undefined ? example : sampler.sample(schema);
      if (flow.body) sampled = { ...(sampled as Record<string, Json>), ...flow.body(captured) };
      if (call.media === 'application/json') {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(sampled);
        if (flow.headers) Object.assign(headers, flow.headers(captured, body));
      } else if (call.media === 'multipart/form-data') {
        const form = new FormData();
        for (const [k, v] of Object.entries(schema.properties ?? {})) {
          const upload = flow.upload ?? UPLOAD;
          if (sampler.resolve(v).format === 'binary')
            form.append(k, new Blob([upload.text], { type: upload.type }), upload.name);
          else {
            const value = (sampled as Record<string, Json>)[k];
            if (value !== undefined && value !== null)
              form.append(k, typeof value === 'string' ? value : JSON.stringify(value));
          }
        }
        body = form;
      } else {
        throw new Error(`request media type ${call.media} is not handled by this suite`);
      }
    }
    const qs = query.toString();
    return { url: `${t.url}${path}${qs ? `?${qs}` : ''}`, init: { method: call.method, headers, body } };
  }
});
