import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Clock } from '@app/common';
import { mapOpenAiError } from '../openai/openai.errors';
import { ProviderError, SseEvent } from '../types';
import { isProviderAbortError, ProviderAbortError, ProviderHttpClient } from './provider-http.client';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface TestServer {
  url: string;
  /** resolves when the server saw the client side of the current request go away */
  requestClosed: () => Promise<void>;
  close: () => Promise<void>;
}

async function startServer(handler: Handler): Promise<TestServer> {
  let closed: Promise<void> = Promise.resolve();
  const server: Server = createServer((req, res) => {
    closed = new Promise((resolve) => res.on('close', () => resolve()));
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(parts).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    requestClosed: () => closed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function collect(iterable: AsyncIterable<SseEvent>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function expectProviderError(
  error: unknown,
  kind: ProviderError['kind'],
  message: RegExp | string,
  status?: number,
): void {
  expect(error).toBeInstanceOf(ProviderError);
  const e = error as ProviderError;
  expect(e.kind).toBe(kind);
  if (typeof message === 'string') expect(e.message).toBe(message);
  else expect(e.message).toMatch(message);
  expect(e.upstreamStatus).toBe(status);
}

const mapError = (status: number, body: string, headers: Record<string, string>): ProviderError =>
  new ProviderError('invalid_request', `mapped ${status}: ${body} (${headers['x-request-id'] ?? '-'})`, status);

describe('ProviderHttpClient', () => {
  let client: ProviderHttpClient;
  let server: TestServer | undefined;

  beforeEach(() => {
    client = new ProviderHttpClient();
  });
  afterEach(async () => {
    await client.close();
    await server?.close();
    server = undefined;
  });

  describe('postJson', () => {
    it('sends the JSON body with the given headers and returns status, lower-cased headers and parsed JSON', async () => {
      let seen: { method?: string; auth?: string; type?: string; body?: string } = {};
      server = await startServer((req, res, body) => {
        seen = { method: req.method, auth: req.headers.authorization, type: req.headers['content-type'], body };
        res.writeHead(200, { 'Content-Type': 'application/json', 'X-Request-Id': 'req_1' });
        res.end('{"ok":true,"n":[1,2]}');
      });
      const result = await client.postJson(
        server.url,
        { authorization: 'Bearer sk-test' },
        { model: 'm', messages: [] },
        { timeoutMs: 2000 },
      );
      expect(seen).toEqual({
        method: 'POST',
        auth: 'Bearer sk-test',
        type: 'application/json',
        body: '{"model":"m","messages":[]}',
      });
      expect(result.status).toBe(200);
      expect(result.json).toEqual({ ok: true, n: [1, 2] });
      expect(result.headers['x-request-id']).toBe('req_1');
      expect(result.headers['content-type']).toBe('application/json');
    });

    it("hands a non-2xx answer (status, body text, headers) to the adapter's mapError", async () => {
      server = await startServer((_req, res) => {
        res.writeHead(500, { 'x-request-id': 'req_9' });
        res.end('{"error":{"message":"boom"}}');
      });
      const error = await rejection(client.postJson(server.url, {}, {}, { timeoutMs: 2000, mapError }));
      expectProviderError(error, 'invalid_request', 'mapped 500: {"error":{"message":"boom"}} (req_9)', 500);
    });

    it("hands mapError the gateway's clock, which reads an HTTP-date Retry-After", async () => {
      const at = Date.parse('2025-08-01T12:00:00Z');
      const clocked = new ProviderHttpClient(undefined, { now: () => at } as Clock);
      server = await startServer((_req, res) => {
        res.writeHead(429, { 'retry-after': 'Fri, 01 Aug 2025 12:00:30 GMT' });
        res.end('{"error":{"message":"slow down"}}');
      });
      try {
        const error = await rejection(
          clocked.postJson(server.url, {}, {}, { timeoutMs: 2000, mapError: mapOpenAiError }),
        );
        expect(error).toBeInstanceOf(ProviderError);
        expect((error as ProviderError).retryAfterSeconds).toBe(30);
      } finally {
        await clocked.close();
      }
    });

    it('maps a non-2xx answer by status when no mapError is given', async () => {
      server = await startServer((_req, res) => {
        res.writeHead(503);
        res.end('service unavailable');
      });
      const error = await rejection(client.postJson(server.url, {}, {}, { timeoutMs: 2000 }));
      expectProviderError(error, 'upstream', 'Upstream returned HTTP 503: service unavailable', 503);
    });

    it('turns an unparsable 2xx body into ProviderError(upstream)', async () => {
      server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id":"chatcmpl-1","choi');
      });
      const error = await rejection(client.postJson(server.url, {}, {}, { timeoutMs: 2000 }));
      expectProviderError(error, 'upstream', 'Upstream returned an unparsable JSON body', 200);
    });

    it('turns a slow server into ProviderError(timeout)', async () => {
      server = await startServer(() => {
        // never answers
      });
      const started = Date.now();
      const error = await rejection(client.postJson(server.url, {}, {}, { timeoutMs: 150 }));
      expectProviderError(error, 'timeout', 'Upstream did not answer within 150 ms (waiting for response)');
      expect(Date.now() - started).toBeLessThan(1500);
      await server.requestClosed();
    });

    it('turns a reset connection into ProviderError(upstream)', async () => {
      server = await startServer((req) => req.socket.destroy());
      const error = await rejection(client.postJson(server.url, {}, {}, { timeoutMs: 2000 }));
      expectProviderError(error, 'upstream', /^Upstream request failed: /);
    });

    it('turns a refused connection into ProviderError(upstream)', async () => {
      const probe = await startServer(() => undefined);
      const url = probe.url;
      await probe.close();
      const error = await rejection(client.postJson(url, {}, {}, { timeoutMs: 2000 }));
      expectProviderError(error, 'upstream', /^Upstream request failed: .*ECONNREFUSED/);
    });

    it('rethrows a caller abort as ProviderAbortError and cancels the upstream request', async () => {
      server = await startServer(() => undefined);
      const controller = new AbortController();
      const pending = client.postJson(server.url, {}, {}, { timeoutMs: 5000, signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      const error = await rejection(pending);
      expect(error).toBeInstanceOf(ProviderAbortError);
      expect(isProviderAbortError(error)).toBe(true);
      expect((error as Error).name).toBe('AbortError');
      expect(error).not.toBeInstanceOf(ProviderError);
      await server.requestClosed();
    });

    it('rejects at once when the signal is already aborted, sending nothing upstream', async () => {
      let received = 0;
      server = await startServer((_req, res) => {
        received++;
        res.end('{}');
      });
      const error = await rejection(
        client.postJson(server.url, {}, {}, { timeoutMs: 5000, signal: AbortSignal.abort() }),
      );
      expect(error).toBeInstanceOf(ProviderAbortError);
      // the upstream request is aborted before undici sends it: the server never sees it
      expect((await client.postJson(server.url, {}, {}, { timeoutMs: 5000 })).status).toBe(200);
      expect(received).toBe(1);
    });
  });

  describe('postStream', () => {
    it('yields parsed SSE events from a chunked stream', async () => {
      server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"a":');
        setTimeout(() => res.write('1}\n\n: keep-alive\n\nevent: done\r\n'), 10);
        setTimeout(() => res.end('data: [DONE]\r\n\r\n'), 20);
      });
      const stream = await client.postStream(server.url, {}, { stream: true }, { timeoutMs: 2000 });
      expect(await collect(stream)).toEqual([{ data: '{"a":1}' }, { event: 'done', data: '[DONE]' }]);
    });

    it('sends accept: text/event-stream', async () => {
      let accept: string | undefined;
      server = await startServer((req, res) => {
        accept = req.headers.accept;
        res.end('data: x\n\n');
      });
      expect(await collect(await client.postStream(server.url, {}, {}, { timeoutMs: 2000 }))).toEqual([{ data: 'x' }]);
      expect(accept).toBe('text/event-stream');
    });

    it('throws the mapped error before iterating on a non-2xx answer', async () => {
      server = await startServer((_req, res) => {
        res.writeHead(429, { 'retry-after': '3' });
        res.end('slow down');
      });
      const error = await rejection(client.postStream(server.url, {}, {}, { timeoutMs: 2000, mapError }));
      expectProviderError(error, 'invalid_request', 'mapped 429: slow down (-)', 429);
    });

    it('turns a connection reset mid-stream into ProviderError(upstream) after the events already received', async () => {
      server = await startServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        setTimeout(() => req.socket.destroy(), 30);
      });
      const stream = await client.postStream(server.url, {}, {}, { timeoutMs: 2000 });
      const seen: SseEvent[] = [];
      const error = await rejection(
        (async () => {
          for await (const e of stream) seen.push(e);
        })(),
      );
      expect(seen).toEqual([{ data: 'first' }]);
      expectProviderError(error, 'upstream', /^Upstream stream broke: /);
    });

    it('times out when the response headers do not arrive in time', async () => {
      server = await startServer(() => undefined);
      const error = await rejection(client.postStream(server.url, {}, {}, { timeoutMs: 100 }));
      expectProviderError(error, 'timeout', 'Upstream did not answer within 100 ms (waiting for response headers)');
    });

    it('times out on an idle gap between chunks and closes the upstream request', async () => {
      server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 1\n\n');
        setTimeout(() => res.write('data: 2\n\n'), 50);
        // then silence
      });
      const stream = await client.postStream(server.url, {}, {}, { timeoutMs: 200 });
      const seen: SseEvent[] = [];
      const error = await rejection(
        (async () => {
          for await (const e of stream) seen.push(e);
        })(),
      );
      expect(seen).toEqual([{ data: '1' }, { data: '2' }]);
      expectProviderError(error, 'timeout', 'Upstream did not answer within 200 ms (waiting for idle stream)');
      await server.requestClosed();
    });

    it('does not count time spent by a slow consumer as upstream idle time', async () => {
      server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('data: 1\n\ndata: 2\n\n');
      });
      const stream = await client.postStream(server.url, {}, {}, { timeoutMs: 50 });
      const seen: string[] = [];
      for await (const e of stream) {
        seen.push(e.data);
        await new Promise((r) => setTimeout(r, 120));
      }
      expect(seen).toEqual(['1', '2']);
    });

    it('cancels the upstream request immediately when the caller aborts mid-stream', async () => {
      server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 1\n\n');
        // keeps the stream open
      });
      const controller = new AbortController();
      const stream = await client.postStream(server.url, {}, {}, { timeoutMs: 5000, signal: controller.signal });
      const seen: SseEvent[] = [];
      const started = Date.now();
      const error = await rejection(
        (async () => {
          for await (const e of stream) {
            seen.push(e);
            setTimeout(() => controller.abort(), 20);
          }
        })(),
      );
      expect(seen).toEqual([{ data: '1' }]);
      expect(error).toBeInstanceOf(ProviderAbortError);
      await server.requestClosed();
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('aborting before iteration starts still releases the request', async () => {
      server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 1\n\n');
      });
      const controller = new AbortController();
      const stream = await client.postStream(server.url, {}, {}, { timeoutMs: 5000, signal: controller.signal });
      controller.abort();
      await server.requestClosed();
      const error = await rejection(collect(stream));
      expect(error).toBeInstanceOf(ProviderAbortError);
    });

    it('breaking out of the loop closes the upstream request', async () => {
      server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 1\n\ndata: 2\n\n');
      });
      const stream = await client.postStream(server.url, {}, {}, { timeoutMs: 5000 });
      for await (const e of stream) {
        expect(e).toEqual({ data: '1' });
        break;
      }
      await server.requestClosed();
    });
  });
});
