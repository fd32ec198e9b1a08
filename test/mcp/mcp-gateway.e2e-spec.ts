import request from 'supertest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { admin, as as asUser, joinTeam } from '../accounts/accounts-helpers';
import { FakeMcpServer, TINY_PNG_BASE64 } from '../fakes';

const SECRET = 'Bearer upstream-secret-0123456789';
const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface LogRecord {
  id: string;
  kind: string;
  mcp_server: string | null;
  mcp_tool: string | null;
  status: number;
  error_code: string | null;
  bytes: number | null;
  cost_rub: number;
  api_key_id: string | null;
}

async function connect(url: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  return client;
}

async function rpcError(p: Promise<unknown>): Promise<McpError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error('expected a JSON-RPC error');
}

describe('MCP gateway endpoint (/mcp)', () => {
  let t: TestApp;
  let replica: TestApp | undefined;
  let plain: FakeMcpServer;
  let guarded: FakeMcpServer;
  let legacy: FakeMcpServer;
  let teamId: string;
  let keyA: { id: string; api_key: string };
  let keyNone: { id: string; api_key: string };
  let keyWho: { id: string; api_key: string };
  const clients: Client[] = [];
  const as = async (key: { api_key: string }, url = t.url) => {
    const c = await connect(url, key.api_key);
    clients.push(c);
    return c;
  };
  const balance = async () => new AdminClient(t.url).balance(keyA.api_key);
  const records = async (n: number): Promise<LogRecord[]> => {
    const until = Date.now() + 10_000;
    for (;;) {
      const res = await request(t.url).get(`/api/v1/requests?team_id=${teamId}&kind=mcp_tool&limit=100`).set(operator);
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
      if (res.body.data.length >= n || Date.now() > until) return res.body.data;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    plain = await FakeMcpServer.start();
    guarded = await FakeMcpServer.start({ requireHeader: { name: 'authorization', value: SECRET } });
    legacy = await FakeMcpServer.start({ transport: 'sse' });
    t = await createTestApp({
      env: { OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', MCP_CALL_TIMEOUT_MS: '3000', REQUEST_LOG_FLUSH_MS: '20' },
    });
    teamId = (await new AdminClient(t.url).createTeam('mcp', 10)).id;
    const register = async (body: Record<string, unknown>) => {
      const res = await admin(request(t.url).post(`/api/v1/teams/${teamId}/mcp-servers`)).send(body);
      if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    await register({ name: 'tools', url: plain.url, price_per_call_rub: 0.5 });
    await register({ name: 'guarded', url: guarded.url, headers: { Authorization: SECRET } });
    await register({ name: 'legacy', url: legacy.url, transport: 'sse' });
    // a server that is gone: registered while a server answered there, then closed
    const gone = await FakeMcpServer.start();
    await register({ name: 'down', url: gone.url, price_per_call_rub: 1 });
    await gone.close();
    const key = async (allowed: string[]) => {
      const res = await admin(request(t.url).post(`/api/v1/admin/teams/${teamId}/api-keys`)).send({
        allowed_mcp_tools: allowed,
      });
      if (res.status !== 201) throw new Error(`key: ${res.status} ${JSON.stringify(res.body)}`);
      expect(res.body.allowed_mcp_tools).toEqual(allowed);
      return res.body;
    };
    keyA = await key(['tools/echo', 'tools/image', 'tools/fail', 'tools/slow', 'guarded/*', 'legacy/echo', 'down/*']);
    keyNone = await key([]);
    keyWho = await key(['*/whoami']);
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await replica?.close();
    await t?.close();
    await plain?.close();
    await guarded?.close();
    await legacy?.close();
  });

  it('initializes with the gateway as the server', async () => {
    const c = await as(keyA);
    expect(c.getServerVersion()?.name).toBe('model-gateway');
    expect(c.getServerCapabilities()?.tools).toBeDefined();
  });

  it('lists the union of the allowed tools as <server>__<tool>, per key', async () => {
    const names = async (key: { api_key: string }) =>
      (await (await as(key)).listTools()).tools.map((x) => x.name).sort();
    expect(await names(keyA)).toEqual([
      'down__echo',
      'down__fail',
      'down__image',
      'down__slow',
      'down__whoami',
      'guarded__echo',
      'guarded__fail',
      'guarded__image',
      'guarded__slow',
      'guarded__whoami',
      'legacy__echo',
      'tools__echo',
      'tools__fail',
      'tools__image',
      'tools__slow',
    ]);
    expect(await names(keyNone)).toEqual([]);
    expect(await names(keyWho)).toEqual(['down__whoami', 'guarded__whoami', 'legacy__whoami', 'tools__whoami']);
    const listed = await (await as(keyA)).listTools();
    const echo = listed.tools.find((x) => x.name === 'tools__echo')!;
    expect(echo.description).toBe('Echoes the text');
    expect(echo.inputSchema.properties).toHaveProperty('text');
    expect(JSON.stringify(listed)).not.toContain('upstream-secret');
  });

  it('forwards calls and returns text, structured content and images unchanged; charges the price once', async () => {
    const c = await as(keyA);
    const before = await balance();
    const echo = (await c.callTool({ name: 'tools__echo', arguments: { text: 'hi' } })) as CallToolResult;
    expect(echo.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    expect(echo.structuredContent).toEqual({ echoed: 'hi' });
    const image = (await c.callTool({ name: 'tools__image', arguments: {} })) as CallToolResult;
    expect(image.content).toEqual([
      { type: 'text', text: 'one pixel' },
      { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
    ]);
    expect(await balance()).toBeCloseTo(before - 1, 6);
  });

  it('sends the sealed headers to the server; they never leave the API', async () => {
    const c = await as(keyA);
    const who = (await c.callTool({ name: 'guarded__whoami', arguments: {} })) as CallToolResult;
    expect(who.content).toEqual([{ type: 'text', text: SECRET }]);
    expect(guarded.requests.every((r) => r.headers.authorization === SECRET)).toBe(true);
    const servers = await admin(request(t.url).get(`/api/v1/teams/${teamId}/mcp-servers`));
    expect(JSON.stringify(servers.body)).not.toContain('upstream-secret');
  });

  it('works with a server on the SSE transport', async () => {
    const c = await as(keyA);
    const echo = (await c.callTool({ name: 'legacy__echo', arguments: { text: 'old' } })) as CallToolResult;
    expect(echo.content).toEqual([{ type: 'text', text: 'echo: old' }]);
  });

  it('refuses tools the key may not use without calling the server, and unknown tools', async () => {
    const calls = plain.toolCalls;
    const denied = await rpcError((await as(keyA)).callTool({ name: 'tools__whoami', arguments: {} }));
    expect(denied.code).toBe(-32003);
    expect(denied.message).toContain('tools__whoami');
    const none = await rpcError((await as(keyNone)).callTool({ name: 'tools__echo', arguments: { text: 'x' } }));
    expect(none.code).toBe(-32003);
    const unknown = await rpcError((await as(keyA)).callTool({ name: 'nothere__echo', arguments: {} }));
    expect(unknown.code).toBe(-32003);
    expect(plain.toolCalls).toBe(calls);
    // the wildcard reaches the tool on every server
    const who = (await (await as(keyWho)).callTool({ name: 'tools__whoami', arguments: {} })) as CallToolResult;
    expect(who.isError).toBeFalsy();
    expect(plain.toolCalls).toBe(calls + 1);
  });

  it("passes a tool's own error through as isError, uncharged", async () => {
    const before = await balance();
    const failed = (await (await as(keyA)).callTool({ name: 'tools__fail', arguments: {} })) as CallToolResult;
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.content)).toContain('the tool broke');
    expect(await balance()).toBeCloseTo(before, 6);
  });

  it('answers a JSON-RPC error naming the server when it is down or too slow; nothing is charged', async () => {
    const before = await balance();
    const down = await rpcError((await as(keyA)).callTool({ name: 'down__echo', arguments: { text: 'x' } }));
    expect(down.message).toContain("MCP server 'down'");
    const slow = await rpcError((await as(keyA)).callTool({ name: 'tools__slow', arguments: { ms: 8000 } }));
    expect(slow.message).toContain("MCP server 'tools' did not answer in time");
    expect(await balance()).toBeCloseTo(before, 6);
  });

  it('streams the server’s progress notifications back to the caller', async () => {
    const progress: number[] = [];
    const out = (await (
      await as(keyA)
    ).callTool({ name: 'tools__slow', arguments: { ms: 200 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    })) as CallToolResult;
    expect(out.content).toEqual([{ type: 'text', text: 'waited 200 ms' }]);
    expect(progress).toEqual([1, 2, 3, 4]);
  });

  it('records every call in the request log (kind mcp_tool), bodies only at the full level', async () => {
    // 12 calls so far: 9 that reached a server, 3 refused
    const all = await records(12);
    expect(all).toHaveLength(12);
    expect(all.filter((r) => r.error_code === 'tool_not_allowed').map((r) => r.status)).toEqual([403, 403, 403]);
    const echo = all.find((r) => r.mcp_server === 'tools' && r.mcp_tool === 'echo' && r.status === 200)!;
    expect(echo).toMatchObject({ kind: 'mcp_tool', status: 200, error_code: null, cost_rub: 0.5, api_key_id: keyA.id });
    expect(echo.bytes).toBeGreaterThan(10);
    expect(all.find((r) => r.mcp_tool === 'fail')).toMatchObject({
      status: 200,
      error_code: 'tool_error',
      cost_rub: 0,
    });
    expect(all.find((r) => r.mcp_server === 'down')).toMatchObject({ status: 502, error_code: 'mcp_unreachable' });
    expect(all.find((r) => r.mcp_tool === 'slow' && r.status !== 200)).toMatchObject({
      status: 504,
      error_code: 'mcp_timeout',
    });
    const detail = await request(t.url).get(`/api/v1/requests/${echo.id}?team_id=${teamId}`).set(operator);
    expect(detail.body.request_body).toBeUndefined();

    const set = await request(t.url)
      .patch(`/api/v1/admin/teams/${teamId}`)
      .set(operator)
      .send({ request_log_bodies: 'full' });
    expect(set.status).toBe(200);
    const secretArg = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123';
    await (await as(keyA)).callTool({ name: 'tools__echo', arguments: { text: `key ${secretArg}` } });
    const more = await records(all.length + 1);
    const stored = await request(t.url).get(`/api/v1/requests/${more[0].id}?team_id=${teamId}`).set(operator);
    expect(stored.body.mcp_tool).toBe('echo');
    expect(stored.body.request_body).toContain('arguments');
    expect(stored.body.response_body).toContain('echoed');
    expect(JSON.stringify(stored.body)).not.toContain(secretArg);
  });

  it('takes a signed-in session with the member role: viewers list, members call', async () => {
    const viewer = await joinTeam(t.url, teamId, 'mcp-viewer@example.com', 'viewer', 'Passw0rd!-viewer');
    const member = await joinTeam(t.url, teamId, 'mcp-member@example.com', 'member', 'Passw0rd!-member');
    const rpc = (who: typeof viewer, body: object) =>
      asUser(t.url, who)
        .post('/mcp')
        .set('x-team-id', teamId)
        .set('accept', 'application/json, text/event-stream')
        .send(body);
    const listed = await rpc(viewer, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(listed.status).toBe(200);
    // a session sees every tool of the team (no key allowlist)
    expect(listed.text).toContain('tools__whoami');
    const calls = plain.toolCalls;
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'tools__echo', arguments: { text: 'm' } },
    };
    const refused = await rpc(viewer, call);
    expect(refused.text).toContain('-32003');
    expect(refused.text).toContain('member role');
    expect(plain.toolCalls).toBe(calls);
    const done = await rpc(member, call);
    expect(done.status).toBe(200);
    expect(done.text).toContain('echo: m');
    expect(plain.toolCalls).toBe(calls + 1);
  }, 120_000);

  it('refuses callers without a valid key', async () => {
    const res = await request(t.url)
      .post('/mcp')
      .set('accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(401);
  });

  it('answers statelessly: a second replica on the same database serves the same tools, no session needed', async () => {
    replica = await createTestApp({
      shareBackendWith: t,
      env: { OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', MCP_CALL_TIMEOUT_MS: '3000' },
    });
    const rpc = (url: string, body: object) =>
      request(url)
        .post('/mcp')
        .set('authorization', `Bearer ${keyA.api_key}`)
        .set('accept', 'application/json, text/event-stream')
        .send(body);
    const init = await rpc(t.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    // the next request goes to the other replica
    const listed = await rpc(replica.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('tools__echo');
    const c = await as(keyA, replica.url);
    const echo = (await c.callTool({ name: 'tools__echo', arguments: { text: 'two' } })) as CallToolResult;
    expect(echo.structuredContent).toEqual({ echoed: 'two' });
  });
});
