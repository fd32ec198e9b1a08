import type { CanonicalChatChunk } from '@app/providers';
import { AnthropicStreamTranslator, toAnthropicMessage, toAnthropicUsage } from './messages-response';

const usage = {
  prompt_tokens: 100,
  completion_tokens: 20,
  total_tokens: 120,
  cache_read_tokens: 30,
  cache_write_tokens: 10,
};

function chunk(
  delta: CanonicalChatChunk['choices'][number]['delta'],
  finish: CanonicalChatChunk['choices'][number]['finish_reason'] = null,
): CanonicalChatChunk {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'gpt-4o',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

describe('Anthropic answers from canonical ones', () => {
  it('usage: input_tokens exclude cache reads and writes; 1-hour writes split out', () => {
    expect(toAnthropicUsage({ ...usage, cache_write_1h_tokens: 4 })).toEqual({
      input_tokens: 60,
      output_tokens: 20,
      cache_creation_input_tokens: 10,
      cache_read_input_tokens: 30,
      cache_creation: { ephemeral_5m_input_tokens: 6, ephemeral_1h_input_tokens: 4 },
    });
  });

  it('message: thinking, text and tool_use blocks; stop reasons mapped', () => {
    const m = toAnthropicMessage(
      {
        id: 'chatcmpl-9',
        object: 'chat.completion',
        created: 0,
        model: 'gpt-4o',
        usage,
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: 'Sure.',
              reasoning_content: 'why',
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
            },
          },
        ],
      },
      'gpt-4o',
      usage,
    );
    expect(m).toMatchObject({
      id: 'msg_chatcmpl-9',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o',
      stop_reason: 'tool_use',
      stop_sequence: null,
      content: [
        { type: 'thinking', thinking: 'why', signature: '' },
        { type: 'text', text: 'Sure.' },
        { type: 'tool_use', id: 'c1', name: 'f', input: { a: 1 } },
      ],
    });
  });

  it('stream: the exact event sequence, one block per kind, tool blocks per call', () => {
    const t = new AnthropicStreamTranslator('gpt-4o', 100);
    const events = [
      ...t.chunk(chunk({ role: 'assistant', content: '' })),
      ...t.chunk(chunk({ reasoning_content: 'hm' })),
      ...t.chunk(chunk({ content: 'He' })),
      ...t.chunk(chunk({ content: 'llo' })),
      ...t.chunk(
        chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '' } }] }),
      ),
      ...t.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] })),
      ...t.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] })),
      ...t.chunk(
        chunk({ tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'g', arguments: '{}' } }] }),
      ),
      ...t.chunk(chunk({}, 'tool_calls')),
      ...t.end(usage, { cost: { total_cost_rub: 1 } }),
    ];
    expect(events.map((e) => `${e.event}${'index' in e.data ? `#${String(e.data.index)}` : ''}`)).toEqual([
      'message_start',
      'ping',
      'content_block_start#0',
      'content_block_delta#0',
      'content_block_stop#0',
      'content_block_start#1',
      'content_block_delta#1',
      'content_block_delta#1',
      'content_block_stop#1',
      'content_block_start#2',
      'content_block_delta#2',
      'content_block_delta#2',
      'content_block_stop#2',
      'content_block_start#3',
      'content_block_delta#3',
      'content_block_stop#3',
      'message_delta',
      'message_stop',
    ]);
    expect(events[9].data.content_block).toEqual({ type: 'tool_use', id: 'c1', name: 'f', input: {} });
    expect(events[16].data).toMatchObject({
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 60, output_tokens: 20 },
      cost: { total_cost_rub: 1 },
    });
  });

  it('stream without any chunk still opens and closes the message', () => {
    const t = new AnthropicStreamTranslator('local', 5);
    expect(t.end(usage, {}).map((e) => e.event)).toEqual(['message_start', 'ping', 'message_delta', 'message_stop']);
  });
});
