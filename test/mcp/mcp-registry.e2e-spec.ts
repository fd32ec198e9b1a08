import request from 'supertest';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { admin, as, joinTeam } from '../accounts/accounts-helpers';
import { FakeMcpServer } from '../fakes';

const SECRET = 'Bearer upstream-secret-0123456789';

describe('MCP server registry', () => {
  let t: TestApp;
  let plain: FakeMcpServer;
  let guarded: FakeMcpServer;
  let sse: FakeMcpServer;
  let redirector: Server;
  let redirectUrl: string;
  let teamId: string;
  const base = () => `/api/v1/teams/${teamId}/mcp-servers`;

  beforeAll(async () => {
    plain = await FakeMcpServer.start();
    guarded = await FakeMcpServer.start({ requireHeader: { name: 'authorization', value: SECRET } });
    sse = await FakeMcpServer.start({ transport: 'sse' });
    // answers every request with a redirect to the plain server (allowed address): still refused
    redirector = createServer((req, res) => res.writeHead(307, { location: plain.url }).end());
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    redirectUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/mcp`;
    t = await createTestApp({ env: { OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', MCP_CALL_TIMEOUT_MS: '5000' } });
    teamId = (await new AdminClient(t.url).createTeam('mcp', 100)).id;
  });

  afterAll(async () => {
    await t?.close();
    await plain?.close();
    await guarded?.close();
    await sse?.close();
    await new Promise<void>((r) => redirector?.close(() => r()));
  });

  it('registers a server, reads its tools, and never returns its headers', async () => {
    const res = await admin(request(t.url).post(base())).send({
      name: 'guarded',
      url: guarded.url,
      transport: 'streamable_http',
      headers: { Authorization: SECRET },
      description: 'needs a header',
      price_per_call_rub: 0.25,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'guarded',
      url: guarded.url,
      status: 'ok',
      header_names: ['Authorization'],
      price_per_call_rub: 0.25,
      tool_count: 5,
    });
    expect(JSON.stringify(res.body)).not.toContain('upstream-secret');
    // the sealed header reached the server
    expect(guarded.requests.some((r) => r.headers.authorization === SECRET)).toBe(true);

    const id = res.body.id as string;
    const list = await admin(request(t.url).get(base()));
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { name: string }) => s.name)).toEqual(['guarded']);
    const one = await admin(request(t.url).get(`${base()}/${id}`));
    expect(one.body.id).toBe(id);
    expect(JSON.stringify([list.body, one.body])).not.toContain('upstream-secret');

    const tools = await admin(request(t.url).get(`${base()}/${id}/tools`));
    expect(tools.status).toBe(200);
    expect(tools.body.data.map((x: { name: string }) => x.name).sort()).toEqual([
      'echo',
      'fail',
      'image',
      'slow',
      'whoami',
    ]);
    const echo = tools.body.data.find((x: { name: string }) => x.name === 'echo');
    expect(echo).toMatchObject({ gateway_name: 'guarded__echo', description: 'Echoes the text' });
    expect(echo.input_schema.properties.text).toMatchObject({ type: 'string' });

    // the audit log names the change, never the header's value
    const audit = await admin(request(t.url).get(`/api/v1/audit-log?team_id=${teamId}`));
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).toContain('mcp_server.create');
    expect(JSON.stringify(audit.body)).not.toContain('upstream-secret');
  });

  it('records an error status for a server its headers do not open, and reads it again after an edit', async () => {
    const res = await admin(request(t.url).post(base())).send({ name: 'noauth', url: guarded.url });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('error');
    expect(res.body.status_error).toContain("MCP server 'noauth'");
    const patched = await admin(request(t.url).patch(`${base()}/${res.body.id}`)).send({
      headers: { Authorization: SECRET },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ status: 'ok', tool_count: 5, header_names: ['Authorization'] });
    const refreshed = await admin(request(t.url).post(`${base()}/${res.body.id}/refresh`));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.status).toBe('ok');
  });

  it('reads tools over the SSE transport', async () => {
    const res = await admin(request(t.url).post(base())).send({ name: 'legacy', url: sse.url, transport: 'sse' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'ok', tool_count: 5, transport: 'sse' });
  });

  it('refuses duplicate names, bad names and reserved headers', async () => {
    const dup = await admin(request(t.url).post(base())).send({ name: 'guarded', url: plain.url });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('mcp_server_name_taken');
    const bad = await admin(request(t.url).post(base())).send({ name: 'a__b', url: plain.url });
    expect(bad.status).toBe(400);
    const host = await admin(request(t.url).post(base())).send({
      name: 'x',
      url: plain.url,
      headers: { Host: 'evil' },
    });
    expect(host.status).toBe(400);
    expect(host.body.error.param).toBe('headers');
    // a value HTTP cannot carry (past Latin-1, or a control character) is refused, not stored to fail later
    for (const value of ['Bearer ghp_\u2026', 'Bearer \u0442\u043e\u043a\u0435\u043d', 'a\u0007b']) {
      const res = await admin(request(t.url).post(base())).send({
        name: 'latin',
        url: plain.url,
        headers: { 'X-Token': value },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('headers');
    }
    const latin1 = await admin(request(t.url).post(base())).send({
      name: 'latin',
      url: plain.url,
      headers: { 'X-Token': 'caf\u00e9 token\t1' },
    });
    expect(latin1.status).toBe(201);
    // the Latin-1 value reaches the server as given
    expect(plain.requests.at(-1)?.headers['x-token']).toBe('caf\u00e9 token\t1');
    await admin(request(t.url).delete(`${base()}/${latin1.body.id}`));
    plain.reset();
  });

  it('refuses URLs the SSRF guard refuses, and redirects', async () => {
    for (const url of ['http://169.254.169.254/mcp', 'http://10.1.2.3/mcp', 'file:///etc/passwd']) {
      const res = await admin(request(t.url).post(base())).send({ name: 'ssrf', url });
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe('url');
    }
    const res = await admin(request(t.url).post(base())).send({ name: 'redirect', url: redirectUrl });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('error');
    expect(res.body.status_error).toMatch(/redirect/i);
    expect(plain.requests).toHaveLength(0);
  });

  it('lets viewers read and only admins change', async () => {
    const viewer = await joinTeam(t.url, teamId, 'viewer@example.com', 'viewer', 'Passw0rd!-viewer');
    const member = await joinTeam(t.url, teamId, 'member@example.com', 'member', 'Passw0rd!-member');
    const owner = await joinTeam(t.url, teamId, 'owner@example.com', 'owner', 'Passw0rd!-owner');
    expect((await as(t.url, viewer).get(base())).status).toBe(200);
    const list = await as(t.url, viewer).get(base());
    const id = list.body.data[0].id as string;
    expect((await as(t.url, viewer).get(`${base()}/${id}/tools`)).status).toBe(200);
    expect((await as(t.url, viewer).post(base()).send({ name: 'v', url: plain.url })).status).toBe(403);
    expect((await as(t.url, member).patch(`${base()}/${id}`).send({ description: 'x' })).status).toBe(403);
    expect((await as(t.url, member).delete(`${base()}/${id}`)).status).toBe(403);
    const created = await as(t.url, owner).post(base()).send({ name: 'owned', url: plain.url });
    expect(created.status).toBe(201);
    expect((await as(t.url, owner).delete(`${base()}/${created.body.id}`)).status).toBe(204);
    expect((await as(t.url, owner).get(`${base()}/${created.body.id}`)).status).toBe(404);
    // another team's servers are not found
    const other = (await new AdminClient(t.url).createTeam('other', 1)).id;
    expect((await as(t.url, owner).get(`/api/v1/teams/${other}/mcp-servers`)).status).toBe(404);
  }, 120_000);
});
