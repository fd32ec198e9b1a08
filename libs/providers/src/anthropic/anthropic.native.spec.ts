import { ProviderError, SseEvent } from '../types';
import { nativeAnthropicChunks, nativeAnthropicHeaders } from './anthropic.native';

function sse(type: string, payload: Record<string, unknown>): SseEvent {
  return { event: type, data: JSON.stringify({ type, ...payload }) };
}

async function collect(events: SseEvent[]) {
  async function* source() {
    for (const e of events) yield e;
  }
  const out = [];
  for await (const c of nativeAnthropicChunks(source(), 'claude-x', 0)) out.push(c);
  return out;
}

const START = sse('message_start', {
  message: {
    id: 'msg_1',
    usage: { input_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 0, output_tokens: 1 },
  },
});

describe('native Anthropic streams', () => {
  it('holds the opening events until content, relays every event, reads usage (1-hour writes too)', async () => {
    const events = [
      START,
      sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      sse('ping', {}),
      sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      sse('ping', {}),
      sse('content_block_stop', { index: 0 }),
      sse('message_delta', {
        delta: { stop_reason: 'end_turn' },
        usage: {
          output_tokens: 3,
          cache_creation_input_tokens: 8,
          cache_creation: { ephemeral_5m_input_tokens: 2, ephemeral_1h_input_tokens: 6 },
        },
      }),
      sse('message_stop', {}),
    ];
    const chunks = await collect(events);
    expect(chunks.flatMap((c) => c.passthrough)).toEqual(events);
    expect(chunks[0].passthrough).toHaveLength(4);
    expect(chunks[0].choices.map((c) => c.delta)).toEqual([{ role: 'assistant', content: '' }, { content: 'Hi' }]);
    // after the first content, a ping goes on by itself
    expect(chunks[1].passthrough).toEqual([events[4]]);
    expect(chunks[chunks.length - 1].usage).toEqual({
      prompt_tokens: 23,
      completion_tokens: 3,
      total_tokens: 26,
      cache_read_tokens: 5,
      cache_write_tokens: 8,
      cache_write_1h_tokens: 6,
    });
  });

  it('an error event throws (a retryable failure when nothing was relayed); a cut stream throws', async () => {
    await expect(
      collect([START, sse('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })]),
    ).rejects.toBeInstanceOf(ProviderError);
    await expect(
      collect([START, sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })]),
    ).rejects.toThrow(/before message_stop/);
  });

  it("headers: the gateway's key, the client's version (default 2023-06-01) and beta flags", () => {
    const conn = { apiKey: 'sk-gw', baseUrl: 'http://x', timeoutMs: 1000 };
    expect(nativeAnthropicHeaders(conn, {})).toEqual({
      'content-type': 'application/json',
      'x-api-key': 'sk-gw',
      'anthropic-version': '2023-06-01',
    });
    expect(nativeAnthropicHeaders(conn, { 'anthropic-version': '2024-01-01', 'anthropic-beta': 'a,b' })).toMatchObject({
      'anthropic-version': '2024-01-01',
      'anthropic-beta': 'a,b',
    });
  });
});
