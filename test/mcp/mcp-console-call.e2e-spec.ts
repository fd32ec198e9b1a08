import request from 'supertest';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { admin, as as asUser, Browser, joinTeam } from '../accounts/accounts-helpers';
import { FakeMcpServer, TINY_PNG_BASE64 } from '../fakes';

const SECRET = 'Bearer console-secret-0123456789';
const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface LogRecord {
  kind: string;
  mcp_server: string | null;
  mcp_tool: string | null;
  status: number;
  error_code: string | null;
  cost_rub: number;
  endpoint: string;
}

/**
 * The console's test call: POST /api/v1/teams/{team_id}/mcp-servers/{id}/tools/{tool}/call runs the
 * tool as the signed-in member through the same path as /mcp's tools/call (logged, priced once,
 * refused and failed calls free), and PATCH keeps a stored header given as null.
 */
describe('MCP test call from the console (session)', () => {
  let t: TestApp;
  let plain: FakeMcpServer;
  let guarded: FakeMcpServer;
  let teamId: string;
  let tools: string;
  let down: string;
  let guardedId: string;
  let member: Browser;
  let viewer: Browser;
  const path = (server: string, tool: string) => `/api/v1/teams/${teamId}/mcp-servers/${server}/tools/${tool}/call`;
  const balance = async (): Promise<number> =>
    (await request(t.url).get(`/api/v1/teams/${teamId}/balance`).set(operator)).body.balance_rub;
  // the request log is written after the answer, so wait until the record looked for is there
  const records = async (ready: (records: LogRecord[]) => boolean): Promise<LogRecord[]> => {
    const until = Date.now() + 10_000;
    for (;;) {
      const res = await request(t.url).get(`/api/v1/requests?team_id=${teamId}&kind=mcp_tool&limit=100`).set(operator);
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
      if (ready(res.body.data) || Date.now() > until) return res.body.data;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    plain = await FakeMcpServer.start();
    guarded = await FakeMcpServer.start({ requireHeader: { name: 'authorization', value: SECRET } });
    t = await createTestApp({
      env: { OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', MCP_CALL_TIMEOUT_MS: '3000', REQUEST_LOG_FLUSH_MS: '20' },
    });
    teamId = (await new AdminClient(t.url).createTeam('mcp-console', 10)).id;
    const register = async (body: Record<string, unknown>): Promise<string> => {
      const res = await admin(request(t.url).post(`/api/v1/teams/${teamId}/mcp-servers`)).send(body);
      if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id;
    };
    tools = await register({ name: 'tools', url: plain.url, price_per_call_rub: 0.5 });
    guardedId = await register({ name: 'guarded', url: guarded.url, headers: { Authorization: SECRET } });
    const gone = await FakeMcpServer.start();
    down = await register({ name: 'down', url: gone.url, price_per_call_rub: 1 });
    await gone.close();
    member = await joinTeam(t.url, teamId, 'console-member@example.com', 'member', 'Passw0rd!-member');
    viewer = await joinTeam(t.url, teamId, 'console-viewer@example.com', 'viewer', 'Passw0rd!-viewer');
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await plain?.close();
    await guarded?.close();
  });

  it('runs an allowed call for a member: the result, its duration, charged once and logged', async () => {
    const before = await balance();
    const calls = plain.toolCalls;
    const res = await asUser(t.url, member)
      .post(path(tools, 'echo'))
      .send({ arguments: { text: 'from the console' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      content: [{ type: 'text', text: 'echo: from the console' }],
      structured_content: { echoed: 'from the console' },
      is_error: false,
      cost_rub: 0.5,
    });
    expect(typeof res.body.duration_ms).toBe('number');
    expect(plain.toolCalls).toBe(calls + 1);
    expect(await balance()).toBeCloseTo(before - 0.5, 6);
    const [record] = await records((r) => r.length >= 1);
    expect(record).toMatchObject({
      kind: 'mcp_tool',
      mcp_server: 'tools',
      mcp_tool: 'echo',
      status: 200,
      error_code: null,
      cost_rub: 0.5,
    });
    // the ledger has exactly one charge for it
    const usage = await request(t.url).get(`/api/v1/teams/${teamId}/usage?limit=100`).set(operator);
    const charges = (usage.body.data as { kind: string; amount_rub: number; endpoint: string | null }[]).filter(
      (e) => e.kind === 'charge',
    );
    expect(charges).toHaveLength(1);
    expect(charges[0].amount_rub).toBeCloseTo(-0.5, 6);
    expect(charges[0].endpoint).toBe('/api/v1/teams/{team_id}/mcp-servers/{id}/tools/{tool}/call');
  });

  it('answers images and structured content as the server sent them; the operator token may call', async () => {
    const res = await request(t.url).post(path(tools, 'image')).set(operator).send({});
    expect(res.status).toBe(200);
    expect(res.body.content).toEqual([
      { type: 'text', text: 'one pixel' },
      { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
    ]);
    expect(res.body.structured_content).toBeNull();
  });

  it('refuses viewers with 403 in the REST error shape, before anything reaches the server', async () => {
    const calls = plain.toolCalls;
    const before = await balance();
    const res = await asUser(t.url, viewer)
      .post(path(tools, 'echo'))
      .send({ arguments: { text: 'x' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_role' });
    expect(plain.toolCalls).toBe(calls);
    expect(await balance()).toBeCloseTo(before, 6);
  });

  it('answers 404 for a tool the server does not have and for an unknown server', async () => {
    const calls = plain.toolCalls;
    const tool = await asUser(t.url, member).post(path(tools, 'nothere')).send({});
    expect(tool.status).toBe(404);
    expect(tool.body.error).toMatchObject({ code: 'mcp_tool_not_found', param: 'tool' });
    const server = await asUser(t.url, member).post(path('mcp_0000', 'echo')).send({});
    expect(server.status).toBe(404);
    expect(server.body.error.code).toBe('mcp_server_not_found');
    expect(plain.toolCalls).toBe(calls);
  });

  it('refuses arguments that are not an object with 400', async () => {
    const res = await asUser(t.url, member)
      .post(path(tools, 'echo'))
      .send({ arguments: [1, 2] });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
  });

  it("returns a tool's own error as is_error, uncharged", async () => {
    const before = await balance();
    const res = await asUser(t.url, member).post(path(tools, 'fail')).send({ arguments: {} });
    expect(res.status).toBe(200);
    expect(res.body.is_error).toBe(true);
    expect(res.body.cost_rub).toBe(0);
    expect(JSON.stringify(res.body.content)).toContain('the tool broke');
    expect(await balance()).toBeCloseTo(before, 6);
  });

  it('answers 502 mcp_unreachable for a server that is down, uncharged and logged', async () => {
    const before = await balance();
    const res = await asUser(t.url, member)
      .post(path(down, 'echo'))
      .send({ arguments: { text: 'x' } });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ type: 'upstream_error', code: 'mcp_unreachable' });
    expect(res.body.error.message).toContain("MCP server 'down'");
    expect(await balance()).toBeCloseTo(before, 6);
    const logged = (await records((r) => r.some((x) => x.mcp_server === 'down'))).find((r) => r.mcp_server === 'down');
    expect(logged).toMatchObject({ status: 502, error_code: 'mcp_unreachable', cost_rub: 0 });
  });

  it('answers 504 mcp_timeout for a call slower than MCP_CALL_TIMEOUT_MS', async () => {
    const res = await asUser(t.url, member)
      .post(path(tools, 'slow'))
      .send({ arguments: { ms: 4500 } });
    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe('mcp_timeout');
  }, 30_000);

  it('sends the sealed header; PATCH keeps a stored header given as null and refuses to keep an unknown one', async () => {
    const who = await asUser(t.url, member).post(path(guardedId, 'whoami')).send({});
    expect(who.body.content).toEqual([{ type: 'text', text: SECRET }]);
    const kept = await admin(request(t.url).patch(`/api/v1/teams/${teamId}/mcp-servers/${guardedId}`)).send({
      headers: { Authorization: null, 'X-Org': 'acme' },
    });
    expect(kept.status).toBe(200);
    expect(kept.body.header_names.sort()).toEqual(['Authorization', 'X-Org']);
    // the server requires the secret: reading its tools again worked only because it was kept
    expect(kept.body.status).toBe('ok');
    const again = await asUser(t.url, member).post(path(guardedId, 'whoami')).send({});
    expect(again.body.content).toEqual([{ type: 'text', text: SECRET }]);
    expect(guarded.requests.at(-1)?.headers['x-org']).toBe('acme');
    const unknown = await admin(request(t.url).patch(`/api/v1/teams/${teamId}/mcp-servers/${guardedId}`)).send({
      headers: { Missing: null },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('headers');
    // removing: a set without the header drops it
    const removed = await admin(request(t.url).patch(`/api/v1/teams/${teamId}/mcp-servers/${guardedId}`)).send({
      headers: { Authorization: null },
    });
    expect(removed.body.header_names).toEqual(['Authorization']);
  });
});
