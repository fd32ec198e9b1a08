/** Issue 8: /docs-json documents a response schema for every 2xx answer that has a body. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';

interface Op {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
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
});
