import { CanonicalChatRequest, ProviderConnection } from '../types';
import { buildOpenAiChatRequest, usesMaxCompletionTokens } from './openai.request';

const deepseek: ProviderConnection = { apiKey: 'sk-ds', baseUrl: 'https://api.deepseek.com/v1/', timeoutMs: 60000 };
const openai: ProviderConnection = { apiKey: 'sk-oa', baseUrl: 'https://api.openai.com/v1', timeoutMs: 60000 };

const full: CanonicalChatRequest = {
  model: 'deepseek-chat',
  messages: [
    { role: 'system', content: 'Be brief.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in the picture?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }],
    },
    { role: 'tool', content: '{"found":true}', tool_call_id: 'call_1' },
  ],
  max_tokens: 256,
  temperature: 0.2,
  top_p: 0.9,
  stop: ['END'],
  seed: 7,
  user: 'team-1:user-9',
  n: 2,
  tools: [
    {
      type: 'function',
      function: {
        name: 'lookup',
        description: 'Search',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
      },
    },
  ],
  tool_choice: 'auto',
  parallel_tool_calls: false,
  response_format: { type: 'json_object' },
};

describe('buildOpenAiChatRequest', () => {
  it('passes every canonical field through to {baseUrl}/chat/completions with a Bearer key', () => {
    expect(buildOpenAiChatRequest(full, deepseek)).toEqual({
      url: 'https://api.deepseek.com/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-ds' },
      body: {
        model: 'deepseek-chat',
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in the picture?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }],
          },
          { role: 'tool', content: '{"found":true}', tool_call_id: 'call_1' },
        ],
        max_tokens: 256,
        temperature: 0.2,
        top_p: 0.9,
        stop: ['END'],
        seed: 7,
        user: 'team-1:user-9',
        n: 2,
        tools: full.tools,
        tool_choice: 'auto',
        parallel_tool_calls: false,
        response_format: { type: 'json_object' },
      },
    });
  });

  it('asks for usage on streams', () => {
    const req: CanonicalChatRequest = {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    };
    expect(buildOpenAiChatRequest(req, openai).body).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('sends max_completion_tokens to api.openai.com (reasoning models reject max_tokens)', () => {
    const req: CanonicalChatRequest = {
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 100,
    };
    expect(buildOpenAiChatRequest(req, openai).body).toEqual({
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 100,
    });
  });

  it('drops tool_choice and parallel_tool_calls when there are no tools, and extra message fields', () => {
    const message = { role: 'user' as const, content: 'hi', reasoning_content: 'leak' };
    const req: CanonicalChatRequest = {
      model: 'm',
      messages: [message],
      tool_choice: 'none',
      parallel_tool_calls: true,
      stream: false,
    };
    expect(buildOpenAiChatRequest(req, deepseek).body).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('omits Authorization for a keyless local server', () => {
    const local: ProviderConnection = { apiKey: '', baseUrl: 'http://127.0.0.1:11434/v1', timeoutMs: 1000 };
    const request = buildOpenAiChatRequest({ model: 'qwen2.5:7b', messages: [{ role: 'user', content: 'hi' }] }, local);
    expect(request.url).toBe('http://127.0.0.1:11434/v1/chat/completions');
    expect(request.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('recognises only OpenAI itself as needing max_completion_tokens', () => {
    expect(usesMaxCompletionTokens('https://api.openai.com/v1')).toBe(true);
    expect(usesMaxCompletionTokens('https://openrouter.ai/api/v1')).toBe(false);
    expect(usesMaxCompletionTokens('not a url')).toBe(false);
  });
});
