/**
 * Chat adapter registry: provider type → pure adapter. To add a provider type (e.g. `local`), add
 * its adapter to CHAT_ADAPTERS, or call registerChatAdapter() from the module that owns it.
 */
import { anthropicAdapter } from './anthropic';
import { geminiAdapter } from './gemini';
import { openaiAdapter } from './openai';
import { ChatAdapter } from './types';

export const CHAT_ADAPTERS: Record<string, ChatAdapter> = {
  [openaiAdapter.type]: openaiAdapter,
  [anthropicAdapter.type]: anthropicAdapter,
  [geminiAdapter.type]: geminiAdapter,
};

/** Extension point: make another adapter available under its `type` (replaces an existing one). */
export function registerChatAdapter(adapter: ChatAdapter): void {
  CHAT_ADAPTERS[adapter.type] = adapter;
}

export function hasChatAdapter(type: string): boolean {
  return Object.prototype.hasOwnProperty.call(CHAT_ADAPTERS, type);
}

/** The adapter for a provider type; throws for an unknown type (a configuration error). */
export function getChatAdapter(type: string): ChatAdapter {
  if (!hasChatAdapter(type)) throw new Error(`No chat adapter for provider type "${type}"`);
  return CHAT_ADAPTERS[type];
}
