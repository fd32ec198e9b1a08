import { CanonicalChatChunk, CanonicalChunkChoice } from '../types';
import { readSseFixture, replayStream, thrownFields } from '../http/testing/fixtures';
import { anthropicAdapter } from './index';
import { createAnthropicStreamState, flushAnthropicStream, mapAnthropicStreamEvent } from './anthropic.stream';

const NOW = Date.parse('2025-08-01T12:00:00Z');
const created = NOW / 1000;

function chunkFactory(id: string, model: string) {
  const base = { id, object: 'chat.completion.chunk' as const, created, model };
  return {
    delta: (delta: CanonicalChunkChoice['delta']): CanonicalChatChunk => ({
      ...base,
      choices: [{ index: 0, delta, finish_reason: null }],
    }),
    finish: (finish_reason: CanonicalChunkChoice['finish_reason']): CanonicalChatChunk => ({
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason }],
    }),
    usage: (usage: NonNullable<CanonicalChatChunk['usage']>): CanonicalChatChunk => ({ ...base, choices: [], usage }),
    /** message_start: the role delta, with the input side as reported (input + cache reads + cache writes) */
    start: (input: number, cacheRead = 0, cacheWrite = 0): CanonicalChatChunk => ({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
      promptUsage: {
        prompt_tokens: input + cacheRead + cacheWrite,
        cache_read_tokens: cacheRead,
        cache_write_tokens: cacheWrite,
      },
    }),
  };
}

const replay = (name: string, model: string) =>
  replayStream(anthropicAdapter, readSseFixture(__dirname, name), model, NOW);

describe('Anthropic stream mapping', () => {
  it('maps a text stream: role first, text deltas, finish, then combined usage', () => {
    const c = chunkFactory('msg_01HCDu5LRGeP2o7s2xGmxyx8', 'claude-sonnet');
    expect(replay('stream-text.sse', 'claude-sonnet')).toEqual([
      c.start(21, 1024, 188),
      c.delta({ content: 'Привет' }),
      c.delta({ content: '! Чем могу помочь?' }),
      c.finish('stop'),
      c.usage({
        prompt_tokens: 1233,
        completion_tokens: 14,
        total_tokens: 1247,
        cache_read_tokens: 1024,
        cache_write_tokens: 188,
      }),
    ]);
  });

  it('maps tool_use blocks to tool-call deltas indexed from 0', () => {
    const c = chunkFactory('msg_014p7gG3wDgGV9EUtLvnow3U', 'claude-sonnet');
    expect(replay('stream-tool-use.sse', 'claude-sonnet')).toEqual([
      c.start(472),
      c.delta({ content: 'Checking.' }),
      c.delta({
        tool_calls: [
          {
            index: 0,
            id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      c.delta({ tool_calls: [{ index: 0, function: { arguments: '{"city": "Mos' } }] }),
      c.delta({ tool_calls: [{ index: 0, function: { arguments: 'cow"}' } }] }),
      c.delta({
        tool_calls: [
          {
            index: 1,
            id: 'toolu_01Vb2Lq8rTz4yH5wN6mK7pX9',
            type: 'function',
            function: { name: 'get_time', arguments: '' },
          },
        ],
      }),
      c.delta({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }),
      c.finish('tool_calls'),
      c.usage({
        prompt_tokens: 472,
        completion_tokens: 89,
        total_tokens: 561,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      }),
    ]);
  });

  it('maps thinking deltas to reasoning_content and ignores signatures', () => {
    const c = chunkFactory('msg_01Qk7vRmN2xS5tY8uZ3wA4bC', 'claude-sonnet-4.5');
    expect(replay('stream-thinking.sse', 'claude-sonnet-4.5')).toEqual([
      c.start(36),
      c.delta({ reasoning_content: '27 * 453: 27*400=10800,' }),
      c.delta({ reasoning_content: ' 27*53=1431, total 12231.' }),
      c.delta({ content: '27 × 453 = 12 231.' }),
      c.finish('stop'),
      c.usage({
        prompt_tokens: 36,
        completion_tokens: 112,
        total_tokens: 148,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      }),
    ]);
  });

  it('streams the JSON-mode tool input as content and finishes with stop', () => {
    const c = chunkFactory('msg_01Jm5nB6vC7xZ8aS9dF0gH1j', 'claude-haiku');
    expect(replay('stream-json-mode.sse', 'claude-haiku')).toEqual([
      c.start(402),
      c.delta({ content: '{"name": "Анна", ' }),
      c.delta({ content: '"age": 31}' }),
      c.finish('stop'),
      c.usage({
        prompt_tokens: 402,
        completion_tokens: 58,
        total_tokens: 460,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      }),
    ]);
  });

  it('throws ProviderError on an in-stream error event', () => {
    const events = readSseFixture(__dirname, 'stream-overloaded.sse');
    const state = createAnthropicStreamState('claude-opus', NOW);
    const c = chunkFactory('msg_01Ov3rL0adEdX9y8z7w6v5u4', 'claude-opus');
    expect(events.slice(0, 3).flatMap((e) => mapAnthropicStreamEvent(e, state))).toEqual([
      c.start(12),
      c.delta({ content: 'Once upon' }),
    ]);
    expect(thrownFields(() => mapAnthropicStreamEvent(events[3], state))).toEqual({
      kind: 'upstream',
      message: 'Overloaded',
      upstreamStatus: undefined,
      retryAfterSeconds: undefined,
      param: undefined,
    });
    expect(
      thrownFields(() =>
        mapAnthropicStreamEvent(
          { event: 'error', data: '{"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}' },
          state,
        ),
      ).kind,
    ).toBe('rate_limited');
  });

  it('throws ProviderError(upstream) on an unreadable event', () => {
    expect(
      thrownFields(() =>
        mapAnthropicStreamEvent({ event: 'message_start', data: '{"type":' }, createAnthropicStreamState('c', NOW)),
      ).message,
    ).toBe('Upstream sent an unreadable stream event');
  });

  it('flush: usage when message_stop is missing after a finish, error when the stream was cut mid-answer', () => {
    const events = readSseFixture(__dirname, 'stream-text.sse');
    const complete = createAnthropicStreamState('c', NOW);
    events.slice(0, -1).forEach((e) => mapAnthropicStreamEvent(e, complete));
    expect(flushAnthropicStream(complete)).toEqual([
      chunkFactory('msg_01HCDu5LRGeP2o7s2xGmxyx8', 'c').usage({
        prompt_tokens: 1233,
        completion_tokens: 14,
        total_tokens: 1247,
        cache_read_tokens: 1024,
        cache_write_tokens: 188,
      }),
    ]);
    expect(flushAnthropicStream(complete)).toEqual([]);

    const cut = createAnthropicStreamState('c', NOW);
    events.slice(0, 4).forEach((e) => mapAnthropicStreamEvent(e, cut));
    expect(thrownFields(() => flushAnthropicStream(cut)).message).toBe('Upstream stream ended before message_stop');
  });
});
