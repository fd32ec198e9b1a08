import { readJsonFixture, thrownFields } from '../http/testing/fixtures';
import { mapGeminiChatResponse } from './gemini.response';

const NOW = Date.parse('2025-08-01T12:00:00Z');
const created = NOW / 1000;

describe('mapGeminiChatResponse', () => {
  it('joins text parts and maps usage (thoughts count as completion, cached content as cache reads)', () => {
    expect(
      mapGeminiChatResponse(readJsonFixture(__dirname, 'generate-content-text.json'), 'gemini-flash', NOW),
    ).toEqual({
      id: 'mKaMaPXxLoSKz7IPg6jx-Ac',
      object: 'chat.completion',
      created,
      model: 'gemini-flash',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Привет! Чем могу помочь?', reasoning_content: null },
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 2150,
        completion_tokens: 50,
        total_tokens: 2200,
        cache_read_tokens: 2048,
        cache_write_tokens: 0,
        reasoning_tokens: 42,
      },
    });
  });

  it('maps function calls to tool calls with deterministic ids and finish_reason tool_calls', () => {
    expect(
      mapGeminiChatResponse(readJsonFixture(__dirname, 'generate-content-function-call.json'), 'gemini-flash', NOW),
    ).toEqual({
      id: '3qOMaN7dEsWlz7IPqZHl0QE',
      object: 'chat.completion',
      created,
      model: 'gemini-flash',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            reasoning_content: null,
            tool_calls: [
              {
                id: 'call_0_get_weather',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Moscow"}' },
              },
              { id: 'call_1_get_time', type: 'function', function: { name: 'get_time', arguments: '{}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 96,
        completion_tokens: 85,
        total_tokens: 181,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 63,
      },
    });
  });

  it('maps thought parts to reasoning_content, several candidates to choices, MAX_TOKENS to length', () => {
    expect(
      mapGeminiChatResponse(readJsonFixture(__dirname, 'generate-content-thoughts.json'), 'gemini-pro', NOW),
    ).toEqual({
      id: 'GqWMaL3FKPGNz7IP0pKK-Qk',
      object: 'chat.completion',
      created,
      model: 'gemini-pro',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: '27 × 453 = 12 231.',
            reasoning_content: '**Multiplying**\n\n27 × 453 = 12231.\n',
          },
          finish_reason: 'length',
        },
        { index: 1, message: { role: 'assistant', content: '12231', reasoning_content: null }, finish_reason: 'stop' },
      ],
      usage: {
        prompt_tokens: 11,
        completion_tokens: 134,
        total_tokens: 145,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 114,
      },
    });
  });

  it('maps a blocked prompt and a SAFETY stop to content_filter', () => {
    expect(mapGeminiChatResponse(readJsonFixture(__dirname, 'generate-content-blocked.json'), 'g', NOW)).toEqual({
      id: 'Y6aMaJD0A7-Kz7IPhvPSqAs',
      object: 'chat.completion',
      created,
      model: 'g',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, reasoning_content: null },
          finish_reason: 'content_filter',
        },
      ],
      usage: { prompt_tokens: 18, completion_tokens: 0, total_tokens: 18, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
    expect(mapGeminiChatResponse(readJsonFixture(__dirname, 'generate-content-safety.json'), 'g', NOW).choices).toEqual(
      [
        {
          index: 0,
          message: { role: 'assistant', content: null, reasoning_content: null },
          finish_reason: 'content_filter',
        },
      ],
    );
  });

  it('throws ProviderError(upstream) on a body without candidates', () => {
    expect(thrownFields(() => mapGeminiChatResponse({ usageMetadata: {} }, 'g', NOW))).toMatchObject({
      kind: 'upstream',
      message: 'Upstream returned no candidates',
    });
    expect(thrownFields(() => mapGeminiChatResponse([], 'g', NOW))).toMatchObject({ kind: 'upstream' });
  });
});
