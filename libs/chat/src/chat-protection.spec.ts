import { DataProtection, OPEN_POLICY } from '@app/data-protection';
import type { CanonicalChatChunk } from '@app/providers';
import { ChunkRestorer, maskMessages, restoreResponse } from './chat-protection';

const EMAIL = 'anna@example.com';
const PHONE = '+7 912 345-67-89';

function masking() {
  const p = new DataProtection().forRequest({ teamId: 't', dataPolicy: { ...OPEN_POLICY, pii: 'mask' } });
  const model = { key: 'gpt-4o-mini', provider: 'openai' };
  const messages = maskMessages(
    [
      { role: 'system', content: `Customer ${EMAIL}` },
      { role: 'user', content: [{ type: 'text', text: `Call ${PHONE} or ${EMAIL}` }] },
    ],
    (t) => p.maskFor(model, t),
  );
  return { p, messages };
}

const chunk = (
  delta: CanonicalChatChunk['choices'][number]['delta'],
  finish: 'stop' | null = null,
): CanonicalChatChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('chat protection', () => {
  it('masks every text of the messages with one placeholder per value', () => {
    const { messages } = masking();
    expect(messages[0].content).toBe('Customer [EMAIL_1]');
    expect(messages[1].content).toEqual([{ type: 'text', text: 'Call [PHONE_1] or [EMAIL_1]' }]);
  });

  it('restores a non-streamed answer: content and tool-call arguments', () => {
    const { p } = masking();
    const r = restoreResponse(
      {
        id: 'r',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        usage: null,
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: 'To [EMAIL_1]',
              tool_calls: [{ id: 't', type: 'function', function: { name: 'call', arguments: '{"n":"[PHONE_1]"}' } }],
            },
          },
        ],
      },
      p,
    );
    expect(r.choices[0].message.content).toBe(`To ${EMAIL}`);
    expect(r.choices[0].message.tool_calls![0].function.arguments).toBe(`{"n":"${PHONE}"}`);
  });

  it('restores streamed content and tool-call arguments cut across chunks; the finishing chunk gives back what is held', () => {
    const { p } = masking();
    const r = new ChunkRestorer(p);
    const out = [
      r.chunk(chunk({ content: 'Mail [EMA' })),
      r.chunk(chunk({ content: 'IL_1] now [PHO' })),
      r.chunk(chunk({ tool_calls: [{ index: 0, function: { name: 'call', arguments: '{"n":"[PHONE' } }] })),
      r.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: '_1]"}' } }] })),
      r.chunk(chunk({}, 'stop')),
    ];
    const content = out.map((c) => c.choices[0].delta.content ?? '').join('');
    const args = out.map((c) => c.choices[0].delta.tool_calls?.[0]?.function?.arguments ?? '').join('');
    expect(content).toBe(`Mail ${EMAIL} now [PHO`);
    expect(args).toBe(`{"n":"${PHONE}"}`);
    expect(out[0].choices[0].delta.content).toBe('Mail ');
    expect(r.flush({ id: 'c', created: 1, model: 'm' })).toBeNull();
  });

  it('a stream that ends without a finishing chunk gets a last chunk with what is held', () => {
    const { p } = masking();
    const r = new ChunkRestorer(p);
    expect(r.chunk(chunk({ content: 'end [EM' })).choices[0].delta.content).toBe('end ');
    expect(r.flush({ id: 'c', created: 1, model: 'm' })?.choices[0].delta.content).toBe('[EM');
  });
});
