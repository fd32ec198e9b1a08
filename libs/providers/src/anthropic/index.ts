import { ChatAdapter } from '../types';
import { mapAnthropicError } from './anthropic.errors';
import { buildAnthropicChatRequest } from './anthropic.request';
import { mapAnthropicChatResponse } from './anthropic.response';
import {
  AnthropicStreamState,
  createAnthropicStreamState,
  flushAnthropicStream,
  mapAnthropicStreamEvent,
} from './anthropic.stream';

/** Anthropic Messages API (`POST {baseUrl}/v1/messages`). */
export const anthropicAdapter: ChatAdapter<AnthropicStreamState> = {
  type: 'anthropic',
  buildChatRequest: buildAnthropicChatRequest,
  mapChatResponse: mapAnthropicChatResponse,
  createStreamState: createAnthropicStreamState,
  mapStreamEvent: mapAnthropicStreamEvent,
  flush: flushAnthropicStream,
  mapError: mapAnthropicError,
};

export * from './anthropic.json-mode';
export * from './anthropic.request';
export * from './anthropic.response';
export * from './anthropic.stream';
export * from './anthropic.errors';
export * from './anthropic.native';
