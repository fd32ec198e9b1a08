import { CanonicalChatChunk, ProviderError } from '../types';
import { readSseFixture, replayStream } from '../http/testing/fixtures';
import { openaiAdapter } from './index';
import { createOpenAiStreamState, flushOpenAiStream, mapOpenAiStreamEvent } from './openai.stream';

/** the gateway's clock at the call (dates what the provider does not) */
const NOW = Date.parse('2025-08-01T12:00:00Z');

const replay = (name: string, model: string) =>
  replayStream(openaiAdapter, readSseFixture(__dirname, name), model, NOW);

function chunk(
  id: string,
  created: number,
  model: string,
  rest: Pick<CanonicalChatChunk, 'choices'> & Partial<CanonicalChatChunk>,
): CanonicalChatChunk {
  return { id, object: 'chat.completion.chunk', created, model, ...rest };
}

describe('OpenAI stream mapping', () => {
  it('passes a text stream through and ends with the usage chunk', () => {
    const c = (rest: Pick<CanonicalChatChunk, 'choices'> & Partial<CanonicalChatChunk>) =>
      chunk('chatcmpl-BzV5x1q2W3e4R5t6Y7u8I9o0PaS', 1754043800, 'gpt-4o-mini', rest);
    expect(replay('stream-text.sse', 'gpt-4o-mini')).toEqual([
      c({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: { content: 'При' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: { content: 'вет!' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      c({
        choices: [],
        usage: {
          prompt_tokens: 1315,
          completion_tokens: 3,
          total_tokens: 1318,
          cache_read_tokens: 1152,
          cache_write_tokens: 0,
          reasoning_tokens: 0,
        },
      }),
    ]);
  });

  it('passes tool-call deltas through', () => {
    const c = (rest: Pick<CanonicalChatChunk, 'choices'> & Partial<CanonicalChatChunk>) =>
      chunk('chatcmpl-BzV7aB1cD2eF3gH4iJ5kL6mN7oP', 1754043900, 'gpt-4.1', rest);
    expect(replay('stream-tool-calls.sse', 'gpt-4.1')).toEqual([
      c({
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              tool_calls: [
                {
                  index: 0,
                  id: 'call_Qm2wY0V6yPzJ1cN8dE4rT7uK',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '' },
                },
              ],
            },
            finish_reason: null,
          },
        ],
      }),
      c({
        choices: [
          { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, finish_reason: null },
        ],
      }),
      c({
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: '"Moscow"}' } }] },
            finish_reason: null,
          },
        ],
      }),
      c({
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index: 1,
                  id: 'call_8bH3kL9sX2vN5mQ1wE7rT4yU',
                  type: 'function',
                  function: { name: 'get_time', arguments: '' },
                },
              ],
            },
            finish_reason: null,
          },
        ],
      }),
      c({
        choices: [
          { index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '{}' } }] }, finish_reason: null },
        ],
      }),
      c({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
      c({
        choices: [],
        usage: {
          prompt_tokens: 82,
          completion_tokens: 40,
          total_tokens: 122,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          reasoning_tokens: 0,
        },
      }),
    ]);
  });

  it('normalises DeepSeek reasoning deltas and splits usage off the finish chunk', () => {
    const c = (rest: Pick<CanonicalChatChunk, 'choices'> & Partial<CanonicalChatChunk>) =>
      chunk('9e0f2a4b-6c8d-4e1f-a3b5-c7d9e1f3a5b7', 1754044000, 'deepseek-r1', rest);
    expect(replay('stream-deepseek-reasoner.sse', 'deepseek-r1')).toEqual([
      c({ choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: '' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: { reasoning_content: 'Сравним' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: { reasoning_content: ' числа.' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: { content: '9.8 больше.' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop' }] }),
      c({
        choices: [],
        usage: {
          prompt_tokens: 22,
          completion_tokens: 9,
          total_tokens: 31,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          reasoning_tokens: 5,
        },
      }),
    ]);
  });

  it("normalises OpenRouter's reasoning deltas and ignores its processing comments", () => {
    const c = (rest: Pick<CanonicalChatChunk, 'choices'> & Partial<CanonicalChatChunk>) =>
      chunk('gen-1754044100-Jd8sK2mQ5vX9bN3cL7pR', 1754044100, 'claude-sonnet', rest);
    expect(replay('stream-openrouter-reasoning.sse', 'claude-sonnet')).toEqual([
      c({
        choices: [
          {
            index: 0,
            delta: { role: 'assistant', content: '', reasoning_content: 'Let me think.' },
            finish_reason: null,
          },
        ],
      }),
      c({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] }),
      c({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: 'stop' }] }),
      c({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
      c({
        choices: [],
        usage: {
          prompt_tokens: 40,
          completion_tokens: 25,
          total_tokens: 65,
          cache_read_tokens: 32,
          cache_write_tokens: 0,
          reasoning_tokens: 12,
        },
      }),
    ]);
  });

  it('throws ProviderError(upstream) on an in-stream error chunk', () => {
    const events = readSseFixture(__dirname, 'stream-openrouter-error.sse');
    const state = createOpenAiStreamState('gpt-4o', NOW);
    expect(mapOpenAiStreamEvent(events[0], state)).toEqual([
      chunk('gen-1754044200-Pq4wE8rT1yU5iO9pA3sD', 1754044200, 'gpt-4o', {
        choices: [{ index: 0, delta: { role: 'assistant', content: 'Partial' }, finish_reason: null }],
      }),
    ]);
    expect(() => mapOpenAiStreamEvent(events[1], state)).toThrow(
      new ProviderError('upstream', 'Provider disconnected unexpectedly'),
    );
  });

  it('throws ProviderError(upstream) on an unreadable chunk', () => {
    expect(() => mapOpenAiStreamEvent({ data: '{"id":' }, createOpenAiStreamState('m', NOW))).toThrow(
      new ProviderError('upstream', 'Upstream sent an unreadable stream chunk'),
    );
  });

  it('ignores events after [DONE] and empty data', () => {
    const state = createOpenAiStreamState('m', NOW);
    expect(mapOpenAiStreamEvent({ data: '' }, state)).toEqual([]);
    expect(mapOpenAiStreamEvent({ data: '[DONE]' }, state)).toEqual([]);
    expect(mapOpenAiStreamEvent({ data: '{"choices":[{"index":0,"delta":{"content":"late"}}]}' }, state)).toEqual([]);
    expect(flushOpenAiStream(state)).toEqual([]);
  });

  it('flush accepts a stream that finished without [DONE] but rejects one cut off mid-answer', () => {
    const finished = createOpenAiStreamState('m', NOW);
    mapOpenAiStreamEvent(
      { data: '{"id":"a","created":1,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}' },
      finished,
    );
    expect(flushOpenAiStream(finished)).toEqual([]);

    const cut = createOpenAiStreamState('m', NOW);
    mapOpenAiStreamEvent(
      { data: '{"id":"a","created":1,"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}' },
      cut,
    );
    expect(() => flushOpenAiStream(cut)).toThrow(
      new ProviderError('upstream', 'Upstream stream ended before completion'),
    );
  });
});
