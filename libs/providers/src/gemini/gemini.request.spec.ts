import { CanonicalChatRequest, ProviderConnection } from '../types';
import { thrownFields } from '../http/testing/fixtures';
import { buildGeminiChatRequest, guessMimeType, toFunctionResponse, toGeminiToolConfig } from './gemini.request';

const conn: ProviderConnection = {
  apiKey: 'AIza-test',
  baseUrl: 'https://generativelanguage.googleapis.com',
  timeoutMs: 60000,
};

describe('buildGeminiChatRequest', () => {
  it('targets generateContent, or streamGenerateContent with alt=sse, with the API key header', () => {
    const req: CanonicalChatRequest = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] };
    expect(buildGeminiChatRequest(req, conn)).toEqual({
      url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test' },
      body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    });
    expect(buildGeminiChatRequest({ ...req, model: 'models/gemini-2.5-pro', stream: true }, conn).url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    );
  });

  it('maps system instruction, roles, images and generation config', () => {
    expect(
      buildGeminiChatRequest(
        {
          model: 'gemini-2.5-flash',
          messages: [
            { role: 'system', content: 'Be terse.' },
            { role: 'developer', content: 'Answer in Russian.' },
            { role: 'user', content: 'Look:' },
            {
              role: 'user',
              content: [
                { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg==' } },
                { type: 'image_url', image_url: { url: 'https://example.com/a/photo.PNG?x=1' } },
                { type: 'text', text: 'What is it?' },
              ],
            },
            { role: 'assistant', content: 'A cat.' },
            { role: 'user', content: 'Sure?' },
          ],
          max_tokens: 500,
          temperature: 0.3,
          top_p: 0.95,
          stop: ['###'],
          seed: 42,
          n: 2,
          user: 'ignored',
          response_format: { type: 'json_object' },
        },
        conn,
      ).body,
    ).toEqual({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Look:' },
            { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQSkZJRg==' } },
            { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/a/photo.PNG?x=1' } },
            { text: 'What is it?' },
          ],
        },
        { role: 'model', parts: [{ text: 'A cat.' }] },
        { role: 'user', parts: [{ text: 'Sure?' }] },
      ],
      systemInstruction: { parts: [{ text: 'Be terse.' }, { text: 'Answer in Russian.' }] },
      generationConfig: {
        maxOutputTokens: 500,
        temperature: 0.3,
        topP: 0.95,
        stopSequences: ['###'],
        seed: 42,
        candidateCount: 2,
        responseMimeType: 'application/json',
      },
    });
  });

  it('maps json_schema to responseJsonSchema', () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    };
    const body = buildGeminiChatRequest(
      {
        model: 'g',
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
      },
      conn,
    ).body;
    expect(body.generationConfig).toEqual({ responseMimeType: 'application/json', responseJsonSchema: schema });
  });

  it('maps tools, tool calls (deterministic ids) and tool results (names resolved from the calls)', () => {
    const params = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    expect(
      buildGeminiChatRequest(
        {
          model: 'gemini-2.5-flash',
          messages: [
            { role: 'user', content: 'Weather in Moscow and Kazan?' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_0_get_weather',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Moscow"}' },
                },
                {
                  id: 'toolu_foreign',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Kazan"}' },
                },
              ],
            },
            { role: 'tool', tool_call_id: 'call_0_get_weather', content: '{"temp":3}' },
            { role: 'tool', tool_call_id: 'toolu_foreign', content: 'sunny' },
            { role: 'tool', tool_call_id: 'call_7_get_time', content: '[1,2]' },
          ],
          tools: [
            { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: params } },
            { type: 'function', function: { name: 'get_time' } },
          ],
          tool_choice: { type: 'function', function: { name: 'get_weather' } },
          parallel_tool_calls: false,
        },
        conn,
      ).body,
    ).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Moscow and Kazan?' }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: { name: 'get_weather', args: { city: 'Moscow' } },
              thoughtSignature: 'skip_thought_signature_validator',
            },
            { functionCall: { name: 'get_weather', args: { city: 'Kazan' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { temp: 3 } } },
            { functionResponse: { name: 'get_weather', response: { result: 'sunny' } } },
            { functionResponse: { name: 'get_time', response: { result: [1, 2] } } },
          ],
        },
      ],
      tools: [
        {
          functionDeclarations: [
            { name: 'get_weather', description: 'Weather now', parametersJsonSchema: params },
            { name: 'get_time' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
    });
  });

  it('maps tool_choice modes', () => {
    expect(toGeminiToolConfig('auto')).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(toGeminiToolConfig('required')).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(toGeminiToolConfig('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(toGeminiToolConfig(undefined)).toBeUndefined();
  });

  it('wraps non-object tool output in {result}', () => {
    expect(toFunctionResponse('{"a":1}')).toEqual({ a: 1 });
    expect(toFunctionResponse('42')).toEqual({ result: 42 });
    expect(toFunctionResponse([{ type: 'text', text: 'plain' }])).toEqual({ result: 'plain' });
    expect(toFunctionResponse(null)).toEqual({ result: '' });
  });

  it('guesses image MIME types from the URL path', () => {
    expect(guessMimeType('https://x/y.webp')).toBe('image/webp');
    expect(guessMimeType('https://x/y')).toBe('image/jpeg');
  });

  it('rejects a tool result whose call cannot be found', () => {
    expect(
      thrownFields(() =>
        buildGeminiChatRequest({ model: 'g', messages: [{ role: 'tool', tool_call_id: 'abc', content: 'x' }] }, conn),
      ),
    ).toEqual({
      kind: 'invalid_request',
      message: 'Cannot find the tool call this tool message answers',
      upstreamStatus: undefined,
      retryAfterSeconds: undefined,
      param: 'messages[0].tool_call_id',
    });
  });
});
