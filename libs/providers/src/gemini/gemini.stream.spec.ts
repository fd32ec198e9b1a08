import { CanonicalChatChunk } from '../types';
import { readSseFixture, replayStream, thrownFields } from '../http/testing/fixtures';
import { geminiAdapter } from './index';
import { createGeminiStreamState, flushGeminiStream, mapGeminiStreamEvent } from './gemini.stream';

const NOW = Date.parse('2025-08-01T12:00:00Z');
const created = NOW / 1000;

const replay = (name: string, model: string) =>
  replayStream(geminiAdapter, readSseFixture(__dirname, name), model, NOW);

function chunk(
  id: string,
  model: string,
  rest: Pick<CanonicalChatChunk, 'choices'> & Partial<CanonicalChatChunk>,
): CanonicalChatChunk {
  return { id, object: 'chat.completion.chunk', created, model, ...rest };
}

describe('Gemini stream mapping', () => {
  it('maps text fragments (CRLF-framed), then emits the last usage on a final choices: [] chunk', () => {
    const c = (rest: Pick<CanonicalChatChunk, 'choices'> & Partial<CanonicalChatChunk>) =>
      chunk('s6mMaKPxJ9KHz7IP1p3u0Qw', 'gemini-flash', rest);
    expect(replay('stream-text.sse', 'gemini-flash')).toEqual([
      c({ choices: [{ index: 0, delta: { role: 'assistant', content: 'При' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: { content: 'вет! Чем могу помочь?' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      c({
        choices: [],
        usage: {
          prompt_tokens: 9,
          completion_tokens: 11,
          total_tokens: 20,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
        },
      }),
    ]);
  });

  it('maps whole function calls to complete tool-call deltas', () => {
    const c = (rest: Pick<CanonicalChatChunk, 'choices'> & Partial<CanonicalChatChunk>) =>
      chunk('xqmMaOGgAaGHz7IPxbK6-Qc', 'gemini-flash', rest);
    expect(replay('stream-function-call.sse', 'gemini-flash')).toEqual([
      c({
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              tool_calls: [
                {
                  index: 0,
                  id: 'call_0_get_weather',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Moscow"}' },
                },
                {
                  index: 1,
                  id: 'call_1_get_weather',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Kazan"}' },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
      }),
      c({
        choices: [],
        usage: {
          prompt_tokens: 96,
          completion_tokens: 94,
          total_tokens: 190,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          reasoning_tokens: 60,
        },
      }),
    ]);
  });

  it('maps thought parts to reasoning_content deltas', () => {
    const c = (rest: Pick<CanonicalChatChunk, 'choices'> & Partial<CanonicalChatChunk>) =>
      chunk('1qmMaMrbBuaPz7IP7d3gSQ', 'gemini-flash', rest);
    expect(replay('stream-thoughts.sse', 'gemini-flash')).toEqual([
      c({
        choices: [
          {
            index: 0,
            delta: { role: 'assistant', reasoning_content: '**Planning the answer**\n\nThe user wants a haiku.' },
            finish_reason: null,
          },
        ],
      }),
      c({ choices: [{ index: 0, delta: { content: 'Тихий пруд.' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: { content: ' Лягушка прыгнула.' }, finish_reason: 'stop' }] }),
      c({
        choices: [],
        usage: {
          prompt_tokens: 12,
          completion_tokens: 100,
          total_tokens: 112,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          reasoning_tokens: 89,
        },
      }),
    ]);
  });

  it('numbers tool calls across fragments of one candidate', () => {
    const state = createGeminiStreamState('g', NOW);
    const fragment = (name: string, finish?: string) => ({
      data: JSON.stringify({
        candidates: [
          {
            content: { role: 'model', parts: [{ functionCall: { name, args: {} } }] },
            index: 0,
            ...(finish ? { finishReason: finish } : {}),
          },
        ],
        responseId: 'r1',
      }),
    });
    expect(mapGeminiStreamEvent(fragment('a'), state)[0].choices[0].delta.tool_calls).toEqual([
      { index: 0, id: 'call_0_a', type: 'function', function: { name: 'a', arguments: '{}' } },
    ]);
    expect(mapGeminiStreamEvent(fragment('b', 'STOP'), state)).toEqual([
      chunk('r1', 'g', {
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [{ index: 1, id: 'call_1_b', type: 'function', function: { name: 'b', arguments: '{}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      }),
    ]);
  });

  it('maps a blocked prompt to a content_filter finish', () => {
    const state = createGeminiStreamState('g', NOW);
    expect(
      mapGeminiStreamEvent(
        {
          data: '{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7},"responseId":"blk"}',
        },
        state,
      ),
    ).toEqual([
      chunk('blk', 'g', { choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: 'content_filter' }] }),
    ]);
    expect(flushGeminiStream(state)).toEqual([
      chunk('blk', 'g', {
        choices: [],
        usage: { prompt_tokens: 7, completion_tokens: 0, total_tokens: 7, cache_read_tokens: 0, cache_write_tokens: 0 },
      }),
    ]);
    expect(flushGeminiStream(state)).toEqual([]);
  });

  it('throws ProviderError on an in-stream error, an unreadable chunk, or a stream without finishReason', () => {
    const state = createGeminiStreamState('g', NOW);
    expect(
      thrownFields(() =>
        mapGeminiStreamEvent(
          { data: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}' },
          state,
        ),
      ),
    ).toEqual({
      kind: 'upstream',
      message: 'The model is overloaded.',
      upstreamStatus: 503,
      retryAfterSeconds: undefined,
      param: undefined,
    });
    expect(thrownFields(() => mapGeminiStreamEvent({ data: 'not json' }, state)).message).toBe(
      'Upstream sent an unreadable stream chunk',
    );

    const cut = createGeminiStreamState('g', NOW);
    readSseFixture(__dirname, 'stream-truncated.sse').forEach((e) => mapGeminiStreamEvent(e, cut));
    expect(thrownFields(() => flushGeminiStream(cut))).toMatchObject({
      kind: 'upstream',
      message: 'Upstream stream ended before a finishReason',
    });
  });
});
