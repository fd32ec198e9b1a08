import { ProviderError } from '../types';
import { readJsonFixture } from '../http/testing/fixtures';
import { mapOpenAiChatResponse, mapOpenAiUsage } from './openai.response';

/** the gateway's clock at the call (dates what the provider does not) */
const NOW = Date.parse('2025-08-01T12:00:00Z');

const fixture = (name: string) => readJsonFixture(__dirname, name);

describe('mapOpenAiChatResponse', () => {
  it('maps a plain OpenAI completion with cached prompt tokens', () => {
    expect(mapOpenAiChatResponse(fixture('chat-completion.json'), 'gpt-4o-mini', NOW)).toEqual({
      id: 'chatcmpl-BzV1k0m9XnIuRkS5Zt3hUxFQeYqvT',
      object: 'chat.completion',
      created: 1754043200,
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Привет! Чем могу помочь?', reasoning_content: null },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 1315,
        completion_tokens: 9,
        total_tokens: 1324,
        cache_read_tokens: 1152,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
      },
    });
  });

  it('maps parallel tool calls', () => {
    expect(mapOpenAiChatResponse(fixture('chat-completion-tool-calls.json'), 'gpt-4.1', NOW)).toEqual({
      id: 'chatcmpl-BzV3QvO2m8b1yJw7lJk4T0cHq9sAa',
      object: 'chat.completion',
      created: 1754043301,
      model: 'gpt-4.1',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            reasoning_content: null,
            tool_calls: [
              {
                id: 'call_Qm2wY0V6yPzJ1cN8dE4rT7uK',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Moscow","unit":"celsius"}' },
              },
              {
                id: 'call_8bH3kL9sX2vN5mQ1wE7rT4yU',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Kazan","unit":"celsius"}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 82,
        completion_tokens: 51,
        total_tokens: 133,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
      },
    });
  });

  it("maps DeepSeek's reasoning_content and reasoning token count", () => {
    expect(mapOpenAiChatResponse(fixture('deepseek-reasoner.json'), 'deepseek-r1', NOW)).toEqual({
      id: '5f1d9c1e-2b7a-4d0e-9a43-7c1b2f8e6d10',
      object: 'chat.completion',
      created: 1754043410,
      model: 'deepseek-r1',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: '9.11 меньше, чем 9.8.',
            reasoning_content: 'Сравним 9.11 и 9.8: дробные части 0.11 и 0.80, значит 9.8 больше.',
          },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 22,
        completion_tokens: 96,
        total_tokens: 118,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 81,
      },
    });
  });

  it("reads DeepSeek's prompt_cache_hit_tokens as cache reads and maps finish_reason length", () => {
    const response = mapOpenAiChatResponse(fixture('deepseek-chat-cache-hit.json'), 'deepseek-v3', NOW);
    expect(response.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Готово.', reasoning_content: null },
        finish_reason: 'length',
      },
    ]);
    expect(response.usage).toEqual({
      prompt_tokens: 1540,
      completion_tokens: 4,
      total_tokens: 1544,
      cache_read_tokens: 1536,
      cache_write_tokens: 0,
    });
  });

  it("maps OpenRouter's reasoning field to reasoning_content", () => {
    expect(mapOpenAiChatResponse(fixture('openrouter-reasoning.json'), 'gemini-flash', NOW)).toEqual({
      id: 'gen-1754043620-hT6Lq0wK3nVb8XcYzR2s',
      object: 'chat.completion',
      created: 1754043620,
      model: 'gemini-flash',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Ответ: 42.', reasoning_content: '**Считаю**\n\n6 × 7 = 42.' },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 14,
        completion_tokens: 61,
        total_tokens: 75,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 55,
      },
    });
  });

  it('maps a minimal Ollama usage block', () => {
    expect(mapOpenAiChatResponse(fixture('ollama-no-usage-details.json'), 'qwen', NOW).usage).toEqual({
      prompt_tokens: 30,
      completion_tokens: 3,
      total_tokens: 33,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
  });

  it('keeps a refusal', () => {
    const body = {
      id: 'x',
      created: 1,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, refusal: "I can't help with that." },
          finish_reason: 'stop',
        },
      ],
    };
    expect(mapOpenAiChatResponse(body, 'm', NOW).choices[0].message).toEqual({
      role: 'assistant',
      content: null,
      reasoning_content: null,
      refusal: "I can't help with that.",
    });
    expect(mapOpenAiChatResponse(body, 'm', NOW).usage).toBeNull();
  });

  it('throws ProviderError(upstream) on a body without choices or with an embedded error', () => {
    expect(() => mapOpenAiChatResponse({ object: 'list' }, 'm', NOW)).toThrow(
      new ProviderError('upstream', 'Upstream returned a chat completion without choices'),
    );
    expect(() => mapOpenAiChatResponse('nope', 'm', NOW)).toThrow(ProviderError);
    expect(() => mapOpenAiChatResponse({ error: { message: 'No endpoints found', code: 404 } }, 'm', NOW)).toThrow(
      new ProviderError('upstream', 'No endpoints found'),
    );
  });
});

describe('mapOpenAiUsage', () => {
  it('returns null without a usage object', () => {
    expect(mapOpenAiUsage(undefined)).toBeNull();
    expect(mapOpenAiUsage(null)).toBeNull();
  });

  it('tolerates null detail objects (vLLM)', () => {
    expect(
      mapOpenAiUsage({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: null }),
    ).toEqual({
      prompt_tokens: 5,
      completion_tokens: 2,
      total_tokens: 7,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
  });
});
