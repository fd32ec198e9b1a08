/** /docs-json documents a response schema for every 2xx answer that has a body. */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

interface Op {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

interface FullOp extends Op {
  summary?: string;
  requestBody?: unknown;
  parameters?: { in: string }[];
  security?: unknown[];
}

describe(`OpenAPI document (${backendKind()})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('every operation has a 2xx response, with a schema unless it is 204', async () => {
    const doc = (await (await fetch(`${t.url}/docs-json`)).json()) as { paths: Record<string, Record<string, Op>> };
    const missing: string[] = [];
    let operations = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        operations++;
        const codes = Object.keys(op.responses ?? {}).filter((c) => /^2\d\d$/.test(c));
        if (codes.length === 0) missing.push(`${method.toUpperCase()} ${path}: no 2xx response`);
        for (const c of codes) {
          if (c === '204') continue;
          const content = op.responses![c].content ?? {};
          if (!Object.values(content).some((m) => m.schema))
            missing.push(`${method.toUpperCase()} ${path} ${c}: no schema`);
        }
      }
    }
    expect(operations).toBeGreaterThan(40);
    expect(missing).toEqual([]);
  });

  it('docs/openapi.json (written by `npm run openapi` without a server or database) is the document /docs-json serves', async () => {
    const served = await (await fetch(`${t.url}/docs-json`)).json();
    const committed = JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8'));
    expect(committed).toEqual(served);
  });

  it('every operation has a summary, and declares 400/401/404/413/5xx answers with the error schema where they apply', async () => {
    const doc = (await (await fetch(`${t.url}/docs-json`)).json()) as {
      paths: Record<string, Record<string, FullOp>>;
    };
    const problems: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      // the Anthropic-compatible paths answer errors in Anthropic's shape
      const errorSchema = {
        $ref: `#/components/schemas/${path.startsWith('/v1/messages') ? 'MessagesErrorDto' : 'ErrorResponseDto'}`,
      };
      for (const [method, op] of Object.entries(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        if (!op.summary?.trim()) problems.push(`${name}: no summary`);
        const expected = ['500'];
        if (op.requestBody) expected.push('400', '413');
        if ((op.parameters ?? []).some((p) => p.in === 'path')) expected.push('400', '404');
        if ((op.security ?? []).length) expected.push('401');
        for (const code of expected) if (!op.responses?.[code]) problems.push(`${name}: ${code} not declared`);
        for (const [code, r] of Object.entries(op.responses ?? {})) {
          if (/^[23]/.test(code) || (path === '/ready' && code === '503')) continue;
          if (JSON.stringify(r.content?.['application/json']?.schema) !== JSON.stringify(errorSchema))
            problems.push(`${name} ${code}: not the error schema`);
        }
      }
    }
    expect(problems).toEqual([]);
    // operations that hold money declare the refusals (402 balance, 429 rate limit) and upstream failures
    for (const path of ['/v1/chat/completions', '/api/v1/chat', '/v1/responses', '/v1/embeddings', '/v1/rerank'])
      expect(Object.keys(doc.paths[path].post.responses ?? {})).toEqual(
        expect.arrayContaining(['402', '429', '502', '503', '504']),
      );
  });

  it('declares scalar members as scalars: no member with a string, number or boolean example is typed object', async () => {
    const doc = (await (await fetch(`${t.url}/docs-json`)).json()) as {
      components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>> }> };
    };
    const wrong: string[] = [];
    for (const [name, schema] of Object.entries(doc.components.schemas))
      for (const [prop, p] of Object.entries(schema.properties ?? {}))
        if (p.type === 'object' && ['string', 'number', 'boolean'].includes(typeof p.example))
          wrong.push(`${name}.${prop}`);
    expect(wrong).toEqual([]);
  });
});

const CLI = join(__dirname, '../../dist/apps/api/src/openapi-cli.js');

// needs `npm run build` (CI builds first); skipped when dist/ is missing, like the README suite
(existsSync(CLI) ? describe : describe.skip)('npm run openapi (the built CLI)', () => {
  it('writes the committed document with no database, cache or port: unreachable Postgres and Redis configured', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'gw-openapi-')), 'openapi.json');
    const env = {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      REDIS_URL: 'redis://127.0.0.1:1',
    };
    const started = Date.now();
    await promisify(execFile)(process.execPath, [CLI, out], { env, timeout: 60_000 });
    expect(Date.now() - started).toBeLessThan(30_000); // no connection attempt to time out
    const committed = JSON.parse(readFileSync(join(__dirname, '../../docs/openapi.json'), 'utf8'));
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(committed);
  });
});
