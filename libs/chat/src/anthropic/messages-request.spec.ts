import { ApiError } from '@app/common';
import { readMessagesRequest, translationProblem } from './messages-request';

function refusal(body: Record<string, unknown>, maxTokens: number | undefined = 100): ApiError {
  try {
    readMessagesRequest(body, maxTokens);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a 400');
}

describe('readMessagesRequest', () => {
  it('reads system blocks, turns, tool use and tool results canonically', () => {
    const r = readMessagesRequest(
      {
        model: 'gpt-4o',
        system: [
          { type: 'text', text: 'A', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: 'B' },
        ],
        messages: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 'sig' },
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 't1', name: 'look', input: { q: 1 } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'found' }] },
              { type: 'text', text: 'and?' },
            ],
          },
        ],
        tools: [{ name: 'look', description: 'Looks', input_schema: { type: 'object' } }],
        tool_choice: { type: 'tool', name: 'look', disable_parallel_tool_use: true },
        stop_sequences: ['X'],
        metadata: { user_id: 'u1' },
      },
      100,
    );
    expect(r.messages).toEqual([
      { role: 'system', content: 'A\nB' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [{ id: 't1', type: 'function', function: { name: 'look', arguments: '{"q":1}' } }],
      },
      { role: 'tool', tool_call_id: 't1', content: 'found' },
      { role: 'user', content: [{ type: 'text', text: 'and?' }] },
    ]);
    expect(r.params).toEqual({
      max_tokens: 100,
      stop: ['X'],
      user: 'u1',
      tools: [{ type: 'function', function: { name: 'look', description: 'Looks', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'look' } },
      parallel_tool_calls: false,
    });
    expect(r.claudeOnly).toEqual([]);
    expect(translationProblem(r, 'gpt-4o')).toBeNull();
  });

  it('lists what only Claude can take: PDFs, server tools, top_k, unknown blocks', () => {
    const r = readMessagesRequest(
      {
        top_k: 3,
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' } },
              { type: 'search_result', source: 'x', title: 't', content: [] },
            ],
          },
        ],
      },
      100,
    );
    expect(r.claudeOnly.map((c) => c.param)).toEqual([
      'messages[0].content[0]',
      'messages[0].content[1].type',
      'top_k',
      'tools[0].type',
    ]);
    const problem = translationProblem(r, 'gpt-4o')!;
    expect(problem.status).toBe(400);
    expect(problem.message).toContain("'gpt-4o' cannot take PDF documents");
  });

  it.each([
    [{ messages: [{ role: 'system', content: 'x' }] }, 'messages[0].role'],
    [{ messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    [{ messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages[0].content[0].text'],
    [
      {
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'A' } }],
          },
        ],
      },
      'messages[0].content[0].source.media_type',
    ],
    [
      {
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '2h' } }] },
        ],
      },
      'messages[0].content[0].cache_control.ttl',
    ],
    [
      { messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'b' }] }] },
      'messages[0].content[0].input',
    ],
    [
      { messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] }] },
      'messages[0].content[0].type',
    ],
    [{ messages: [], system: [{ type: 'image' }] }, 'system[0]'],
    [{ messages: [], tools: [{ name: 'x' }] }, 'tools[0].input_schema'],
    [{ messages: [], tool_choice: { type: 'some' } }, 'tool_choice.type'],
    [{ messages: [], thinking: { type: 'enabled', budget_tokens: 100 } }, 'thinking.budget_tokens'],
    [{ messages: [], thinking: { type: 'enabled', budget_tokens: 2000 } }, 'thinking.budget_tokens'],
    [{ messages: [], metadata: { user_id: 7 } }, 'metadata.user_id'],
  ])('400 naming the field: %j → %s', (body, param) => {
    const err = refusal(body, 1500);
    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
  });

  it('thinking types other than enabled (disabled, adaptive, …) pass', () => {
    expect(() => readMessagesRequest({ messages: [], thinking: { type: 'adaptive' } }, 100)).not.toThrow();
    expect(() =>
      readMessagesRequest({ messages: [], thinking: { type: 'enabled', budget_tokens: 1024 } }, undefined),
    ).not.toThrow();
  });
});
