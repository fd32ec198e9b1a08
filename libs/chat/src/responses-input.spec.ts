import { ApiError } from '@app/common';
import { responsesFormat, responsesMessages, responsesParams, responsesTools } from './responses-input';
import type { ResponseCreateRequestDto } from './dto/responses.dto';

function paramOf(fn: () => unknown): string | null {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.param;
    throw err;
  }
  throw new Error('expected an ApiError');
}

describe('Responses input → canonical chat messages', () => {
  it('a string input is one user message after the instructions', () => {
    expect(responsesMessages({ instructions: 'Be brief.', input: 'Hi' })).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('items: text parts joined, assistant output_text, a text turn followed by function calls is one assistant turn, outputs become tool turns', () => {
    const messages = responsesMessages({
      input: [
        {
          role: 'developer',
          content: [
            { type: 'input_text', text: 'a' },
            { type: 'input_text', text: 'b' },
          ],
        },
        { role: 'user', content: 'Weather in Paris and Berlin?' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'c2', name: 'get_weather', arguments: '{"city":"Berlin"}' },
        { type: 'function_call_output', call_id: 'c1', output: '21' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: '18' }] },
      ],
    });
    expect(messages).toEqual([
      { role: 'developer', content: 'a\nb' },
      { role: 'user', content: 'Weather in Paris and Berlin?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Berlin"}' } },
        ],
      },
      { role: 'tool', content: '21', tool_call_id: 'c1' },
      { role: 'tool', content: '18', tool_call_id: 'c2' },
    ]);
  });

  it.each([
    [{ input: [] }, 'input'],
    [{ input: 42 }, 'input'],
    [{ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }, 'input[0].content[0].type'],
    [{ input: [{ type: 'function_call', name: 'x', arguments: '{}' }] }, 'input[0].call_id'],
    [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
    [{ instructions: 'only a system turn', input: [{ role: 'system', content: 'x' }] }, 'input'],
  ])('%j → 400 naming %s', (dto, param) => {
    expect(paramOf(() => responsesMessages(dto as Pick<ResponseCreateRequestDto, 'input' | 'instructions'>))).toBe(
      param,
    );
  });
});

describe('Responses parameters', () => {
  it('flat function tools become chat tools; tool_choice and parallel_tool_calls only with tools', () => {
    expect(
      responsesTools([{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' }, strict: true }]),
    ).toEqual([
      { type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' }, strict: true } },
    ]);
    const base = { model: 'm', input: 'x' } as ResponseCreateRequestDto;
    expect(
      responsesParams({ ...base, tool_choice: 'required', parallel_tool_calls: false, max_output_tokens: 9 }),
    ).toMatchObject({ tools: undefined, tool_choice: undefined, parallel_tool_calls: undefined, max_tokens: 9 });
    expect(
      responsesParams({
        ...base,
        tools: [{ type: 'function', name: 'f' }],
        tool_choice: { type: 'function', name: 'f' },
      }),
    ).toMatchObject({ tool_choice: { type: 'function', function: { name: 'f' } } });
    expect(
      paramOf(() => responsesParams({ ...base, tools: [{ type: 'function', name: 'f' }], tool_choice: 'sometimes' })),
    ).toBe('tool_choice');
  });

  it('text.format maps to response_format', () => {
    expect(responsesFormat({ format: { type: 'text' } })).toBeUndefined();
    expect(responsesFormat({ format: { type: 'json_object' } })).toEqual({ type: 'json_object' });
    expect(
      responsesFormat({ format: { type: 'json_schema', name: 'w', schema: { type: 'object' }, strict: true } }),
    ).toEqual({ type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' }, strict: true } });
    expect(paramOf(() => responsesFormat({ format: { type: 'json_schema', schema: {} } }))).toBe('text.format.name');
  });
});
