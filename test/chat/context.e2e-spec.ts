/**
 * Chat context without a project: knowledge_base_id and PDFs in file_urls in chat, on both endpoints.
 * The offline `local` model answers from a knowledge-base PDF and `sources` names it; a PDF served
 * by a local server under a public-looking name (injected resolver) joins the context; a
 * full_context model (Gemini 2.5 on the fake) receives the PDF's full text; prompt_tokens grows by
 * the context; the balance moves by the chat's tokens × price plus the query-embedding and rerank
 * charges, one ledger entry each.
 */
import OpenAI, { toFile } from 'openai';
import request from 'supertest';
import { SAFE_FETCHER_OPTIONS, SafeFetcherOptions } from '@app/common';
import { FakeGemini, ImageServer } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { FILLER, pdfWithPages } from '../knowledge/kb-fixtures';
import { charges, expectedCost, getBalance, PRICES, providerEnv, toMicro, UPSTREAM_KEYS } from './chat-helpers';

const DOCS_HOST = 'docs.example.com'; // resolves to 127.0.0.1 through the injected resolver
const FACT = 'The secret launch codename is BLUE HERON and it ships in May.';
const PDF_FACT = 'The warehouse in Kazan stores exactly 4512 pallets of copper wire.';

describe(`chat with knowledge bases and PDFs (${backendKind()})`, () => {
  let t: TestApp;
  let web: ImageServer;
  let gemini: FakeGemini;
  let admin: AdminClient;
  let apiKey: string;
  let client: OpenAI;
  let storeId: string;
  let fileId: string;

  beforeAll(async () => {
    web = await ImageServer.start();
    gemini = await FakeGemini.start({ apiKey: UPSTREAM_KEYS.gemini });
    const fetcher: SafeFetcherOptions = {
      resolver: async (host) =>
        host === DOCS_HOST ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.7', family: 4 }],
      allowAddress: (ip) => ip === '127.0.0.1',
    };
    // no OpenAI key: knowledge bases and rerank use the local embedder
    t = await createTestApp({
      env: { ...providerEnv({ gemini }), INGEST_POLL_MS: '100' },
      overrides: [{ provide: SAFE_FETCHER_OPTIONS, useValue: fetcher }],
    });
    admin = new AdminClient(t.url);
    ({ apiKey } = await admin.teamWithKey(100, 'ctx-team'));
    client = new OpenAI({ apiKey, baseURL: `${t.url}/v1`, maxRetries: 0 });
    const pdf = await pdfWithPages([FILLER, [FACT, ...FILLER.slice(0, 1)], FILLER.slice(1)], 'Company handbook');
    const store = await client.vectorStores.create({ name: 'handbook' });
    const done = await client.vectorStores.files.uploadAndPoll(store.id, await toFile(pdf, 'handbook.pdf'), {
      pollIntervalMs: 50,
    });
    expect(done.status).toBe('completed');
    storeId = store.id;
    fileId = done.id;
  });
  afterEach(() => gemini.reset());
  afterAll(async () => {
    await t?.close();
    await web?.close();
    await gemini?.close();
  });

  const rest = (body: Record<string, unknown>, key = apiKey) =>
    request(t.url)
      .post('/api/v1/chat')
      .set('api-key', key)
      .send({ model: 'local', user_id: 'u', ...body });

  it('REST + knowledge_base_id, local model: answers with the PDF sentence, names it in sources; tokens and charges add up', async () => {
    const prompt = 'What is the launch codename?';
    const plain = await rest({ prompt, project_id: null, knowledge_base_id: null, mode: null }); // null = absent (the Swagger examples)
    expect(plain.status).toBe(200);
    expect(plain.body.sources).toBeUndefined();

    const before = toMicro((await getBalance(t.url, apiKey)).balance_rub);
    const chargesBefore = (await charges(t.url, apiKey)).length;
    const res = await rest({ prompt, knowledge_base_id: storeId });
    expect(res.status).toBe(200);
    expect(res.body.response.text).toContain(FACT);
    expect(res.body.sources[0]).toMatchObject({
      n: 1,
      material_id: storeId,
      kind: 'knowledge_base',
      title: 'Company handbook',
      page: 2,
      url: null,
      document_id: fileId,
      filename: 'handbook.pdf',
    });
    expect(res.body.sources[0].score).toBeGreaterThanOrEqual(0.1);
    // the fragment's chunk within the document: the PDF's page 2 is not its first chunk
    expect(res.body.sources[0].chunk_index).toBeGreaterThanOrEqual(1);
    expect(res.body.context).toMatchObject({ mode: 'rag', materials_full: [], fragments: res.body.sources.length });
    expect(res.headers['server-timing']).toMatch(/^context;dur=\d+(\.\d)?/);

    // prompt_tokens includes the context (its message plus the chat format's per-message overhead)
    const grew = res.body.usage.prompt_tokens - plain.body.usage.prompt_tokens;
    expect(grew).toBeGreaterThanOrEqual(res.body.context.tokens);
    expect(grew).toBeLessThanOrEqual(res.body.context.tokens + 8);

    // the chat at tokens × price, plus the query embedding and the rerank, one ledger entry each
    const fresh = (await charges(t.url, apiKey)).slice(0, (await charges(t.url, apiKey)).length - chargesBefore);
    expect(fresh).toHaveLength(3);
    const chat = fresh.find((e) => e.model === 'local')!;
    const chatCost = expectedCost(PRICES.local, {
      prompt: res.body.usage.prompt_tokens,
      completion: res.body.usage.completion_tokens,
    });
    expect(toMicro(Math.abs(chat.amount_rub))).toBe(toMicro(chatCost.total_cost_rub));
    const retrieval = fresh.filter((e) => e !== chat);
    expect(retrieval.map((e) => e.model).sort()).toEqual(['local-embedding-small', 'rerank-small']);
    expect(retrieval.every((e) => e.endpoint === '/api/v1/chat')).toBe(true);
    const retrievalMicro = retrieval.reduce((s, e) => s + toMicro(Math.abs(e.amount_rub)), 0);
    expect(retrievalMicro).toBeGreaterThan(0);
    expect(toMicro(res.body.cost.retrieval_cost_rub)).toBe(retrievalMicro);
    expect(toMicro(res.body.cost.total_cost_rub)).toBe(toMicro(chatCost.total_cost_rub) + retrievalMicro);
    expect(before - toMicro((await getBalance(t.url, apiKey)).balance_rub)).toBe(toMicro(res.body.cost.total_cost_rub));
  });

  it('/v1/chat/completions (openai SDK, extra body field) + knowledge_base_id: same answer, sources on the response and on the last stream chunk', async () => {
    const body = {
      model: 'local',
      messages: [{ role: 'user' as const, content: 'What is the launch codename?' }],
      knowledge_base_id: storeId,
    };
    const res = await client.chat.completions
      .create(body as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .withResponse();
    const out = res.data as unknown as {
      choices: { message: { content: string } }[];
      sources: { title: string; kind: string }[];
      context: { mode: string };
    };
    expect(out.choices[0].message.content).toContain(FACT);
    expect(out.sources[0]).toMatchObject({ title: 'Company handbook', kind: 'knowledge_base' });
    expect(out.context.mode).toBe('rag');

    for (const includeUsage of [true, false]) {
      const stream = await client.chat.completions.create({
        ...body,
        stream: true,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      } as OpenAI.ChatCompletionCreateParamsStreaming);
      let text = '';
      let last: Record<string, unknown> | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        last = chunk as unknown as Record<string, unknown>;
      }
      expect(text).toContain(FACT);
      expect(last!.choices).toEqual([]);
      expect((last!.sources as { title: string }[])[0].title).toBe('Company handbook');
      expect(last!.usage === undefined).toBe(!includeUsage);
    }
  });

  it('REST streaming: the done event carries sources and context', async () => {
    const res = await rest({ prompt: 'What is the launch codename?', knowledge_base_id: storeId, stream: true })
      .buffer(true)
      .parse((r, cb) => {
        let data = '';
        r.on('data', (c: Buffer) => (data += c.toString()));
        r.on('end', () => cb(null, data));
      });
    const done = /event: done\ndata: (.*)\n/.exec(res.body as string);
    expect(done).not.toBeNull();
    const dto = JSON.parse(done![1]);
    expect(dto.response.text).toContain(FACT);
    expect(dto.sources[0].title).toBe('Company handbook');
  });

  it('another team’s knowledge base, or an unknown one → 404 knowledge_base_not_found (nothing charged)', async () => {
    const stranger = await admin.teamWithKey(100, 'stranger');
    const before = (await charges(t.url, stranger.apiKey)).length;
    for (const id of [storeId, 'vs_000000000000000000000000']) {
      const res = await rest({ prompt: 'launch codename?', knowledge_base_id: id }, stranger.apiKey);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'knowledge_base_not_found', param: 'knowledge_base_id' });
    }
    expect(await charges(t.url, stranger.apiKey)).toHaveLength(before);
  });

  it('/v1/responses with the file_search tool (openai SDK): a file_search_call item, then the answer quoting the PDF with a file citation; the search is charged as retrieval', async () => {
    const chargesBefore = (await charges(t.url, apiKey)).length;
    const res = await client.responses.create({
      model: 'local',
      input: 'What is the launch codename?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
      include: ['file_search_call.results'],
    });
    expect(res.output.map((o) => o.type)).toEqual(['file_search_call', 'message']);
    const call = res.output[0] as OpenAI.Responses.ResponseFileSearchToolCall;
    expect(call).toMatchObject({ status: 'completed', queries: ['What is the launch codename?'] });
    expect(call.id).toMatch(/^fs_/);
    expect(call.results![0]).toMatchObject({ file_id: fileId, filename: 'handbook.pdf' });
    expect(call.results![0].text).toContain(FACT);
    expect(call.results![0].score).toBeGreaterThan(0);
    const part = (res.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0];
    if (part.type !== 'output_text') throw new Error('expected output_text');
    expect(part.text).toContain(FACT);
    expect(part.annotations).toContainEqual({
      type: 'file_citation',
      file_id: fileId,
      filename: 'handbook.pdf',
      index: part.text.indexOf(FACT) + FACT.length,
    });
    expect(res.tools).toEqual([expect.objectContaining({ type: 'file_search', vector_store_ids: [storeId] })]);
    // the chat and the query embedding, one ledger entry each (no rerank: the store's own ranking)
    const fresh = (await charges(t.url, apiKey)).slice(0, (await charges(t.url, apiKey)).length - chargesBefore);
    expect(fresh.map((e) => e.model).sort()).toEqual(['local', 'local-embedding-small']);
    const cost = (res as unknown as { cost: { retrieval_cost_rub: number } }).cost;
    expect(toMicro(cost.retrieval_cost_rub)).toBe(
      toMicro(Math.abs(fresh.find((e) => e.model === 'local-embedding-small')!.amount_rub)),
    );

    // without include, the item carries no results
    const plain = await client.responses.create({
      model: 'local',
      input: 'What is the launch codename?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId], max_num_results: 2 }],
    });
    expect((plain.output[0] as OpenAI.Responses.ResponseFileSearchToolCall).results).toBeNull();

    // filters as the vector-store search takes them: the file has no such attribute, so nothing is found
    const filtered = await client.responses.create({
      model: 'local',
      input: 'What is the launch codename?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId], filters: { type: 'eq', key: 'lang', value: 'fr' } }],
      include: ['file_search_call.results'],
    });
    expect((filtered.output[0] as OpenAI.Responses.ResponseFileSearchToolCall).results).toEqual([]);
    const none = (filtered.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0];
    expect(none.type === 'output_text' && none.annotations).toEqual([]);

    // a malformed filter → 400 naming the tool's field, nothing charged
    const chargesNow = (await charges(t.url, apiKey)).length;
    const badFilter = await request(t.url)
      .post('/v1/responses')
      .set('authorization', `Bearer ${apiKey}`)
      .send({
        model: 'local',
        input: 'launch codename?',
        tools: [{ type: 'file_search', vector_store_ids: [storeId], filters: { type: 'bogus' } }],
      });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.error.param).toMatch(/^tools\[0\]\.filters/);
    expect(await charges(t.url, apiKey)).toHaveLength(chargesNow);
  });

  it('/v1/responses file_search streaming: the file_search_call events before the message, and the citation as an annotation event', async () => {
    const stream = await client.responses.create({
      model: 'local',
      input: 'What is the launch codename?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 7)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.file_search_call.in_progress',
      'response.file_search_call.searching',
      'response.file_search_call.completed',
      'response.output_item.done',
    ]);
    const added = events.find((e) => e.type === 'response.output_text.annotation.added');
    expect(added).toMatchObject({ output_index: 1, annotation: { type: 'file_citation', file_id: fileId } });
    const done = events[events.length - 1] as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.type).toBe('response.completed');
    expect(done.response.output.map((o) => o.type)).toEqual(['file_search_call', 'message']);
  });

  it('/v1/responses file_search: another team’s or an unknown vector store → 404 vector_store_not_found; bad tool fields → 400 (nothing charged)', async () => {
    const stranger = await admin.teamWithKey(100, 'fs-stranger');
    const before = (await charges(t.url, stranger.apiKey)).length;
    const post = (tools: unknown[]) =>
      request(t.url)
        .post('/v1/responses')
        .set('authorization', `Bearer ${stranger.apiKey}`)
        .send({ model: 'local', input: 'launch codename?', tools });
    for (const id of [storeId, 'vs_000000000000000000000000']) {
      const res = await post([{ type: 'file_search', vector_store_ids: [id] }]);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'vector_store_not_found', param: 'tools[0].vector_store_ids' });
    }
    const bad = await post([{ type: 'file_search', vector_store_ids: [] }]);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ param: 'tools[0].vector_store_ids' });
    const many = await post([{ type: 'file_search', vector_store_ids: ['vs_1'], max_num_results: 51 }]);
    expect(many.status).toBe(400);
    expect(many.body.error).toMatchObject({ param: 'tools[0].max_num_results' });
    expect(await charges(t.url, stranger.apiKey)).toHaveLength(before);
  });

  it('a PDF in file_urls (served without a .pdf name, detected by content) is used; combined with system_prompt and messages', async () => {
    const pdf = await pdfWithPages([FILLER, [PDF_FACT]], 'Inventory');
    const url = web.serve('/files/inventory', pdf, 'application/octet-stream').replace('127.0.0.1', DOCS_HOST);
    const res = await rest({
      prompt: 'How many pallets of copper wire are in the Kazan warehouse?',
      system_prompt: 'Answer briefly.',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
      file_urls: [url],
    });
    expect(res.status).toBe(200);
    expect(res.body.response.text).toContain(PDF_FACT);
    expect(res.body.sources).toEqual([
      {
        n: 1,
        material_id: null,
        kind: 'file_url',
        title: 'inventory',
        page: null,
        url,
        score: null,
        document_id: null,
        filename: null,
        chunk_index: null,
      },
    ]);
    // local is full_context: the whole PDF went in
    expect(res.body.context).toMatchObject({ mode: 'full', materials_full: [url], fragments: 0 });

    // a data: URL PDF works too; a non-PDF, non-image file is refused
    const inline = await rest({
      prompt: 'How many pallets of copper wire are in the Kazan warehouse?',
      file_urls: [`data:application/pdf;base64,${pdf.toString('base64')}`],
    });
    expect(inline.status).toBe(200);
    expect(inline.body.response.text).toContain(PDF_FACT);
    const html = web.serve('/files/page', '<html>no</html>', 'text/html').replace('127.0.0.1', DOCS_HOST);
    const bad = await rest({ prompt: 'x', file_urls: [html] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ param: 'file_urls[0]', code: 'file_url_unsupported_type' });
  });

  it('a full_context model (gemini-2.5-flash on the fake) receives the full text of every page of the PDF', async () => {
    const pdf = await pdfWithPages([[FILLER[0]], [PDF_FACT], [FILLER[2]]], 'Inventory');
    const url = web.serve('/files/full.pdf', pdf, 'application/pdf').replace('127.0.0.1', DOCS_HOST);
    gemini.enqueue({ text: 'There are 4512 pallets [1].', usage: { input: 300, output: 8 } });
    const res = await rest({ model: 'gemini-2.5-flash', prompt: 'How many pallets?', file_urls: [url] });
    expect(res.status).toBe(200);
    expect(res.body.context).toMatchObject({ mode: 'full', materials_full: [url] });
    const sent = JSON.stringify(gemini.lastRequest?.body);
    for (const line of [FILLER[0], PDF_FACT, FILLER[2]]) expect(sent).toContain(line);
    expect(sent).toContain('<source id=\\"1\\" title=\\"full.pdf\\"');
    expect(sent).toMatch(/\[n\]/);
    // the upstream's usage is what is billed (no retrieval ran on the full path)
    expect(res.body.cost.retrieval_cost_rub).toBe(0);
    expect(res.body.cost.total_cost_rub).toBe(
      expectedCost(PRICES['gemini-2.5-flash'], { prompt: 300, completion: 8 }).total_cost_rub,
    );
  });

  it('an unknown mode → 400; 11 PDFs → 413 before anything is fetched', async () => {
    const many = Array.from({ length: 11 }, (_, i) =>
      web.serve(`/many/doc-${i}.pdf`, 'x', 'application/pdf').replace('127.0.0.1', DOCS_HOST),
    );
    const res = await rest({ prompt: 'x', file_urls: many });
    expect(res.status).toBe(413);
    expect(res.body.error.param).toBe('file_urls');
    expect(Object.keys(web.hitCounts()).filter((p) => p.startsWith('/many/'))).toEqual([]);
    const invalid = await rest({ prompt: 'x', mode: 'turbo_mode', knowledge_base_id: storeId });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.param).toBe('mode');
  });
});
