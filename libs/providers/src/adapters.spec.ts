import { anthropicAdapter } from './anthropic';
import { CHAT_ADAPTERS, getChatAdapter, hasChatAdapter, registerChatAdapter } from './adapters';
import { geminiAdapter } from './gemini';
import { openaiAdapter } from './openai';
import { ChatAdapter } from './types';

describe('chat adapter registry', () => {
  it('resolves the built-in provider types', () => {
    expect(getChatAdapter('openai')).toBe(openaiAdapter);
    expect(getChatAdapter('anthropic')).toBe(anthropicAdapter);
    expect(getChatAdapter('gemini')).toBe(geminiAdapter);
  });

  it('throws for an unknown type, including Object.prototype keys', () => {
    expect(() => getChatAdapter('cohere')).toThrow('No chat adapter for provider type "cohere"');
    expect(() => getChatAdapter('toString')).toThrow('No chat adapter for provider type "toString"');
  });

  it('accepts additional adapters through registerChatAdapter', () => {
    const fake: ChatAdapter = { ...openaiAdapter, type: 'fake-test' };
    registerChatAdapter(fake);
    try {
      expect(hasChatAdapter('fake-test')).toBe(true);
      expect(getChatAdapter('fake-test')).toBe(fake);
    } finally {
      delete CHAT_ADAPTERS['fake-test'];
    }
  });
});
