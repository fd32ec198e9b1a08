/**
 * The response contract checker itself (test/support/response-contract.ts), which every e2e suite
 * relies on: a body or stream event that breaks docs/openapi.json is reported, a conforming one is not.
 * A tiny HTTP server with the recorder serves hand-written answers on the API's paths.
 */
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, Response } from 'express';
import { ResponseContract, responseContractRecorder, takeContractViolations } from '../support/response-contract';

const HEALTH_OK = { status: 'ok' };
const CHUNK = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1767225600,
  model: 'local',
  choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }],
};

describe('response contract checker', () => {
  let server: Server;
  let url: string;
  let answer: { type: string; body: string } = { type: 'application/json', body: '{}' };

  beforeAll(async () => {
    const record = responseContractRecorder();
    server = createServer((req, res) =>
      record(req as Request, res as unknown as Response, () => {
        res.statusCode = 200;
        res.setHeader('content-type', answer.type);
        if (answer.type === 'text/event-stream') {
          // written in pieces, an event split across writes
          const half = Math.floor(answer.body.length / 2);
          res.write(answer.body.slice(0, half));
          res.end(answer.body.slice(half));
        } else res.end(answer.body);
      }),
    );
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  afterEach(() => takeContractViolations()); // what this suite provokes on purpose is not a failure

  async function send(path: string, type: string, body: string, method = 'GET'): Promise<string[]> {
    answer = { type, body };
    await (await fetch(`${url}${path}`, { method })).text();
    await new Promise((r) => setImmediate(r));
    return takeContractViolations();
  }

  it('accepts a body that matches its schema', async () => {
    expect(await send('/health', 'application/json', JSON.stringify(HEALTH_OK))).toEqual([]);
  });

  it('reports an undeclared member, a mistyped member and a missing required member', async () => {
    const [extra] = await send('/health', 'application/json', JSON.stringify({ ...HEALTH_OK, debug: true }));
    expect(extra).toMatch(
      /GET \/health 200 application\/json: body does not match.*must NOT have additional properties "debug"/s,
    );
    const [typed] = await send('/health', 'application/json', JSON.stringify({ status: 1 }));
    expect(typed).toMatch(/\/status must be string/);
    const [missing] = await send('/api/v1/balance', 'application/json', JSON.stringify({}));
    expect(missing).toMatch(/must have required property/);
  });

  it('checks members of referenced schemas, nullable references and path parameters', async () => {
    const file = {
      id: 'file-1',
      object: 'vector_store.file',
      usage_bytes: 0,
      created_at: 1,
      vector_store_id: 'vs_1',
      status: 'completed',
      last_error: null,
      chunking_strategy: { type: 'auto' },
      attributes: null,
    };
    expect(await send('/v1/vector_stores/vs_1/files/file-1', 'application/json', JSON.stringify(file))).toEqual([]);
    const bad = { ...file, last_error: { code: 'server_error', message: 'x', secret: 1 } };
    const [v] = await send('/v1/vector_stores/vs_1/files/file-1', 'application/json', JSON.stringify(bad));
    expect(v).toMatch(/GET \/v1\/vector_stores\/\{vector_store_id\}\/files\/\{file_id\} 200.*\/last_error/s);
  });

  it('validates every event of a stream against the declared event schema ([DONE] excepted)', async () => {
    const good = `data: ${JSON.stringify(CHUNK)}\n\ndata: [DONE]\n\n`;
    expect(await send('/v1/chat/completions', 'text/event-stream', good, 'POST')).toEqual([]);
    const bad = `data: ${JSON.stringify(CHUNK)}\n\ndata: ${JSON.stringify({ ...CHUNK, choices: 'none' })}\n\ndata: [DONE]\n\n`;
    const violations = await send('/v1/chat/completions', 'text/event-stream', bad, 'POST');
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatch(/POST \/v1\/chat\/completions 200 text\/event-stream: event 2 does not match/);
  });

  it('reports an operation, a status or a content type the document does not declare', async () => {
    expect(await send('/v1/unknown', 'application/json', '{}')).toEqual([
      'GET /v1/unknown: the operation is not in docs/openapi.json',
    ]);
    const contract = ResponseContract.fromCommittedDocument();
    expect(contract.validatorFor('GET', '/health', 201, 'application/json')).toEqual({
      undeclared: 'GET /health: status 201 is not declared',
    });
    expect(contract.validatorFor('GET', '/docs-json', 200, 'application/json')).toBeNull();
    // a literal path wins over a parameter
    expect(contract.route('GET', '/api/v1/rerank/cache-stats')).toBe('/api/v1/rerank/cache-stats');
  });
});
