import { readJsonFixture, thrownFields } from '../http/testing/fixtures';
import { mapAnthropicChatResponse } from './anthropic.response';

const NOW = Date.parse('2025-08-01T12:00:00Z');
const created = NOW / 1000;

describe('mapAnthropicChatResponse', () => {
  it('concatenates text blocks and counts cache tokens into prompt_tokens', () => {
    expect(mapAnthropicChatResponse(readJsonFixture(__dirname, 'message-text.json'), 'claude-sonnet', NOW)).toEqual({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'chat.completion',
      created,
      model: 'claude-sonnet',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Привет! Чем могу помочь?', reasoning_content: null },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 1233,
        completion_tokens: 14,
        total_tokens: 1247,
        cache_read_tokens: 1024,
        cache_write_tokens: 188,
      },
    });
  });

  it('maps tool_use blocks to tool calls', () => {
    expect(mapAnthropicChatResponse(readJsonFixture(__dirname, 'message-tool-use.json'), 'claude-sonnet', NOW)).toEqual(
      {
        id: 'msg_01Aq9w938a90dw8q',
        object: 'chat.completion',
        created,
        model: 'claude-sonnet',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: "I'll check the weather in both cities.",
              reasoning_content: null,
              tool_calls: [
                {
                  id: 'toolu_01A09q90qw90lq917835lq9',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Moscow","unit":"celsius"}' },
                },
                {
                  id: 'toolu_01B7kLm3nP4qR5sT6uV7wX8y',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Kazan","unit":"celsius"}' },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: {
          prompt_tokens: 512,
          completion_tokens: 103,
          total_tokens: 615,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
        },
      },
    );
  });

  it('maps thinking to reasoning_content, skips redacted thinking, max_tokens → length', () => {
    expect(mapAnthropicChatResponse(readJsonFixture(__dirname, 'message-thinking.json'), 'claude-3.7', NOW)).toEqual({
      id: 'msg_01Ttk3S8VhQGbVCCBjMuS2Fo',
      object: 'chat.completion',
      created,
      model: 'claude-3.7',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: '27 × 453 = 12 231.',
            reasoning_content: 'The user asks for 27 * 453. 27 * 453 = 12231.',
          },
          finish_reason: 'length',
        },
      ],
      usage: {
        prompt_tokens: 45,
        completion_tokens: 2048,
        total_tokens: 2093,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      },
    });
  });

  it('turns the JSON-mode tool call back into JSON content with finish_reason stop', () => {
    const response = mapAnthropicChatResponse(
      readJsonFixture(__dirname, 'message-json-mode.json'),
      'claude-haiku',
      NOW,
    );
    expect(response.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: '{"name":"Анна","age":31,"tags":["admin","ops"]}',
          reasoning_content: null,
        },
        finish_reason: 'stop',
      },
    ]);
    expect(response.usage).toEqual({
      prompt_tokens: 402,
      completion_tokens: 58,
      total_tokens: 460,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
  });

  it('maps refusal to content_filter and a missing usage to null', () => {
    const response = mapAnthropicChatResponse(
      { id: 'msg_x', type: 'message', content: [], stop_reason: 'refusal' },
      'c',
      NOW,
    );
    expect(response.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: null, reasoning_content: null },
        finish_reason: 'content_filter',
      },
    ]);
    expect(response.usage).toBeNull();
  });

  it('throws ProviderError(upstream) on an unreadable body', () => {
    expect(thrownFields(() => mapAnthropicChatResponse({ type: 'message' }, 'c', NOW))).toEqual({
      kind: 'upstream',
      message: 'Upstream returned a message without content',
      upstreamStatus: undefined,
      retryAfterSeconds: undefined,
      param: undefined,
    });
  });
});
