/**
 * Remote MCP tools in /v1/responses: the openai SDK against the gateway, the fake OpenAI upstream
 * scripted to call a tool and then answer, and in-test MCP servers. Items and events are checked
 * against OpenAI's published schemas (and, by the contract recorder, against docs/openapi.json).
 */
import OpenAI from 'openai';
import request from 'supertest';
import { FakeMcpServer, FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';
import { Conformance } from '../conformance/openai-schema';

type Json = Record<string, unknown>;
const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };
const MODEL = 'gpt-4o-mini';

describe(`/v1/responses with remote MCP tools (${backendKind()})`, () => {
  const spec = new Conformance();
  let t: TestApp;
  let openai: FakeOpenAI;
  let docs: FakeMcpServer;
  let adhoc: FakeMcpServer;
  let teamId: string;
  let apiKey: string;
  let serverId: string;
  let client: OpenAI;

  const post = (body: Json) => request(t.url).post('/v1/responses').set('Authorization', `Bearer ${apiKey}`).send(body);
  const balance = () => new AdminClient(t.url).balance(apiKey);
  // the request log is written after the answer, so wait until the record looked for is there
  const mcpRecords = async (ready: (records: Json[]) => boolean): Promise<Json[]> => {
    const until = Date.now() + 10_000;
    for (;;) {
      const res = await request(t.url).get(`/api/v1/requests?team_id=${teamId}&kind=mcp_tool&limit=100`).set(operator);
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
      if (ready(res.body.data) || Date.now() > until) return res.body.data;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const setAdhoc = async (on: boolean) => {
    const res = await request(t.url).patch(`/api/v1/teams/${teamId}`).set(operator).send({ mcp_adhoc_servers: on });
    expect(res.status).toBe(200);
    expect(res.body.mcp_adhoc_servers).toBe(on);
  };
  const echoThenAnswer = (name: string, answer: string) =>
    openai.enqueue({ text: '', toolCalls: [{ id: 'call_1', name, arguments: { text: 'hi' } }] }, { text: answer });

  jest.setTimeout(60_000);

  beforeAll(async () => {
    spec.compile('Response', 'ResponseStreamEvent');
    openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    docs = await FakeMcpServer.start();
    adhoc = await FakeMcpServer.start({ label: 'adhoc' });
    t = await createTestApp({
      env: {
        ...providerEnv({ openai }),
        OPENAI_MAX_RETRIES: '0',
        OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
        MCP_CALL_TIMEOUT_MS: '3000',
        REQUEST_LOG_FLUSH_MS: '20',
      },
    });
    teamId = (await new AdminClient(t.url).createTeam('mcp-responses', 100)).id;
    const reg = await request(t.url)
      .post(`/api/v1/teams/${teamId}/mcp-servers`)
      .set(operator)
      .send({ name: 'docs', url: docs.url, price_per_call_rub: 0.5 });
    expect(reg.status).toBe(201);
    serverId = reg.body.id;
    const key = await request(t.url)
      .post(`/api/v1/admin/teams/${teamId}/api-keys`)
      .set(operator)
      .send({ allowed_mcp_tools: ['docs/*'] });
    expect(key.status).toBe(201);
    apiKey = key.body.api_key;
    client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 });
  }, 120_000);
  afterEach(() => {
    openai.reset();
    docs.reset();
    adhoc.reset();
  });
  afterAll(async () => {
    await t?.close();
    await openai?.close();
    await docs?.close();
    await adhoc?.close();
  });

  it('lists the tools, runs the model’s call against the server, feeds the result back and answers; charged once', async () => {
    echoThenAnswer('docs__echo', 'The server said: echo: hi');
    const before = await balance();
    const res = await client.responses.create({
      model: MODEL,
      input: 'Echo hi with the docs server.',
      tools: [{ type: 'mcp', server_label: 'docs', server_id: serverId, require_approval: 'never' } as never],
    });
    expect(spec.check('response with mcp items', 'Response', res)).toEqual([]);
    expect(res.output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const list = res.output[0] as unknown as { server_label: string; tools: { name: string }[] };
    expect(list.server_label).toBe('docs');
    expect(list.tools.map((x) => x.name)).toEqual(expect.arrayContaining(['echo', 'fail', 'whoami']));
    const call = res.output[1] as unknown as Json;
    expect(call).toMatchObject({ server_label: 'docs', name: 'echo', output: 'echo: hi', error: null });
    expect(JSON.parse(call.arguments as string)).toEqual({ text: 'hi' });
    expect(res.output_text).toBe('The server said: echo: hi');
    expect((res as unknown as { tools: Json[] }).tools[0]).toMatchObject({ type: 'mcp', server_label: 'docs' });
    // the model was offered the tools as functions, and got the tool's result in the second round
    expect(openai.requests).toHaveLength(2);
    const offered = (openai.requests[0].body.tools as { function: { name: string } }[]).map((x) => x.function.name);
    expect(offered).toContain('docs__echo');
    const second = openai.requests[1].body.messages as { role: string; content: unknown; tool_call_id?: string }[];
    expect(second[second.length - 1]).toEqual({ role: 'tool', content: 'echo: hi', tool_call_id: 'call_1' });
    expect(docs.toolCalls).toBe(1);
    // two model rounds and the priced call: what the balance lost is the response's cost, the call once
    const records = await mcpRecords((r) => r.length >= 1);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ mcp_server: 'docs', mcp_tool: 'echo', status: 200, cost_rub: 0.5 });
    const cost = (res as unknown as { cost: { total_cost_rub: number; input_cost_rub: number } }).cost;
    expect(cost.total_cost_rub).toBeGreaterThan(0.5);
    expect(before - (await balance())).toBeCloseTo(cost.total_cost_rub, 6);
    expect(res.usage!.input_tokens).toBeGreaterThan(0);
    // nothing stays held once the response is answered: the model rounds' and the call's holds are released
    const wallet = await request(t.url).get('/api/v1/balance').set('api-key', apiKey);
    expect(wallet.body.reserved_rub).toBe(0);
  });

  it('streams the mcp_list_tools, mcp_call and message events in order, each valid', async () => {
    echoThenAnswer('docs__echo', 'Done.');
    const stream = await client.responses.create({
      model: MODEL,
      input: 'Echo hi.',
      stream: true,
      tools: [{ type: 'mcp', server_label: 'docs', server_id: serverId, require_approval: 'never' } as never],
    });
    const events: Json[] = [];
    for await (const e of stream) events.push(e as unknown as Json);
    for (const e of events) expect(spec.checkEvent('mcp stream', 'ResponseStreamEvent', e)).toEqual([]);
    const types = events.map((e) => e.type);
    const order = [
      'response.created',
      'response.in_progress',
      'response.mcp_list_tools.in_progress',
      'response.mcp_list_tools.completed',
      'response.mcp_call.in_progress',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.completed',
      'response.output_text.delta',
      'response.output_text.done',
      'response.completed',
    ];
    let at = -1;
    for (const type of order) {
      const next = types.indexOf(type, at + 1);
      expect([type, next > at]).toEqual([type, true]);
      at = next;
    }
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const done = events[events.length - 1].response as { output: Json[]; status: string };
    expect(done.status).toBe('completed');
    expect(done.output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(done.output[1]).toMatchObject({ output: 'echo: hi', status: 'completed' });
    expect(docs.toolCalls).toBe(1);
  });

  it('with a fee per request, the cost parts name each model round’s fee and the tool calls, and add up to the charge', async () => {
    const fee = await request(t.url)
      .put('/api/v1/admin/models/gpt-4.1-mini')
      .set(operator)
      .send({ prices: { request: 0.3 } });
    expect(fee.status).toBe(200);
    const rounds = () =>
      openai.enqueue(
        {
          text: '',
          toolCalls: [{ id: 'call_1', name: 'docs__echo', arguments: { text: 'hi' } }],
          usage: { input: 1000, output: 100 },
        },
        { text: 'Done.', usage: { input: 1000, output: 100 } },
      );
    const tools = [{ type: 'mcp', server_label: 'docs', server_id: serverId, require_approval: 'never' }];
    type Cost = Record<string, number | null>;
    const parts = (c: Cost) =>
      Number(
        [
          'input_cost_rub',
          'output_cost_rub',
          'image_cost_rub',
          'cache_cost_rub',
          'request_cost_rub',
          'retrieval_cost_rub',
          'mcp_tool_cost_rub',
        ]
          .reduce((sum, k) => sum + (c[k] ?? 0), 0)
          .toFixed(6),
      );
    // two rounds of 1000 × 40 / 1M + 100 × 160 / 1M + 0.3, and the docs server's 0.5 per call
    const expected = {
      input_cost_rub: 0.08,
      output_cost_rub: 0.032,
      request_cost_rub: 0.6,
      mcp_tool_cost_rub: 0.5,
      total_cost_rub: 1.212,
    };
    try {
      rounds();
      let before = await balance();
      const res = await post({ model: 'gpt-4.1-mini', input: 'Echo hi.', tools });
      expect(res.status).toBe(200);
      expect(openai.requests).toHaveLength(2);
      const cost = res.body.cost as Cost;
      expect(cost).toMatchObject(expected);
      expect(parts(cost)).toBe(cost.total_cost_rub);
      expect(Number((before - (await balance())).toFixed(6))).toBe(cost.total_cost_rub);
      // the stored response shows the same breakdown
      const stored = await request(t.url).get(`/v1/responses/${res.body.id}`).set('Authorization', `Bearer ${apiKey}`);
      expect(stored.body.cost).toEqual(cost);

      // streamed: response.completed carries the same breakdown
      openai.reset();
      rounds();
      before = await balance();
      const stream = await client.responses.create({
        model: 'gpt-4.1-mini',
        input: 'Echo hi.',
        stream: true,
        tools: tools as never,
      });
      const events: Json[] = [];
      for await (const e of stream) events.push(e as unknown as Json);
      const done = events[events.length - 1] as { type: string; response: { cost: Cost } };
      expect(done.type).toBe('response.completed');
      expect(done.response.cost).toMatchObject(expected);
      expect(parts(done.response.cost)).toBe(done.response.cost.total_cost_rub);
      expect(Number((before - (await balance())).toFixed(6))).toBe(done.response.cost.total_cost_rub);
    } finally {
      expect((await request(t.url).delete('/api/v1/admin/models/gpt-4.1-mini').set(operator)).status).toBe(200);
    }
  });

  it('asks for approval, and runs the call when a later request approves it', async () => {
    openai.enqueue({ text: '', toolCalls: [{ id: 'call_9', name: 'docs__echo', arguments: { text: 'hi' } }] });
    const tools = [{ type: 'mcp', server_label: 'docs', server_id: serverId, require_approval: 'always' }];
    const first = await post({ model: MODEL, input: 'Echo hi.', tools });
    expect(first.status).toBe(200);
    expect(spec.check('approval request', 'Response', first.body)).toEqual([]);
    expect(first.body.output.map((o: Json) => o.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
    const ask = first.body.output[1];
    expect(ask).toMatchObject({ server_label: 'docs', name: 'echo' });
    expect(docs.toolCalls).toBe(0);

    openai.enqueue({ text: 'Approved and done.' });
    const second = await post({
      model: MODEL,
      previous_response_id: first.body.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: ask.id, approve: true }],
      tools,
    });
    expect(second.status).toBe(200);
    expect(spec.check('approved', 'Response', second.body)).toEqual([]);
    expect(second.body.output.map((o: Json) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(second.body.output[1]).toMatchObject({ approval_request_id: ask.id, output: 'echo: hi' });
    expect(docs.toolCalls).toBe(1);
    const sent = openai.lastRequest!.body.messages as { role: string; tool_call_id?: string }[];
    expect(sent.slice(-2).map((m) => m.role)).toEqual(['assistant', 'tool']);
    expect(sent[sent.length - 1].tool_call_id).toBe(ask.id);
  });

  it('a request that leaves an approval request unanswered tells the model the call was not approved', async () => {
    openai.enqueue({ text: '', toolCalls: [{ id: 'call_7', name: 'docs__echo', arguments: { text: 'x' } }] });
    const tools = [{ type: 'mcp', server_label: 'docs', server_id: serverId }];
    const first = await post({ model: MODEL, input: 'Echo x.', tools });
    const ask = first.body.output[1];
    expect(ask.type).toBe('mcp_approval_request');
    openai.enqueue({ text: 'Fine, I will not.' });
    const next = await post({ model: MODEL, previous_response_id: first.body.id, input: 'Never mind.' });
    expect(next.status).toBe(200);
    const sent = openai.lastRequest!.body.messages as { role: string; content: string; tool_call_id?: string }[];
    expect(sent.slice(-3).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(sent[sent.length - 2]).toMatchObject({
      tool_call_id: ask.id,
      content: expect.stringContaining('not approve'),
    });
    const approveWithoutTools = await post({
      model: MODEL,
      previous_response_id: first.body.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: ask.id, approve: true }],
    });
    expect(approveWithoutTools.status).toBe(400);
    expect(approveWithoutTools.body.error.param).toBe('tools');
    expect(docs.toolCalls).toBe(0);
  });

  it('reports a tool’s own error as a failed mcp_call, uncharged', async () => {
    openai.enqueue(
      { text: '', toolCalls: [{ id: 'call_f', name: 'docs__fail', arguments: {} }] },
      { text: 'It failed.' },
    );
    const res = await post({
      model: MODEL,
      input: 'Run fail.',
      tools: [{ type: 'mcp', server_label: 'docs', server_id: serverId, require_approval: 'never' }],
    });
    expect(res.status).toBe(200);
    expect(spec.check('failed call', 'Response', res.body)).toEqual([]);
    const call = res.body.output[1];
    expect(call.status).toBe('failed');
    expect(call.error.type).toBe('mcp_tool_execution_error');
    const records = await mcpRecords((r) => r.some((x) => x.mcp_tool === 'fail'));
    expect(records.find((r) => r.mcp_tool === 'fail')).toMatchObject({ cost_rub: 0 });
  });

  it('refuses an unregistered server_url unless the team allows them, before any upstream call', async () => {
    const body = {
      model: MODEL,
      input: 'Echo hi.',
      tools: [{ type: 'mcp', server_label: 'other', server_url: adhoc.url, require_approval: 'never' }],
    };
    const refused = await post(body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'mcp_server_not_registered',
      param: 'tools[0].server_url',
    });
    expect(openai.requests).toHaveLength(0);
    expect(adhoc.requests).toHaveLength(0);

    await setAdhoc(true);
    try {
      echoThenAnswer('other__echo', 'Ad-hoc done.');
      const res = await post(body);
      expect(res.status).toBe(200);
      expect(res.body.output[1]).toMatchObject({ server_label: 'other', output: 'echo: hi' });
      expect(adhoc.toolCalls).toBe(1);

      // still within the outbound address policy
      for (const url of ['http://169.254.169.254/mcp', 'http://10.1.2.3/mcp']) {
        const ssrf = await post({ ...body, tools: [{ ...body.tools[0], server_url: url }] });
        expect(ssrf.status).toBe(400);
        expect(ssrf.body.error.param).toBe('tools[0].server_url');
        expect(String(ssrf.body.error.code)).toMatch(/^url_/);
      }
      expect(openai.requests).toHaveLength(2);
    } finally {
      await setAdhoc(false);
    }
  });

  it('stops after MCP_MAX_TOOL_ROUNDS model calls: the last one is offered no tools and answers', async () => {
    const call = (i: number) => ({
      text: '',
      toolCalls: [{ id: `call_${i}`, name: 'docs__echo', arguments: { text: `${i}` } }],
    });
    openai.enqueue(...Array.from({ length: 8 }, (_, i) => call(i)));
    const res = await post({
      model: MODEL,
      input: 'Keep echoing.',
      tools: [{ type: 'mcp', server_label: 'docs', server_id: serverId, require_approval: 'never' }],
    });
    expect(res.status).toBe(200);
    expect(openai.requests).toHaveLength(8);
    expect(openai.requests.slice(0, 7).map((r) => r.body.tool_choice ?? 'auto')).not.toContain('none');
    expect(openai.requests[7].body.tool_choice).toBe('none');
    const types = res.body.output.map((o: Json) => o.type);
    expect(types.filter((x: string) => x === 'mcp_call')).toHaveLength(7);
    expect(types[types.length - 1]).toBe('message');
    expect(docs.toolCalls).toBe(7);
  });

  it('refuses malformed mcp tools with a 400 naming the field', async () => {
    const cases: [Json, string][] = [
      [{ type: 'mcp', server_id: serverId }, 'tools[0].server_label'],
      [{ type: 'mcp', server_label: 'docs' }, 'tools[0].server_url'],
      [{ type: 'mcp', server_label: 'docs', server_id: 'mcp_unknown' }, 'tools[0].server_id'],
      [
        { type: 'mcp', server_label: 'docs', server_id: serverId, require_approval: 'sometimes' },
        'tools[0].require_approval',
      ],
    ];
    for (const [tool, param] of cases) {
      const res = await post({ model: MODEL, input: 'x', tools: [tool] });
      expect([param, res.status, res.body.error?.param]).toEqual([param, 400, param]);
    }
    expect(openai.requests).toHaveLength(0);
  });
});
