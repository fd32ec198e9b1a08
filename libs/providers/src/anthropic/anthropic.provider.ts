/** The anthropic adapter family: chat over the Messages API. */
import { HttpChatProvider } from '../chat-provider';
import type { ProviderAdapters } from '../provider-adapters';
import { anthropicAdapter } from './index';

export const anthropicProvider: ProviderAdapters = {
  type: 'anthropic',
  chat: (ctx) => new HttpChatProvider(anthropicAdapter, ctx.connection(), ctx.http, ctx.clock),
};
