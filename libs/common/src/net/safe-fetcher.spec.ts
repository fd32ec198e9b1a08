/**
 * SafeFetcher against a real HTTP server on 127.0.0.1.
 *
 * Safety net for the test itself: `net.connect` / `tls.connect` are wrapped so that any attempt to
 * open a socket to anything other than 127.0.0.1 throws and is recorded — these tests never send
 * traffic anywhere else, and the "refused before connecting" assertions are checked against it.
 */
import * as http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { Test } from '@nestjs/testing';

import { ApiError } from '../errors/api-error';
import {
  SAFE_FETCHER_OPTIONS,
  SafeFetchError,
  SafeFetcher,
  contentTypeAllowed,
  safeFetchErrorToApiError,
  safeFetcherProviders,
} from './safe-fetcher';
import type { HostResolver, SafeFetchErrorCode, SafeFetcherOptions } from './safe-fetcher';

// ---------------------------------------------------------------------------------------------
// Connection guard
// ---------------------------------------------------------------------------------------------

const connectAttempts: string[] = [];
const tlsAttempts: Array<{ host?: string; servername?: string }> = [];

function hostOf(args: unknown[]): string {
  const first = args[0];
  if (typeof first === 'object' && first !== null && 'host' in first) return String(first.host);
  if (typeof args[1] === 'string') return args[1];
  return 'localhost';
}

beforeAll(() => {
  const realNetConnect = net.connect;
  const realTlsConnect = tls.connect;
  jest.spyOn(net, 'connect').mockImplementation(((...args: unknown[]) => {
    const host = hostOf(args);
    connectAttempts.push(host);
    if (host !== '127.0.0.1') throw new Error(`test guard: refusing to connect to ${host}`);
    return (realNetConnect as (...a: unknown[]) => net.Socket).apply(net, args);
  }) as typeof net.connect);
  jest.spyOn(tls, 'connect').mockImplementation(((...args: unknown[]) => {
    const first = args[0] as tls.ConnectionOptions;
    tlsAttempts.push({ host: first.host, servername: first.servername });
    if (first.host !== '127.0.0.1') throw new Error(`test guard: refusing to connect to ${String(first.host)}`);
    return (realTlsConnect as (...a: unknown[]) => tls.TLSSocket).apply(tls, args);
  }) as typeof tls.connect);
});

afterAll(() => {
  jest.restoreAllMocks();
});

// ---------------------------------------------------------------------------------------------
// Local test server
// ---------------------------------------------------------------------------------------------

interface StreamState {
  sent: number;
  total: number;
  finished: boolean;
  socketClosed: boolean;
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
let server: http.Server;
let port = 0;
let base = '';
let connections = 0;
const requests: Array<{ method?: string; url?: string; headers: http.IncomingHttpHeaders }> = [];
const streams: Record<string, StreamState> = {};

function trackStream(name: string, req: http.IncomingMessage, total: number): StreamState {
  const state: StreamState = { sent: 0, total, finished: false, socketClosed: false };
  streams[name] = state;
  req.socket.once('close', () => {
    state.socketClosed = true;
  });
  return state;
}

function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
  requests.push({ method: req.method, url: req.url, headers: req.headers });
  const url = new URL(req.url ?? '/', 'http://placeholder');
  const path = url.pathname;

  const chain = /^\/chain\/(\d+)$/.exec(path);
  if (chain) {
    const n = Number(chain[1]);
    if (n === 0) {
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    } else {
      res.writeHead(302, { location: `/chain/${n - 1}` }).end();
    }
    return;
  }

  switch (path) {
    case '/ok':
      res.writeHead(200, { 'content-type': 'image/png', 'set-cookie': 'sid=1' }).end(PNG);
      return;
    case '/pdf':
      res.writeHead(200, { 'content-type': 'application/pdf; qs=1' }).end('%PDF-1.7');
      return;
    case '/no-content-type':
      res.writeHead(200).end('raw');
      return;
    case '/html':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html></html>');
      return;
    case '/gzip':
      res.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'gzip' }).end(PNG);
      return;
    case '/not-found':
      res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
      return;
    case '/no-content':
      res.writeHead(204).end();
      return;
    case '/redirect-private':
      res.writeHead(302, { location: 'http://10.1.2.3/' }).end();
      return;
    case '/redirect-metadata':
      res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    case '/redirect-loopback-v6':
      res.writeHead(307, { location: 'http://[::1]/' }).end();
      return;
    case '/redirect-ftp':
      res.writeHead(302, { location: 'ftp://example.com/file' }).end();
      return;
    case '/redirect-userinfo':
      res.writeHead(302, { location: `http://user:pw@127.0.0.1:${port}/ok` }).end();
      return;
    case '/redirect-relative':
      res.writeHead(303, { location: '/ok' }).end();
      return;
    case '/redirect-no-location':
      res.writeHead(302).end();
      return;
    case '/redirect-host': {
      const target = url.searchParams.get('to') ?? 'evil.test';
      res.writeHead(302, { location: `http://${target}:${port}/ok` }).end();
      return;
    }
    case '/big-chunked': {
      // No Content-Length: chunked transfer of 64 MiB, written with back-pressure.
      const state = trackStream('big-chunked', req, 64 * 1024 * 1024);
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      const pump = (): void => {
        while (!state.socketClosed && state.sent < state.total) {
          state.sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        if (state.sent >= state.total && !state.finished) {
          state.finished = true;
          res.end();
        }
      };
      pump();
      return;
    }
    case '/big-declared': {
      // Announces 10 MB, sends 1 KiB, then stalls: an early refusal must not wait for the rest.
      const state = trackStream('big-declared', req, 10_000_000);
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(state.total) });
      res.write(Buffer.alloc(1024, 0x62));
      state.sent = 1024;
      return;
    }
    case '/exact': {
      const size = Number(url.searchParams.get('size') ?? '0');
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(size, 0x63));
      return;
    }
    case '/slow-headers':
      // Never answers; the socket is closed by the client's deadline or by afterAll.
      return;
    case '/slow-body': {
      res.writeHead(200, { 'content-type': 'image/png' });
      const timer = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case '/headers':
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
      return;
    default:
      res.writeHead(500).end();
  }
}

beforeAll(async () => {
  server = http.createServer(handle);
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  connectAttempts.length = 0;
  tlsAttempts.length = 0;
  requests.length = 0;
  connections = 0;
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const allowLoopbackServer = (ip: string): boolean => ip === '127.0.0.1';

/** Resolver from a static table; records every call. Unknown names fail like NXDOMAIN. */
function tableResolver(table: Record<string, string[]>, calls: string[] = []): HostResolver {
  return async (hostname) => {
    calls.push(hostname);
    const entries = table[hostname];
    if (entries === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return entries.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

function testFetcher(options: SafeFetcherOptions = {}): SafeFetcher {
  return SafeFetcher.create({ allowAddress: allowLoopbackServer, ...options });
}

async function expectFailure(promise: Promise<unknown>, code: SafeFetchErrorCode): Promise<SafeFetchError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(SafeFetchError);
  const error = caught as SafeFetchError;
  expect(error.code).toBe(code);
  return error;
}

async function waitFor(predicate: () => boolean, ms = 3000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const IMG = { maxBytes: 1024 * 1024, accept: ['image/'] };

// ---------------------------------------------------------------------------------------------
// Default (product) policy
// ---------------------------------------------------------------------------------------------

describe('SafeFetcher with the default policy', () => {
  const fetcher = SafeFetcher.create();

  it('refuses the loopback test server and never connects to it', async () => {
    const err = await expectFailure(fetcher.fetch(`${base}/ok`, IMG), 'forbidden_address');
    expect(err.details.reason).toBe('loopback');
    expect(err.suggestedHttpStatus).toBe(400);
    expect(requests).toHaveLength(0);
    expect(connections).toBe(0);
    expect(connectAttempts).toEqual([]);
  });

  it('refuses a Nest-constructed instance without options the same way', async () => {
    const viaConstructor = new SafeFetcher();
    await expectFailure(viaConstructor.fetch(`${base}/ok`, IMG), 'forbidden_address');
    const viaNull = new SafeFetcher(null);
    await expectFailure(viaNull.fetch(`${base}/ok`, IMG), 'forbidden_address');
    expect(connections).toBe(0);
  });

  it.each<[string, string]>([
    ['http://10.0.0.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'ipv4-mapped loopback'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://0x7f.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://[fd00:ec2::254]/', 'cloud metadata'],
    ['http://100.100.100.200/latest/meta-data/', 'cloud metadata'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'nat64 cloud metadata'],
    ['http://192.168.1.1:8080/', 'private'],
    ['http://[fe80::1]/', 'link-local'],
    ['https://224.0.0.1/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://localhost/', 'loopback'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'cloud metadata'],
    ['http://METADATA.GOOGLE.INTERNAL./', 'cloud metadata'],
  ])('refuses %s without any connection attempt', async (url, reason) => {
    const calls: string[] = [];
    const guarded = SafeFetcher.create({ resolver: tableResolver({}, calls) });
    const err = await expectFailure(guarded.fetch(url, IMG), 'forbidden_address');
    expect(err.details.reason).toBe(reason);
    expect(calls).toEqual([]); // IP literals and blocked names never reach DNS
    expect(connectAttempts).toEqual([]);
    expect(tlsAttempts).toEqual([]);
  });

  it('refuses a hostname that resolves to 127.0.0.1 and fetches nothing', async () => {
    const calls: string[] = [];
    const guarded = SafeFetcher.create({ resolver: tableResolver({ 'evil.test': ['127.0.0.1'] }, calls) });
    const err = await expectFailure(guarded.fetch(`http://evil.test:${port}/ok`, IMG), 'forbidden_address');
    expect(err.details.reason).toBe('loopback');
    expect(err.details.address).toBe('127.0.0.1');
    expect(err.message).not.toContain('127.0.0.1'); // client-facing message does not leak resolution
    expect(calls).toEqual(['evil.test']);
    expect(requests).toHaveLength(0);
    expect(connectAttempts).toEqual([]);
  });

  it.each<[string[], string]>([
    [['::ffff:127.0.0.1'], 'ipv4-mapped loopback'],
    [['169.254.169.254'], 'cloud metadata'],
    [['10.0.0.7'], 'private'],
    [['fe80::1%eth0'], 'link-local'],
    [['93.184.216.34', '10.0.0.1'], 'private'], // one bad answer poisons the set
    [['2606:4700::1', '::1'], 'loopback'],
    [['not-an-ip'], 'invalid address'],
  ])('refuses a hostname resolving to %j (%s)', async (answers, reason) => {
    const guarded = SafeFetcher.create({ resolver: tableResolver({ 'mixed.test': answers }) });
    const err = await expectFailure(guarded.fetch('http://mixed.test/x', IMG), 'forbidden_address');
    expect(err.details.reason).toBe(reason);
    expect(connectAttempts).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// URL validation
// ---------------------------------------------------------------------------------------------

describe('SafeFetcher URL validation', () => {
  const fetcher = testFetcher();

  it.each([
    'ftp://127.0.0.1/file',
    'file:///etc/passwd',
    'gopher://127.0.0.1:70/',
    `http://user:pass@127.0.0.1:PORT/ok`,
    `http://user@127.0.0.1:PORT/ok`,
    'http://evil.com@127.0.0.1/',
    'not a url',
    '',
    'http://[::1/',
  ])('refuses %s as invalid_url', async (raw) => {
    const url = raw.replace('PORT', String(port));
    const err = await expectFailure(fetcher.fetch(url, IMG), 'invalid_url');
    expect(err.suggestedHttpStatus).toBe(400);
    expect(connectAttempts).toEqual([]);
    expect(requests).toHaveLength(0);
  });

  it('rejects invalid options as programming errors', async () => {
    await expect(fetcher.fetch(`${base}/ok`, { maxBytes: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(fetcher.fetch(`${base}/ok`, { maxBytes: 1.5 })).rejects.toBeInstanceOf(RangeError);
    await expect(fetcher.fetch(`${base}/ok`, { maxBytes: 10, timeoutMs: -1 })).rejects.toBeInstanceOf(RangeError);
    expect(() => SafeFetcher.create({ maxRedirects: -1 })).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------------------------
// Fetching from the allow-listed loopback server
// ---------------------------------------------------------------------------------------------

describe('SafeFetcher with 127.0.0.1 allow-listed (test server)', () => {
  const fetcher = testFetcher();

  it('fetches bytes, content type and final URL', async () => {
    const result = await fetcher.fetch(`${base}/ok`, IMG);
    expect(result.bytes.equals(PNG)).toBe(true);
    expect(result.contentType).toBe('image/png');
    expect(result.finalUrl).toBe(`${base}/ok`);
    expect(connectAttempts).toEqual(['127.0.0.1']);
  });

  it('sends only GET with neutral headers (no cookies or credentials)', async () => {
    const result = await fetcher.fetch(`${base}/headers`, { maxBytes: 4096 });
    const headers = JSON.parse(result.bytes.toString('utf8')) as Record<string, string>;
    expect(requests[0].method).toBe('GET');
    expect(headers.host).toBe(`127.0.0.1:${port}`);
    expect(headers['accept-encoding']).toBe('identity');
    expect(headers).not.toHaveProperty('cookie');
    expect(headers).not.toHaveProperty('authorization');
    expect(headers).not.toHaveProperty('proxy-authorization');
    expect(headers.accept).toBe('*/*');

    await fetcher.fetch(`${base}/ok`, { maxBytes: 4096, accept: ['image/', 'application/pdf'] });
    expect(requests[1].headers.accept).toBe('image/*, application/pdf');
  });

  it("sends the caller's method, headers and body on the first hop only; a redirect is a plain GET without them", async () => {
    const result = await fetcher.fetch(`${base}/headers`, {
      maxBytes: 4096,
      method: 'POST',
      headers: { authorization: 'Bearer t0ken', 'x-api': '1' },
      body: '{"q":1}',
    });
    const headers = JSON.parse(result.bytes.toString('utf8')) as Record<string, string>;
    expect(requests[0].method).toBe('POST');
    expect(headers).toMatchObject({ authorization: 'Bearer t0ken', 'x-api': '1', 'content-length': '7' });

    await fetcher.fetch(`${base}/redirect-relative`, {
      ...IMG,
      method: 'POST',
      headers: { authorization: 'Bearer t0ken' },
      body: 'x',
    });
    expect(requests.slice(1).map((r) => [r.method, r.url, r.headers.authorization])).toEqual([
      ['POST', '/redirect-relative', 'Bearer t0ken'],
      ['GET', '/ok', undefined],
    ]);
  });

  it('does not replay a Set-Cookie from one hop on the next', async () => {
    await fetcher.fetch(`${base}/ok`, IMG);
    await fetcher.fetch(`${base}/ok`, IMG);
    expect(requests.map((r) => r.headers.cookie)).toEqual([undefined, undefined]);
  });

  it('follows a relative redirect', async () => {
    const result = await fetcher.fetch(`${base}/redirect-relative`, IMG);
    expect(result.finalUrl).toBe(`${base}/ok`);
    expect(requests.map((r) => r.url)).toEqual(['/redirect-relative', '/ok']);
    expect(requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('refuses a redirect to http://10.1.2.3/ before connecting to it', async () => {
    const err = await expectFailure(fetcher.fetch(`${base}/redirect-private`, IMG), 'forbidden_address');
    expect(err.details.reason).toBe('private');
    expect(err.details.url).toBe('http://10.1.2.3/');
    expect(connectAttempts).toEqual(['127.0.0.1']);
  });

  it.each([
    ['/redirect-metadata', 'cloud metadata'],
    ['/redirect-loopback-v6', 'loopback'],
  ])('refuses redirect %s (%s)', async (path, reason) => {
    const err = await expectFailure(fetcher.fetch(`${base}${path}`, IMG), 'forbidden_address');
    expect(err.details.reason).toBe(reason);
    expect(connectAttempts).toEqual(['127.0.0.1']);
  });

  it('refuses a redirect to a hostname that resolves to a private address', async () => {
    const calls: string[] = [];
    const guarded = testFetcher({ resolver: tableResolver({ 'evil.test': ['10.0.0.5'] }, calls) });
    const err = await expectFailure(guarded.fetch(`${base}/redirect-host?to=evil.test`, IMG), 'forbidden_address');
    expect(err.details.reason).toBe('private');
    expect(calls).toEqual(['evil.test']);
    expect(connectAttempts).toEqual(['127.0.0.1']);
  });

  it('refuses redirects to non-http schemes and to URLs with userinfo', async () => {
    await expectFailure(fetcher.fetch(`${base}/redirect-ftp`, IMG), 'invalid_url');
    await expectFailure(fetcher.fetch(`${base}/redirect-userinfo`, IMG), 'invalid_url');
  });

  it('treats a redirect without Location as an http_error', async () => {
    const err = await expectFailure(fetcher.fetch(`${base}/redirect-no-location`, IMG), 'http_error');
    expect(err.details.status).toBe(302);
  });

  it('follows a chain of 3 redirects', async () => {
    const result = await fetcher.fetch(`${base}/chain/3`, IMG);
    expect(result.finalUrl).toBe(`${base}/chain/0`);
    expect(requests).toHaveLength(4);
  });

  it('refuses the 4th redirect', async () => {
    const err = await expectFailure(fetcher.fetch(`${base}/chain/4`, IMG), 'too_many_redirects');
    expect(err.suggestedHttpStatus).toBe(400);
    // 4 hops were requested; the 4th answer (a redirect) is refused, /chain/0 is never requested.
    expect(requests.map((r) => r.url)).toEqual(['/chain/4', '/chain/3', '/chain/2', '/chain/1']);
  });

  it('honours a smaller maxRedirects', async () => {
    await expectFailure(testFetcher({ maxRedirects: 0 }).fetch(`${base}/chain/1`, IMG), 'too_many_redirects');
  });

  it('aborts a body without Content-Length as soon as it passes the cap', async () => {
    const maxBytes = 64 * 1024;
    const err = await expectFailure(
      fetcher.fetch(`${base}/big-chunked`, { maxBytes, accept: ['image/'] }),
      'too_large',
    );
    expect(err.suggestedHttpStatus).toBe(413);
    expect(err.details.maxBytes).toBe(maxBytes);
    const state = streams['big-chunked'];
    await waitFor(() => state.socketClosed);
    expect(state.finished).toBe(false);
    expect(state.sent).toBeLessThan(state.total);
  });

  it('rejects early when Content-Length already exceeds the cap', async () => {
    const started = Date.now();
    const err = await expectFailure(
      fetcher.fetch(`${base}/big-declared`, { maxBytes: 1024 * 1024, timeoutMs: 10_000, accept: ['image/'] }),
      'too_large',
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(err.suggestedHttpStatus).toBe(413);
    const state = streams['big-declared'];
    await waitFor(() => state.socketClosed);
    expect(state.sent).toBe(1024);
  });

  it('accepts a body of exactly maxBytes and refuses one byte more', async () => {
    const ok = await fetcher.fetch(`${base}/exact?size=5000`, { maxBytes: 5000 });
    expect(ok.bytes.length).toBe(5000);
    await expectFailure(fetcher.fetch(`${base}/exact?size=5001`, { maxBytes: 5000 }), 'too_large');
  });

  it('times out on a server that never answers', async () => {
    const started = Date.now();
    const err = await expectFailure(fetcher.fetch(`${base}/slow-headers`, { ...IMG, timeoutMs: 300 }), 'timeout');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(err.suggestedHttpStatus).toBe(400);
  });

  it('applies the timeout to the whole fetch, including a slowly dripping body', async () => {
    const started = Date.now();
    await expectFailure(fetcher.fetch(`${base}/slow-body`, { ...IMG, timeoutMs: 400 }), 'timeout');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('counts DNS resolution against the timeout', async () => {
    const hanging = testFetcher({ resolver: () => new Promise(() => undefined) });
    await expectFailure(hanging.fetch('http://hang.test/x', { ...IMG, timeoutMs: 200 }), 'timeout');
    expect(connectAttempts).toEqual([]);
  });

  it.each([
    ['/html', ['image/']],
    ['/pdf', ['image/']],
    ['/no-content-type', ['image/', 'application/pdf']],
    ['/ok', []],
  ])('refuses %s when accept=%j', async (path, accept) => {
    const err = await expectFailure(fetcher.fetch(`${base}${path}`, { maxBytes: 4096, accept }), 'unsupported_type');
    expect(err.suggestedHttpStatus).toBe(400);
  });

  it('accepts exact media types with parameters and defaults a missing type', async () => {
    const pdf = await fetcher.fetch(`${base}/pdf`, { maxBytes: 4096, accept: ['image/', 'application/pdf'] });
    expect(pdf.contentType).toBe('application/pdf; qs=1');
    const raw = await fetcher.fetch(`${base}/no-content-type`, { maxBytes: 4096 });
    expect(raw.contentType).toBe('application/octet-stream');
  });

  it('refuses compressed responses', async () => {
    await expectFailure(fetcher.fetch(`${base}/gzip`, IMG), 'unsupported_type');
  });

  it('maps upstream error statuses to http_error', async () => {
    const notFound = await expectFailure(fetcher.fetch(`${base}/not-found`, IMG), 'http_error');
    expect(notFound.details.status).toBe(404);
    expect(notFound.suggestedHttpStatus).toBe(400);
    await expectFailure(fetcher.fetch(`${base}/no-content`, IMG), 'http_error');
  });

  it('reports connection failures as network errors', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await expectFailure(fetcher.fetch(`http://127.0.0.1:${closedPort}/x`, IMG), 'network');
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('reports resolution failures as network errors', async () => {
    const guarded = testFetcher({ resolver: tableResolver({ 'empty.test': [] }) });
    await expectFailure(guarded.fetch('http://nxdomain.test/x', IMG), 'network');
    await expectFailure(guarded.fetch('http://empty.test/x', IMG), 'network');
    expect(connectAttempts).toEqual([]);
  });

  it('never lets allowAddress open up cloud metadata addresses', async () => {
    const permissive = SafeFetcher.create({ allowAddress: () => true });
    await expectFailure(permissive.fetch('http://169.254.169.254/latest/meta-data/', IMG), 'forbidden_address');
    await expectFailure(permissive.fetch('http://[::ffff:169.254.169.254]/', IMG), 'forbidden_address');
    await expectFailure(permissive.fetch('http://metadata.google.internal/', IMG), 'forbidden_address');
    expect(connectAttempts).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// DNS pinning (rebinding)
// ---------------------------------------------------------------------------------------------

describe('SafeFetcher DNS pinning', () => {
  /** First answer is the (allow-listed) test server, every later answer is a private address. */
  function rebindingResolver(calls: string[]): HostResolver {
    return async (hostname) => {
      calls.push(hostname);
      const address = calls.length === 1 ? '127.0.0.1' : '10.9.9.9';
      return [{ address, family: 4 }];
    };
  }

  it('connects to the address that was checked, resolving exactly once', async () => {
    const calls: string[] = [];
    const fetcher = testFetcher({ resolver: rebindingResolver(calls) });
    const result = await fetcher.fetch(`http://rebind.test:${port}/ok`, IMG);
    expect(result.bytes.equals(PNG)).toBe(true);
    expect(result.finalUrl).toBe(`http://rebind.test:${port}/ok`);
    expect(calls).toEqual(['rebind.test']);
    expect(connectAttempts).toEqual(['127.0.0.1']); // an IP literal: the socket layer does no DNS of its own
    expect(requests[0].headers.host).toBe(`rebind.test:${port}`);
  });

  it('re-checks the name on every redirect hop', async () => {
    const calls: string[] = [];
    const fetcher = testFetcher({ resolver: rebindingResolver(calls) });
    const err = await expectFailure(
      fetcher.fetch(`http://rebind.test:${port}/redirect-host?to=rebind.test`, IMG),
      'forbidden_address',
    );
    expect(err.details.address).toBe('10.9.9.9');
    expect(calls).toEqual(['rebind.test', 'rebind.test']);
    expect(connectAttempts).toEqual(['127.0.0.1']);
  });

  it('falls back to the next vetted address when the first cannot be reached', async () => {
    // Both answers are allow-listed; the connection guard refuses 127.0.0.2 (no traffic is sent),
    // which the connector must treat like an unreachable address and move on to 127.0.0.1.
    const fetcher = testFetcher({
      allowAddress: (ip) => ip === '127.0.0.1' || ip === '127.0.0.2',
      resolver: tableResolver({ 'multi.test': ['127.0.0.2', '127.0.0.1'] }),
    });
    const result = await fetcher.fetch(`http://multi.test:${port}/ok`, IMG);
    expect(result.bytes.equals(PNG)).toBe(true);
    expect(connectAttempts).toEqual(['127.0.0.2', '127.0.0.1']);
  });

  it('uses the pinned IP for the TLS socket while keeping the hostname for SNI', async () => {
    const fetcher = testFetcher({ resolver: tableResolver({ 'secure.test': ['127.0.0.1'] }) });
    // The test server speaks plain HTTP, so the handshake fails; what matters is where it went.
    await expectFailure(fetcher.fetch(`https://secure.test:${port}/ok`, { ...IMG, timeoutMs: 3000 }), 'network');
    expect(tlsAttempts).toEqual([{ host: '127.0.0.1', servername: 'secure.test' }]);
  });
});

// ---------------------------------------------------------------------------------------------
// data: URLs
// ---------------------------------------------------------------------------------------------

describe('SafeFetcher data: URLs', () => {
  const fetcher = SafeFetcher.create();
  const pngDataUrl = `data:image/png;base64,${PNG.toString('base64')}`;

  it('decodes base64 without touching the network', async () => {
    const result = await fetcher.fetch(pngDataUrl, IMG);
    expect(result.bytes.equals(PNG)).toBe(true);
    expect(result.contentType).toBe('image/png');
    expect(result.finalUrl).toBe(pngDataUrl);
    expect(connectAttempts).toEqual([]);
  });

  it('tolerates whitespace, case and parameters', async () => {
    const b64 = PNG.toString('base64');
    const spaced = `  DATA:Image/PNG;name=a.png;BASE64,${b64.slice(0, 8)}\n ${b64.slice(8)}  `;
    const result = await fetcher.fetch(spaced, IMG);
    expect(result.bytes.equals(PNG)).toBe(true);
    expect(result.contentType).toBe('Image/PNG;name=a.png');
  });

  it('decodes percent-encoded payloads', async () => {
    const result = await fetcher.fetch('data:text/plain;charset=utf-8,hello%20w%C3%B6rld', { maxBytes: 100 });
    expect(result.bytes.toString('utf8')).toBe('hello wörld');
    const defaulted = await fetcher.fetch('data:,abc', { maxBytes: 100 });
    expect(defaulted.contentType).toBe('text/plain;charset=US-ASCII');
  });

  it('enforces the size cap before decoding', async () => {
    const big = `data:image/png;base64,${Buffer.alloc(3000).toString('base64')}`;
    const err = await expectFailure(fetcher.fetch(big, { maxBytes: 2999, accept: ['image/'] }), 'too_large');
    expect(err.suggestedHttpStatus).toBe(413);
    const exact = await fetcher.fetch(big, { maxBytes: 3000, accept: ['image/'] });
    expect(exact.bytes.length).toBe(3000);
    await expectFailure(fetcher.fetch(`data:text/plain,${'a'.repeat(101)}`, { maxBytes: 100 }), 'too_large');
  });

  it('checks the content type', async () => {
    await expectFailure(fetcher.fetch('data:text/html;base64,PGgxPg==', IMG), 'unsupported_type');
    await expectFailure(fetcher.fetch('data:;base64,AAAA', IMG), 'unsupported_type');
  });

  it.each([
    'data:image/png;base64',
    'data:image/png;base64,@@@@',
    'data:image/png;base64,A',
    'data:image/png;base64,AAA=A',
  ])('refuses malformed %s', async (url) => {
    await expectFailure(fetcher.fetch(url, IMG), 'invalid_url');
  });
});

// ---------------------------------------------------------------------------------------------
// Content-type matching and Nest wiring
// ---------------------------------------------------------------------------------------------

describe('contentTypeAllowed', () => {
  it.each<[string, string[] | undefined, boolean]>([
    ['image/png', ['image/'], true],
    ['IMAGE/PNG; x=1', ['image/'], true],
    ['image/png', ['image/*'], true],
    ['image', ['image/'], false],
    ['image/', ['image/'], false],
    ['application/pdf', ['application/pdf'], true],
    ['application/pdfx', ['application/pdf'], false],
    ['application/pdf;v=1', ['application/pdf'], true],
    ['text/html', ['image/', 'application/pdf'], false],
    ['text/html', undefined, true],
    ['text/html', [], false],
    ['text/html', ['*/*'], true],
    ['text/html', [''], false],
  ])('%s with %j -> %s', (type, accept, expected) => {
    expect(contentTypeAllowed(type, accept)).toBe(expected);
  });
});

describe('safeFetchErrorToApiError', () => {
  it.each<[SafeFetchErrorCode, number, string]>([
    ['invalid_url', 400, 'file_url_invalid_url'],
    ['forbidden_address', 400, 'file_url_forbidden_address'],
    ['too_many_redirects', 400, 'file_url_too_many_redirects'],
    ['http_error', 400, 'file_url_http_error'],
    ['unsupported_type', 400, 'file_url_unsupported_type'],
    ['timeout', 400, 'file_url_timeout'],
    ['network', 400, 'file_url_network'],
    ['too_large', 413, 'request_too_large'],
  ])('%s -> %i %s', (code, status, apiCode) => {
    const source = new SafeFetchError(code, 'boom');
    expect(source.suggestedHttpStatus).toBe(status);
    const api = safeFetchErrorToApiError(source, 'file_urls[0]');
    expect(api).toBeInstanceOf(ApiError);
    expect(api.status).toBe(status);
    expect(api.code).toBe(apiCode);
    expect(api.param).toBe('file_urls[0]');
    expect(api.message).toBe('Could not fetch file_urls[0]: boom');
  });
});

describe('Nest wiring', () => {
  it('exposes providers for the options token', () => {
    const options: SafeFetcherOptions = { maxRedirects: 1 };
    expect(safeFetcherProviders(options)).toEqual([{ provide: SAFE_FETCHER_OPTIONS, useValue: options }, SafeFetcher]);
  });

  it('resolves SafeFetcher through Nest DI with injected options', async () => {
    const moduleRef = await Test.createTestingModule({
      providers: safeFetcherProviders({ resolver: tableResolver({ 'evil.test': ['127.0.0.1'] }) }),
    }).compile();
    const fetcher = moduleRef.get(SafeFetcher);
    await expectFailure(fetcher.fetch('http://evil.test/', IMG), 'forbidden_address');
  });

  it('falls back to the product defaults when no options are provided', async () => {
    const moduleRef = await Test.createTestingModule({ providers: [SafeFetcher] }).compile();
    const fetcher = moduleRef.get(SafeFetcher);
    const err = await expectFailure(fetcher.fetch(`${base}/ok`, IMG), 'forbidden_address');
    expect(err.details.reason).toBe('loopback');
    expect(connections).toBe(0);
  });
});
