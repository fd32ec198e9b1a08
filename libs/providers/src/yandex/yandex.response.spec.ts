import { readJsonFixture, thrownFields } from '../http/testing/fixtures';
import { mapYandexChatResponse } from './yandex.response';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const map = (name: string) => mapYandexChatResponse(readJsonFixture(__dirname, name), 'yandexgpt', NOW);

describe('mapYandexChatResponse', () => {
  it('reads the text and the string-typed usage', () => {
    const out = map('completion-text.json');
    expect(out).toMatchObject({ object: 'chat.completion', created: NOW / 1000, model: 'yandexgpt' });
    expect(out.id).toMatch(/^chatcmpl-/);
    expect(out.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: 'Привет! Чем могу помочь?', reasoning_content: null },
        finish_reason: 'stop',
      },
    ]);
    expect(out.usage).toEqual({
      prompt_tokens: 19,
      completion_tokens: 7,
      total_tokens: 26,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
    });
  });

  it('turns a toolCallList into tool calls with ids and JSON-string arguments', () => {
    const out = map('completion-tool-calls.json');
    expect(out.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        reasoning_content: null,
        tool_calls: [
          {
            id: 'call_0_get_weather',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Москва","unit":"c"}' },
          },
          {
            id: 'call_1_get_time',
            type: 'function',
            function: { name: 'get_time', arguments: '{"tz":"Europe/Moscow"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    });
    expect(out.usage).toMatchObject({ prompt_tokens: 112, completion_tokens: 31, total_tokens: 143 });
  });

  it.each([
    ['completion-truncated.json', 'length'],
    ['completion-content-filter.json', 'content_filter'],
  ])('%s → finish_reason %s', (name, finish) => {
    expect(map(name).choices[0].finish_reason).toBe(finish);
  });

  it('counts reasoning tokens as part of the completion', () => {
    expect(map('completion-reasoning.json').usage).toMatchObject({ completion_tokens: 250, reasoning_tokens: 238 });
  });

  it('a body without alternatives is an upstream error', () => {
    expect(thrownFields(() => mapYandexChatResponse({ result: { alternatives: [] } }, 'm', NOW))).toMatchObject({
      kind: 'upstream',
    });
  });
});
