import { ApiError } from '@app/common';
import { buildRestMessages, extractJsonDocument, imageParts, normalizeCompletionMessages } from './messages';

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('expected an error');
}

describe('normalizeCompletionMessages', () => {
  it('accepts string and part content, tool calls and tool results', () => {
    const msgs = normalizeCompletionMessages([
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: 'low' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '42' },
    ]);
    expect(msgs).toHaveLength(4);
    expect(imageParts(msgs)).toEqual([{ url: 'https://x.test/a.png' }]);
    expect(msgs[2].tool_calls?.[0].function.name).toBe('f');
  });

  it.each([
    [[], 'messages'],
    [[{ role: 'wizard', content: 'x' }], 'messages[0].role'],
    [[{ role: 'user', content: 'x' }, { role: 'user' }], 'messages[1].content'],
    [[{ role: 'user', content: [{ type: 'audio' }] }], 'messages[0].content[0].type'],
    [
      [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/a.png' } }] }],
      'messages[0].content[0].image_url.url',
    ],
    [[{ role: 'tool', content: 'x' }], 'messages[0].tool_call_id'],
    [
      [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', function: { name: 'f', arguments: {} } }] }],
      'messages[0].tool_calls[0].function.arguments',
    ],
  ])('rejects %j naming %s', (raw, param) => {
    const e = errorOf(() => normalizeCompletionMessages(raw));
    expect(e.status).toBe(400);
    expect(e.param).toBe(param);
  });
});

describe('buildRestMessages', () => {
  it('orders system_prompt, messages, then prompt with images', () => {
    expect(
      buildRestMessages({
        prompt: 'Q',
        system_prompt: 'S',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
        ],
        images: ['https://x/i.png'],
        json: false,
      }),
    ).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Q' },
          { type: 'image_url', image_url: { url: 'https://x/i.png' } },
        ],
      },
    ]);
  });

  it('asks for JSON in the system turn in JSON mode', () => {
    expect(buildRestMessages({ prompt: 'Q', images: [], json: true })[0]).toEqual({
      role: 'system',
      content: 'Respond only with a valid JSON document.',
    });
  });
});

describe('extractJsonDocument', () => {
  it.each([
    ['{"a":1}', '{"a":1}'],
    ['```json\n{"a":1}\n```', '{"a":1}'],
    ['  [1,2] ', '[1,2]'],
    ['not json', null],
  ])('%s → %s', (text, expected) => {
    expect(extractJsonDocument(text)).toBe(expected);
  });
});
