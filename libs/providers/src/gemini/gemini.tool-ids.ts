/**
 * Gemini has no tool-call ids on the public API, while the canonical (OpenAI) format links a tool
 * result to its call by id. Calls get deterministic ids `call_<n>_<name>` (n counts the calls of one
 * answer from 0); a later tool result finds its function name through the assistant turn that made
 * the call, falling back to parsing the id.
 */
import { ChatMessage } from '../types';

export function geminiToolCallId(index: number, name: string): string {
  return `call_${index}_${name}`;
}

/** `call_3_get_weather` → `get_weather`; undefined for ids not made by geminiToolCallId. */
export function nameFromGeminiToolCallId(id: string): string | undefined {
  return /^call_\d+_(.+)$/s.exec(id)?.[1];
}

/**
 * For every tool message, the function name of the call it answers: the nearest earlier assistant
 * tool call with that id (ids such as `call_0_x` repeat across turns), then the id pattern, then
 * the message's own `name`.
 */
export function resolveToolResultNames(messages: ChatMessage[]): Map<number, string> {
  const namesById = new Map<string, string>();
  const out = new Map<number, string>();
  messages.forEach((message, i) => {
    for (const call of message.tool_calls ?? []) namesById.set(call.id, call.function.name);
    if (message.role !== 'tool') return;
    const id = message.tool_call_id ?? '';
    const name = namesById.get(id) ?? nameFromGeminiToolCallId(id) ?? message.name;
    if (name !== undefined) out.set(i, name);
  });
  return out;
}
