import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch } from './guarded-fetch';
import { SafeFetcher } from './safe-fetcher';

describe('guardedFetch', () => {
  let server: Server;
  let base: string;
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      setTimeout(() => res.end('data: two\n\n'), 20);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => (seen.length = 0));

  const allowLoopback = SafeFetcher.create({ allowAddress: (ip) => ip === '127.0.0.1' });

  it('streams the answer of an allowed address, with the caller’s headers', async () => {
    const res = await guardedFetch(allowLoopback, { connectTimeoutMs: 1000 })(`${base}/ok`, {
      headers: { authorization: 'Bearer x' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('data: one\n\ndata: two\n\n');
    expect(seen[0].headers.authorization).toBe('Bearer x');
  });

  it('refuses an address the policy forbids before connecting', async () => {
    const fetch = guardedFetch(SafeFetcher.create(), { connectTimeoutMs: 1000 });
    await expect(fetch(`${base}/ok`)).rejects.toMatchObject({ code: 'forbidden_address' });
    await expect(fetch('http://169.254.169.254/latest')).rejects.toMatchObject({ code: 'forbidden_address' });
    expect(seen).toHaveLength(0);
  });

  it('refuses redirects instead of following them', async () => {
    const fetch = guardedFetch(allowLoopback, { connectTimeoutMs: 1000 });
    await expect(fetch(`${base}/redirect`)).rejects.toMatchObject({ code: 'http_error' });
    expect(seen.map((s) => s.path)).toEqual(['/redirect']);
  });
});
