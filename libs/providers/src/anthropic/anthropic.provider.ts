/** The anthropic adapter family: chat over the Messages API. */
import { HttpChatProvider } from '../chat-provider';
import type { ProviderAdapters } from '../provider-adapters';
import type { ProviderHttpClient } from '../http/provider-http.client';
import type { ProviderConnection } from '../types';
import type { Clock } from '@app/common';
import { AnthropicMessagesClient } from './anthropic.native';
import { anthropicAdapter } from './index';

/** Canonical chat through the adapter, plus the Messages API natively (for callers that speak it). */
class AnthropicChatProvider extends HttpChatProvider {
  readonly messagesApi: AnthropicMessagesClient;

  constructor(conn: ProviderConnection, http: ProviderHttpClient, clock: Clock) {
    super(anthropicAdapter, conn, http, clock);
    this.messagesApi = new AnthropicMessagesClient(conn, http, clock);
  }
}

export const anthropicProvider: ProviderAdapters = {
  type: 'anthropic',
  chat: (ctx) => new AnthropicChatProvider(ctx.connection(), ctx.http, ctx.clock),
};
