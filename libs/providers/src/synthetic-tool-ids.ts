/**
 * For upstreams whose tool calls carry no ids (Gemini's public API, Yandex's Foundation Models),
 * while the canonical (OpenAI) format links a tool result to its call by id. Calls get
 * deterministic ids `call_<n>_<name>` (n counts the calls of one answer from 0); a later tool result
 * finds its function name through the assistant turn that made the call, then the id pattern, then
 * the message's own `name`.
 */
import { ChatMessage } from './types';

export function syntheticToolCallId(index: number, name: string): string {
  return `call_${index}_${name}`;
}

/** `call_3_get_weather` → `get_weather`; undefined for ids not made by syntheticToolCallId. */
export function nameFromSyntheticToolCallId(id: string): string | undefined {
  return /^call_\d+_(.+)$/s.exec(id)?.[1];
}

/**
 * For every tool message (by position), the function name of the call it answers: the nearest
 * earlier assistant tool call with that id (ids such as `call_0_x` repeat across turns), then the id
 * pattern, then the message's own `name`.
 */
export function resolveToolResultNames(messages: ChatMessage[]): Map<number, string> {
  const namesById = new Map<string, string>();
  const out = new Map<number, string>();
  messages.forEach((message, i) => {
    for (const call of message.tool_calls ?? []) namesById.set(call.id, call.function.name);
    if (message.role !== 'tool') return;
    const id = message.tool_call_id ?? '';
    const name = namesById.get(id) ?? nameFromSyntheticToolCallId(id) ?? message.name;
    if (name !== undefined) out.set(i, name);
  });
  return out;
}
