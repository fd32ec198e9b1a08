/**
 * Stored responses of /v1/responses: `store` (default true) keeps the answer per team for 30 days;
 * GET /v1/responses/{id}, DELETE and GET …/input_items (cursor pages) serve it, validated against
 * OpenAI's schemas; `previous_response_id` continues the stored conversation (input and output,
 * not the earlier instructions; function calls answered by function_call_output); store: false
 * keeps nothing; another team's ids, deleted and expired responses answer 404 — before any charge.
 */
import type OpenAI from 'openai';
import request from 'supertest';
import type { FakeOpenAI } from '../fakes';
import type { AdminClient } from '../support/admin-client';
import { ManualClock } from '../support/manual-clock';
import type { TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { parseSse, Wallet } from '../chat/chat-helpers';
import { Conformance } from './openai-schema';
import { OpenAiGateway } from './openai-gateway';

type Json = Record<string, unknown>;

describe(`stored responses (${backendKind()})`, () => {
  const spec = new Conformance();
  const clock = new ManualClock();
  let gw: OpenAiGateway;
  let openai: FakeOpenAI;
  let t: TestApp;
  let admin: AdminClient;
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    spec.compile('Response', 'ResponseItemList');
    gw = await OpenAiGateway.start({ clock });
    ({ openai, t, apiKey, client, admin } = gw);
  });
  afterEach(() => openai.reset());
  afterAll(async () => {
    await gw?.close();
  });

  const get = (path: string, key = apiKey) => request(t.url).get(path).set('Authorization', `Bearer ${key}`);
  const del = (path: string, key = apiKey) => request(t.url).delete(path).set('Authorization', `Bearer ${key}`);

  it('store (default): GET returns the same response; input_items lists the input; DELETE removes it', async () => {
    const created = await client.responses.create({ model: 'local', input: 'Paris is the capital of France.' });
    const got = await get(`/v1/responses/${created.id}`);
    expect(got.status).toBe(200);
    // the SDK adds output_text (a convenience, not on the wire)
    const { output_text: _text, ...wire } = JSON.parse(JSON.stringify(created)) as Json;
    void _text;
    expect(got.body).toEqual(wire);
    expect(got.body.store).toBe(true);
    expect(spec.check('stored response', 'Response', got.body)).toEqual([]);
    const sdkGot = await client.responses.retrieve(created.id);
    expect(sdkGot.output_text).toBe(created.output_text);

    const items = await get(`/v1/responses/${created.id}/input_items`);
    expect(items.status).toBe(200);
    expect(spec.check('input items', 'ResponseItemList', items.body)).toEqual([]);
    expect(items.body).toMatchObject({
      object: 'list',
      has_more: false,
      data: [
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'Paris is the capital of France.' }],
        },
      ],
    });

    const deleted = await del(`/v1/responses/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.id, object: 'response', deleted: true });
    for (const res of [
      await get(`/v1/responses/${created.id}`),
      await get(`/v1/responses/${created.id}/input_items`),
      await del(`/v1/responses/${created.id}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'response_not_found', param: 'response_id' });
    }
  });

  it('store: false keeps nothing; continuing it is a 404 before any upstream call or charge', async () => {
    const created = await client.responses.create({ model: 'local', input: 'Do not keep this.', store: false });
    expect((created as unknown as Json).store).toBe(false);
    expect((await get(`/v1/responses/${created.id}`)).status).toBe(404);
    const wallet = await new Wallet(t.url, apiKey).snapshot();
    const res = await request(t.url)
      .post('/v1/responses')
      .set('Authorization', `Bearer ${apiKey}`)
      .send({ model: 'gpt-4o-mini', input: 'and then?', previous_response_id: created.id });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'response_not_found', param: 'previous_response_id' });
    expect(openai.requests).toHaveLength(0);
    await wallet.expectUntouched();
  });

  it('previous_response_id continues the conversation (not the earlier instructions)', async () => {
    openai.enqueue({ text: 'Nice to meet you, Ada.' });
    const first = await client.responses.create({
      model: 'gpt-4o-mini',
      instructions: 'Talk like a pirate.',
      input: 'My name is Ada.',
    });
    openai.enqueue({ text: 'Your name is Ada.' });
    const second = await client.responses.create({
      model: 'gpt-4o-mini',
      instructions: 'Be brief.',
      input: 'What is my name?',
      previous_response_id: first.id,
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(openai.lastRequest?.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Nice to meet you, Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    // a chain of three: the second's stored conversation includes the first
    openai.enqueue({ text: 'Yes.' });
    await client.responses.create({ model: 'gpt-4o-mini', input: 'Sure?', previous_response_id: second.id });
    expect((openai.lastRequest?.body.messages as Json[]).map((m) => m.content)).toEqual([
      'My name is Ada.',
      'Nice to meet you, Ada.',
      'What is my name?',
      'Your name is Ada.',
      'Sure?',
    ]);
  });

  it('a stored function call is answered with function_call_output on the next response', async () => {
    const tool = {
      type: 'function' as const,
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      strict: false,
    };
    openai.enqueue({
      toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Oslo' } }],
      finish: 'tool_calls',
    });
    const first = await client.responses.create({ model: 'gpt-4o-mini', input: 'Weather in Oslo?', tools: [tool] });
    const call = first.output.find((o) => o.type === 'function_call');
    expect(call).toMatchObject({ call_id: 'call_w1', name: 'get_weather' });
    openai.enqueue({ text: 'Snowing in Oslo.' });
    const second = await client.responses.create({
      model: 'gpt-4o-mini',
      previous_response_id: first.id,
      tools: [tool],
      input: [{ type: 'function_call_output', call_id: 'call_w1', output: '{"sky":"snow"}' }],
    });
    expect(second.output_text).toBe('Snowing in Oslo.');
    const sent = openai.lastRequest?.body.messages as Json[];
    expect(sent.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_w1', content: '{"sky":"snow"}' },
    ]);
    const items = await get(`/v1/responses/${second.id}/input_items`);
    expect(spec.check('function_call_output items', 'ResponseItemList', items.body)).toEqual([]);
  });

  it('a streamed response is stored when it completes', async () => {
    const res = await request(t.url)
      .post('/v1/responses')
      .set('Authorization', `Bearer ${apiKey}`)
      .send({ model: 'local', input: 'Stream and keep me.', stream: true })
      .buffer(true)
      .parse((r, cb) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => cb(null, text));
      });
    const done = parseSse(res.body as string)
      .map((m) => JSON.parse(m.data) as Json)
      .find((e) => e.type === 'response.completed')!.response as Json;
    const got = await get(`/v1/responses/${String(done.id)}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(done);
  });

  it('input_items pages (order, limit, after)', async () => {
    const created = await client.responses.create({
      model: 'local',
      input: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
        { role: 'user', content: 'three' },
      ],
    });
    const asc = await get(`/v1/responses/${created.id}/input_items?order=asc&limit=2`);
    expect(spec.check('input items page', 'ResponseItemList', asc.body)).toEqual([]);
    const text = (d: Json[]) => d.map((i) => ((i.content as Json[])[0] as { text: string }).text);
    expect(text(asc.body.data)).toEqual(['one', 'two']);
    expect(asc.body.has_more).toBe(true);
    const rest = await get(`/v1/responses/${created.id}/input_items?order=asc&after=${asc.body.last_id}`);
    expect(text(rest.body.data)).toEqual(['three']);
    expect(rest.body.has_more).toBe(false);
    const desc = await get(`/v1/responses/${created.id}/input_items`);
    expect(text(desc.body.data)).toEqual(['three', 'two', 'one']);
  });

  it("another team's response is 404 everywhere (read, items, delete, continue)", async () => {
    const mine = await client.responses.create({ model: 'local', input: 'private' });
    const { apiKey: otherKey } = await admin.teamWithKey(100);
    expect((await get(`/v1/responses/${mine.id}`, otherKey)).status).toBe(404);
    expect((await get(`/v1/responses/${mine.id}/input_items`, otherKey)).status).toBe(404);
    expect((await del(`/v1/responses/${mine.id}`, otherKey)).status).toBe(404);
    const cont = await request(t.url)
      .post('/v1/responses')
      .set('Authorization', `Bearer ${otherKey}`)
      .send({ model: 'local', input: 'x', previous_response_id: mine.id });
    expect(cont.status).toBe(404);
    expect((await get(`/v1/responses/${mine.id}`)).status).toBe(200);
  });

  it('retention: 30 days, then gone', async () => {
    const kept = await client.responses.create({ model: 'local', input: 'for a month' });
    clock.advance(29 * 86_400_000);
    expect((await get(`/v1/responses/${kept.id}`)).status).toBe(200);
    clock.advance(2 * 86_400_000);
    expect((await get(`/v1/responses/${kept.id}`)).status).toBe(404);
  });
});
