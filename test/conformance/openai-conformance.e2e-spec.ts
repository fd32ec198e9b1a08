/**
 * Response conformance: every `/v1` body and stream event the gateway produces for the OpenAI
 * endpoints it implements is validated against OpenAI's published OpenAPI document (vendored in
 * test/conformance, see README.md there), with the official `openai` SDK driving the calls. Chat
 * completions (plain, tools, streaming chunks with usage), Responses (plain, tools, stream events,
 * a failed stream), embeddings, models, files, vector stores with their files, batches and search,
 * images, and error bodies. The suite ends by asserting 0 violations.
 */
import { toFile } from 'openai';
import { faults } from '../fakes';
import { backendKind } from '../support/test-env';
import { Conformance } from './openai-schema';
import { Json, OpenAiGateway } from './openai-gateway';

const WEATHER = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

const DOC = 'The lighthouse keeper of Vardo logs the weather every morning at six. '.repeat(8);

describe(`OpenAI response conformance (${backendKind()})`, () => {
  const spec = new Conformance();
  let gw: OpenAiGateway;

  beforeAll(async () => {
    spec.compile(
      'CreateChatCompletionResponse',
      'CreateChatCompletionStreamResponse',
      'Response',
      'ResponseStreamEvent',
    ); // before any SDK connection opens (compiling takes seconds)
    gw = await OpenAiGateway.start({ env: { INGEST_POLL_MS: '100' } });
  });

  afterEach(() => gw.openai.reset());

  afterAll(async () => {
    await gw?.close();
  });

  describe('chat completions', () => {
    it('non-stream answers (local model, upstream model, tool call, n = 2)', async () => {
      for (const model of ['local', 'gpt-4o-mini']) {
        const res = await gw.post('/v1/chat/completions', {
          model,
          messages: [{ role: 'user', content: 'Hello there' }],
        });
        expect(res.status).toBe(200);
        expect(spec.check(`chat ${model}`, 'CreateChatCompletionResponse', res.body)).toEqual([]);
      }
      gw.openai.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], finish: 'tool_calls' });
      const tool = await gw.post('/v1/chat/completions', {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [WEATHER],
      });
      expect(tool.status).toBe(200);
      expect(spec.check('chat tool call', 'CreateChatCompletionResponse', tool.body)).toEqual([]);
      const n2 = await gw.post('/v1/chat/completions', {
        model: 'gpt-4o-mini',
        n: 2,
        messages: [{ role: 'user', content: 'Two answers' }],
      });
      expect(n2.status).toBe(200);
      expect(spec.check('chat n=2', 'CreateChatCompletionResponse', n2.body)).toEqual([]);
      // the SDK reads the same body
      const sdk = await gw.client.chat.completions.create({
        model: 'local',
        messages: [{ role: 'user', content: 'Hi' }],
      });
      expect(spec.check('chat via SDK', 'CreateChatCompletionResponse', sdk)).toEqual([]);
    });

    it('stream chunks, with usage, with a streamed tool call', async () => {
      for (const model of ['local', 'gpt-4o-mini']) {
        const events = await gw.sse('/v1/chat/completions', {
          model,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'Stream me something' }],
        });
        expect(events.length).toBeGreaterThan(1);
        for (const e of events)
          expect(spec.check(`chat chunk ${model}`, 'CreateChatCompletionStreamResponse', e)).toEqual([]);
      }
      gw.openai.enqueue({ text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
      const events = await gw.sse('/v1/chat/completions', {
        model: 'gpt-4o-mini',
        stream: true,
        tools: [WEATHER],
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      });
      for (const e of events)
        expect(spec.check('chat tool chunk', 'CreateChatCompletionStreamResponse', e)).toEqual([]);
    });
  });

  describe('responses', () => {
    it('non-stream answers (local, upstream, function call) and the SDK reads them', async () => {
      for (const model of ['local', 'gpt-4o-mini']) {
        const res = await gw.post('/v1/responses', { model, input: 'Hello there', user: undefined });
        expect(res.status).toBe(200);
        expect(spec.check(`response ${model}`, 'Response', res.body)).toEqual([]);
      }
      gw.openai.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }], finish: 'tool_calls' });
      const fn = await gw.post('/v1/responses', {
        model: 'gpt-4o-mini',
        input: 'Weather in Rome?',
        tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER.function.parameters }],
      });
      expect(fn.status).toBe(200);
      expect(spec.check('response function call', 'Response', fn.body)).toEqual([]);
      const sdk = await gw.client.responses.create({ model: 'local', input: 'Hi' });
      expect(spec.check('response via SDK', 'Response', sdk)).toEqual([]);
    });

    it('stream events: text, function call, and a failed stream', async () => {
      for (const model of ['local', 'gpt-4o-mini']) {
        const events = await gw.sse('/v1/responses', { model, input: 'Stream me something', stream: true });
        expect(events.map((e) => e.type)).toContain('response.completed');
        for (const e of events)
          expect(spec.checkEvent(`response event ${model}`, 'ResponseStreamEvent', e)).toEqual([]);
      }
      gw.openai.enqueue({ text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
      const tool = await gw.sse('/v1/responses', {
        model: 'gpt-4o-mini',
        input: 'Weather in Oslo?',
        stream: true,
        tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER.function.parameters }],
      });
      for (const e of tool) expect(spec.checkEvent('response tool event', 'ResponseStreamEvent', e)).toEqual([]);
      // a failure after the stream started: response.failed carries one of the spec's error codes
      // (the upstream's in-stream error event becomes the gateway's upstream_error, which the spec's
      // ResponseErrorCode does not have: the response says server_error)
      gw.openai.enqueue({ text: 'This answer breaks off', fault: faults.streamError({ afterChunks: 1 }) });
      const failed = await gw.sse('/v1/responses', { model: 'gpt-4o-mini', input: 'Break', stream: true });
      const last = failed.find((e) => e.type === 'response.failed');
      expect((last?.response as Json | undefined)?.error).toMatchObject({ code: 'server_error' });
      for (const e of failed) expect(spec.checkEvent('response failed event', 'ResponseStreamEvent', e)).toEqual([]);
    });
  });

  describe('embeddings, models, images', () => {
    it('embeddings (float and base64, local and upstream)', async () => {
      for (const model of ['local-embedding-small', 'text-embedding-3-small']) {
        for (const encoding_format of ['float', 'base64']) {
          const res = await gw.post('/v1/embeddings', { model, input: ['alpha', 'beta'], encoding_format });
          expect(res.status).toBe(200);
          // the document types `embedding` as numbers only; with base64 (what the SDKs ask for by
          // default) OpenAI itself answers a base64 string, so that string is checked, then decoded
          const body = res.body as { data: { embedding: unknown }[] };
          if (encoding_format === 'base64')
            for (const d of body.data) {
              expect(typeof d.embedding).toBe('string');
              const bytes = Buffer.from(d.embedding as string, 'base64');
              d.embedding = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
            }
          expect(spec.check(`embeddings ${model} ${encoding_format}`, 'CreateEmbeddingResponse', body)).toEqual([]);
        }
      }
    });

    it('models list and one model', async () => {
      const list = await gw.get('/v1/models');
      expect(list.status).toBe(200);
      expect(spec.check('models', 'ListModelsResponse', list.body)).toEqual([]);
      const one = await gw.get('/v1/models/local');
      expect(spec.check('model', 'Model', one.body)).toEqual([]);
    });

    it('images (url and b64_json; dall-e-3 quality "standard" is not in the response enum and is left out)', async () => {
      for (const response_format of ['url', 'b64_json']) {
        const res = await gw.post('/v1/images/generations', {
          model: 'local-image',
          prompt: 'a lighthouse at dawn',
          size: '1024x1024',
          quality: 'low',
          response_format,
        });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ quality: 'low', output_format: 'png' });
        expect(spec.check(`images ${response_format}`, 'ImagesResponse', res.body)).toEqual([]);
      }
      const dalle = await gw.post('/v1/images/generations', {
        model: 'dall-e-3',
        prompt: 'a cat astronaut',
        size: '1024x1024',
        response_format: 'b64_json',
      });
      expect(dalle.status).toBe(200);
      expect(gw.openai.lastRequest?.body).toMatchObject({ model: 'dall-e-3', quality: 'standard' });
      expect(dalle.body).not.toHaveProperty('quality');
      expect(spec.check('images dall-e-3', 'ImagesResponse', dalle.body)).toEqual([]);
    });

    it('error bodies', async () => {
      const bad = await gw.post('/v1/chat/completions', { model: 'local', messages: [] });
      expect(bad.status).toBe(400);
      expect(spec.check('error 400', 'ErrorResponse', bad.body)).toEqual([]);
      const unknown = await gw.get('/v1/models/no-such-model');
      expect(unknown.status).toBe(404);
      expect(spec.check('error 404', 'ErrorResponse', unknown.body)).toEqual([]);
    });
  });

  describe('files and vector stores', () => {
    it('files, stores, store files, batches, search, deletions', async () => {
      const file = await gw.client.files.create({
        file: await toFile(Buffer.from(DOC), 'notes.txt'),
        purpose: 'assistants',
      });
      spec.check('file create', 'OpenAIFile', file);
      spec.check('file get', 'OpenAIFile', (await gw.get(`/v1/files/${file.id}`)).body);
      spec.check('file list', 'ListFilesResponse', (await gw.get('/v1/files')).body);

      const store = (await gw.post('/v1/vector_stores', { name: 'conformance' })).body as Json;
      spec.check('vector store create', 'VectorStoreObject', store);
      const expiring = await gw.post('/v1/vector_stores', {
        name: 'expiring',
        expires_after: { anchor: 'last_active_at', days: 7 },
      });
      spec.check('vector store with expires_after', 'VectorStoreObject', expiring.body);
      const vsFile = await gw.client.vectorStores.files.createAndPoll(
        String(store.id),
        { file_id: file.id, attributes: { lang: 'en' } },
        { pollIntervalMs: 50 },
      );
      spec.check('vector store file', 'VectorStoreFileObject', vsFile);
      spec.check(
        'vector store file list',
        'ListVectorStoreFilesResponse',
        (await gw.get(`/v1/vector_stores/${String(store.id)}/files`)).body,
      );
      spec.check(
        'vector store file update',
        'VectorStoreFileObject',
        (await gw.post(`/v1/vector_stores/${String(store.id)}/files/${file.id}`, { attributes: { lang: 'de' } })).body,
      );
      spec.check('vector store get', 'VectorStoreObject', (await gw.get(`/v1/vector_stores/${String(store.id)}`)).body);
      spec.check('vector store list', 'ListVectorStoresResponse', (await gw.get('/v1/vector_stores')).body);
      spec.check(
        'vector store update',
        'VectorStoreObject',
        (await gw.post(`/v1/vector_stores/${String(store.id)}`, { name: 'renamed' })).body,
      );

      const second = await gw.client.files.create({
        file: await toFile(Buffer.from(DOC), 'more.txt'),
        purpose: 'assistants',
      });
      const batch = await gw.post(`/v1/vector_stores/${String(store.id)}/file_batches`, { file_ids: [second.id] });
      spec.check('file batch create', 'VectorStoreFileBatchObject', batch.body);
      const batchId = String((batch.body as Json).id);
      const done = await gw.client.vectorStores.fileBatches.poll(String(store.id), batchId, { pollIntervalMs: 50 });
      spec.check('file batch get', 'VectorStoreFileBatchObject', done);
      spec.check(
        'file batch files',
        'ListVectorStoreFilesResponse',
        (await gw.get(`/v1/vector_stores/${String(store.id)}/file_batches/${batchId}/files`)).body,
      );

      const search = await gw.post(`/v1/vector_stores/${String(store.id)}/search`, { query: 'weather at six' });
      expect(search.status).toBe(200);
      spec.check('vector store search', 'VectorStoreSearchResultsPage', search.body);

      // the file_search tool of /v1/responses: the file_search_call item, results, file citations, events
      const fileSearch = {
        model: 'local',
        input: 'What is the weather at six?',
        tools: [{ type: 'file_search', vector_store_ids: [String(store.id)] }],
        include: ['file_search_call.results'],
      };
      const searched = await gw.post('/v1/responses', fileSearch);
      expect(searched.status).toBe(200);
      expect((searched.body as { output: Json[] }).output.map((o) => o.type)).toEqual(['file_search_call', 'message']);
      const answer = (searched.body as { output: { content?: { annotations: Json[] }[] }[] }).output[1];
      expect(answer.content![0].annotations[0]).toMatchObject({ type: 'file_citation', file_id: file.id });
      expect(spec.check('response with file search', 'Response', searched.body)).toEqual([]);
      const fsEvents = await gw.sse('/v1/responses', { ...fileSearch, stream: true });
      expect(fsEvents.map((e) => e.type)).toContain('response.file_search_call.completed');
      for (const e of fsEvents)
        expect(spec.checkEvent('response file search event', 'ResponseStreamEvent', e)).toEqual([]);

      spec.check(
        'vector store file delete',
        'DeleteVectorStoreFileResponse',
        (await gw.del(`/v1/vector_stores/${String(store.id)}/files/${file.id}`)).body,
      );
      spec.check(
        'vector store delete',
        'DeleteVectorStoreResponse',
        (await gw.del(`/v1/vector_stores/${String(store.id)}`)).body,
      );
      spec.check('file delete', 'DeleteFileResponse', (await gw.del(`/v1/files/${second.id}`)).body);
      expect(spec.report()).toBe('');
    });
  });

  afterAll(() => {
    // one place that lists every violation, whichever test produced it
    expect(spec.checked.length).toBeGreaterThan(40);
    expect(spec.report()).toBe('');
  });
});
