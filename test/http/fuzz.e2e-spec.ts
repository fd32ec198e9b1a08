/**
 * Fuzz suite: a few thousand generated bad requests across every operation in /docs-json
 * — wrong types, nulls, huge numbers, NUL bytes, unicode, deep nesting, arrays for objects, missing
 * fields, malformed JSON, hostile path ids and query values, with and without credentials.
 * Asserted: no answer is 5xx, every non-2xx answer is in the error shape, and a request refused
 * with a 4xx never reached the upstream provider. Deterministic (seeded), bounded in time.
 */
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FAKE_OPENAI_KEY, openAiEnv } from '../rerank/rerank-helpers';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
  example?: Json;
  oneOf?: Schema[];
  required?: string[];
}
interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string }[];
  body?: Schema;
  admin: boolean;
}

/** mulberry32: small, seeded, deterministic. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const deep = (n: number): Json => (n === 0 ? 1 : { a: deep(n - 1) });
const HOSTILE_VALUES: Json[] = [
  null,
  true,
  0,
  -1,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  1.5,
  '',
  ' ',
  'x'.repeat(5_000),
  'nul\u0000byte',
  '💥\u202e\ud800',
  '../../etc/passwd',
  "'; DROP TABLE teams; --",
  '{"$ne":1}',
  [],
  [null],
  Array.from({ length: 200 }, (_, i) => i),
  {},
  { $ne: 1 },
  { __proto__: { polluted: true } } as unknown as Json,
  deep(40),
  deep(200),
];
const HOSTILE_IDS = [
  '0',
  '-1',
  'null',
  '..',
  '%2e%2e',
  'a'.repeat(300),
  '%00',
  '%F0%9F%92%A5',
  'file-zzz',
  'vs_%27%3B',
  '9999999999999999999999',
];
const HOSTILE_QUERIES = [
  '-1',
  '0',
  '1e309',
  '99999999999999999999999',
  'abc',
  '%00',
  '',
  'true',
  '[]',
  'x'.repeat(2000),
];
const RAW_BODIES = [
  '{',
  '{"a":',
  '[1,2',
  'null',
  '"string"',
  '123',
  '{"a":1}garbage',
  '\u0000',
  '{"a":"\\ud800"}',
  '['.repeat(5000),
];

function resolve(
  doc: { components?: { schemas?: Record<string, Schema> } },
  s: Schema | undefined,
  depth = 0,
): Schema | undefined {
  if (!s || depth > 5) return s;
  if (s.$ref) return resolve(doc, doc.components?.schemas?.[s.$ref.split('/').pop()!], depth + 1);
  return s;
}

function exampleOf(doc: Parameters<typeof resolve>[0], s: Schema | undefined, depth = 0): Json {
  const r = resolve(doc, s);
  if (!r || depth > 4) return null;
  if (r.example !== undefined) return r.example;
  if (r.properties)
    return Object.fromEntries(Object.entries(r.properties).map(([k, v]) => [k, exampleOf(doc, v, depth + 1)]));
  if (r.type === 'array') return [exampleOf(doc, r.items, depth + 1)];
  if (r.type === 'string') return 'text';
  if (r.type === 'number' || r.type === 'integer') return 1;
  if (r.type === 'boolean') return true;
  return null;
}

describe(`fuzz: hostile requests across every operation (${backendKind()})`, () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let apiKey: string;
  let ops: Operation[];
  let doc: Parameters<typeof resolve>[0] & {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: { name: string; in: string }[];
          requestBody?: { content?: Record<string, { schema?: Schema }> };
          security?: Record<string, unknown>[];
        }
      >
    >;
  };

  beforeAll(async () => {
    fake = await FakeOpenAI.start({ apiKey: FAKE_OPENAI_KEY });
    // every request comes from one address and ~7 % carry a wrong key: without AUTH_FAILURE_LIMIT=0
    // the authentication throttle would answer the rest 429 and nothing else would be exercised
    t = await createTestApp({ env: { ...openAiEnv(fake), INGEST_CONCURRENCY: '0', AUTH_FAILURE_LIMIT: '0' } });
    ({ apiKey } = await new AdminClient(t.url).teamWithKey(1000, 'fuzz'));
    doc = (await (await fetch(`${t.url}/docs-json`)).json()) as typeof doc;
    ops = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const json = op.requestBody?.content?.['application/json']?.schema;
        ops.push({
          method: method.toUpperCase(),
          path,
          params: op.parameters ?? [],
          body: json,
          admin: path.startsWith('/api/v1/admin'),
        });
      }
    }
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('thousands of generated bad requests: never 5xx, always the error shape, never an upstream call on 4xx', async () => {
    expect(ops.length).toBeGreaterThan(30);
    const rand = rng(20261122);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const failures: string[] = [];
    const started = Date.now();
    let sent = 0;
    const PER_OP = Math.ceil(3000 / ops.length);
    for (const op of ops) {
      for (let n = 0; n < PER_OP; n++) {
        let path = op.path.replace(/\{([^}]+)\}/g, () => pick(HOSTILE_IDS));
        const query = op.params.filter((p) => p.in === 'query');
        if (query.length && rand() < 0.7)
          path += `?${query.map((q) => `${q.name}=${pick(HOSTILE_QUERIES)}`).join('&')}`;
        const headers: Record<string, string> = {};
        const auth = rand();
        if (auth < 0.85) headers.authorization = `Bearer ${op.admin ? ADMIN_TOKEN : apiKey}`;
        else if (auth < 0.92) headers.authorization = 'Bearer sk-wrong-0000000000000000000';
        let body: string | undefined;
        if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(op.method)) {
          const mode = rand();
          headers['content-type'] = mode < 0.05 ? 'text/plain' : 'application/json';
          if (mode < 0.15) body = pick(RAW_BODIES);
          else {
            const base = exampleOf(doc, op.body);
            let value: Json = base;
            if (
              base &&
              typeof base === 'object' &&
              !Array.isArray(base) &&
              Object.keys(base).length > 0 &&
              mode < 0.85
            ) {
              const keys = Object.keys(base);
              const mutated: Record<string, Json> = { ...base };
              const k = pick(keys);
              if (rand() < 0.15) delete mutated[k];
              else mutated[k] = pick(HOSTILE_VALUES);
              if (rand() < 0.3) mutated[pick(keys)] = pick(HOSTILE_VALUES);
              value = mutated;
            } else value = pick(HOSTILE_VALUES);
            body = JSON.stringify(value);
          }
        }
        const upstreamBefore = fake.requests.length;
        let res: Response;
        try {
          res = await fetch(`${t.url}${path}`, {
            method: op.method,
            headers,
            body,
            signal: AbortSignal.timeout(10_000),
          });
        } catch (err) {
          failures.push(`${op.method} ${path}: transport error ${(err as Error).message}`);
          continue;
        }
        sent++;
        const text = await res.text();
        const where = `${op.method} ${path} ${body?.slice(0, 120) ?? ''} → ${res.status} ${text.slice(0, 200)}`;
        if (res.status >= 500) failures.push(where);
        else if (res.status >= 300) {
          let parsed: { error?: Record<string, unknown> } | undefined;
          try {
            parsed = JSON.parse(text) as { error?: Record<string, unknown> };
          } catch {
            parsed = undefined;
          }
          const e = parsed?.error;
          // the Anthropic-compatible paths answer in Anthropic's shape: {type: "error", error: {type, message}, request_id}
          const anthropicShape = /^\/v1\/messages(\/|$)/.test(path);
          const gatewayShape =
            !!e &&
            typeof e.message === 'string' &&
            typeof e.type === 'string' &&
            'code' in e &&
            'param' in e &&
            Object.keys(parsed!).length === 1;
          // the MCP endpoint: what the HTTP layer refuses (body, key) is in the gateway's shape; what the MCP
          // transport refuses is a JSON-RPC error {jsonrpc, error: {code, message}, id}, as MCP clients expect
          const jsonRpcShape =
            !!e &&
            (parsed as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
            typeof e.code === 'number' &&
            typeof e.message === 'string';
          const ok =
            path === '/mcp'
              ? gatewayShape || jsonRpcShape
              : anthropicShape
                ? !!e &&
                  (parsed as { type?: unknown }).type === 'error' &&
                  typeof e.message === 'string' &&
                  typeof e.type === 'string' &&
                  Object.keys(e).length === 2
                : gatewayShape;
          if (!ok) failures.push(`not in the error shape: ${where}`);
          if (res.status >= 400 && res.status !== 402 && res.status !== 404 && fake.requests.length !== upstreamBefore)
            failures.push(`upstream called for a ${res.status}: ${where}`);
        }
        if (failures.length > 20) break;
      }
      if (failures.length > 20 || Date.now() - started > 90_000) break;
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(2000);
  }, 120_000);
});
