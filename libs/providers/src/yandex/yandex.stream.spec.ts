import { CanonicalChatChunk } from '../types';
import { readNdjsonFixture, replayStream, thrownFields } from '../http/testing/fixtures';
import { yandexAdapter } from './index';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const replay = (name: string, slice = 7) =>
  replayStream(yandexAdapter, readNdjsonFixture(__dirname, name, slice), 'yandexgpt', NOW);
const strip = (chunks: CanonicalChatChunk[]) => chunks.map(({ choices, usage }) => ({ choices, usage }));

describe('Yandex stream mapping (cumulative NDJSON → deltas)', () => {
  it.each([1, 7, 4096])('sends only the new text of each line (%i-byte slices), then the last usage', (slice) => {
    const chunks = replay('stream-text.ndjson', slice);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(strip(chunks)).toEqual([
      { choices: [{ index: 0, delta: { role: 'assistant', content: 'При' }, finish_reason: null }], usage: undefined },
      { choices: [{ index: 0, delta: { content: 'вет! Чем' }, finish_reason: null }], usage: undefined },
      { choices: [{ index: 0, delta: { content: ' могу помочь?' }, finish_reason: 'stop' }], usage: undefined },
      {
        choices: [],
        usage: {
          prompt_tokens: 19,
          completion_tokens: 7,
          total_tokens: 26,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
        },
      },
    ]);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Привет! Чем могу помочь?');
  });

  it('emits whole tool calls on the TOOL_CALLS line', () => {
    expect(strip(replay('stream-tool-calls.ndjson'))).toEqual([
      {
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
                  function: { name: 'get_weather', arguments: '{"city":"Москва"}' },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: undefined,
      },
      {
        choices: [],
        usage: {
          prompt_tokens: 112,
          completion_tokens: 18,
          total_tokens: 130,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
        },
      },
    ]);
  });

  it('a stream that ends before a final status is an upstream error', () => {
    expect(thrownFields(() => replay('stream-cut.ndjson'))).toMatchObject({ kind: 'upstream' });
  });

  it('an error line mid-stream maps through the error contract (quota → rate_limited)', () => {
    expect(thrownFields(() => replay('stream-error.ndjson'))).toMatchObject({
      kind: 'rate_limited',
      upstreamStatus: 429,
      message: 'ai.textGenerationCompletionSessionsCount.count gauge quota limit exceed: allowed 10 requests',
    });
  });

  it('a line that rewrites text already sent is refused, unless the content filter ends the answer', () => {
    const line = (text: string, status: string) => ({
      data: JSON.stringify({ result: { alternatives: [{ message: { role: 'assistant', text }, status }] } }),
    });
    const state = yandexAdapter.createStreamState('m', NOW);
    yandexAdapter.mapStreamEvent(line('Сначала', 'ALTERNATIVE_STATUS_PARTIAL'), state);
    expect(
      thrownFields(() => yandexAdapter.mapStreamEvent(line('Иначе', 'ALTERNATIVE_STATUS_PARTIAL'), state)),
    ).toMatchObject({
      kind: 'upstream',
    });
    const filtered = yandexAdapter.createStreamState('m', NOW);
    yandexAdapter.mapStreamEvent(line('Сначала', 'ALTERNATIVE_STATUS_PARTIAL'), filtered);
    const [chunk] = yandexAdapter.mapStreamEvent(line('Не могу', 'ALTERNATIVE_STATUS_CONTENT_FILTER'), filtered);
    expect(chunk.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'content_filter' }]);
  });
});
