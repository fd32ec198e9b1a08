import type { RequestProtection } from '@app/data-protection';
import { StreamRestorer } from '@app/data-protection';
import type { CanonicalChatChunk, CanonicalChatResponse, ChatMessage, ToolDefinition } from '@app/providers';

/** Every text of the messages a model would read: contents, text parts, tool-call arguments. */
export function messageTexts(messages: ChatMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') out.push(m.content);
    else if (Array.isArray(m.content)) for (const p of m.content) if (p.type === 'text') out.push(p.text);
    for (const t of m.tool_calls ?? []) out.push(t.function.arguments);
  }
  return out;
}

/** The messages with each text passed through `mask` (system prompt, turns, tool calls and results). */
export function maskMessages(messages: ChatMessage[], mask: (s: string) => string): ChatMessage[] {
  return messages.map((m) => ({
    ...m,
    content:
      typeof m.content === 'string'
        ? mask(m.content)
        : Array.isArray(m.content)
          ? m.content.map((p) => (p.type === 'text' ? { ...p, text: mask(p.text) } : p))
          : m.content,
    ...(m.tool_calls
      ? {
          tool_calls: m.tool_calls.map((t) => ({
            ...t,
            function: { ...t.function, arguments: mask(t.function.arguments) },
          })),
        }
      : {}),
  }));
}

/** Tool descriptions are text a model reads too (a schema may carry examples). */
export function toolTexts(tools: ToolDefinition[] | undefined): string[] {
  return tools?.length ? [JSON.stringify(tools)] : [];
}

/** A non-streamed answer with the request's placeholders turned back into the values. */
export function restoreResponse(r: CanonicalChatResponse, p: RequestProtection): CanonicalChatResponse {
  if (!p.restores) return r;
  return {
    ...r,
    choices: r.choices.map((c) => ({
      ...c,
      message: {
        ...c.message,
        content: c.message.content === null ? null : p.restore(c.message.content),
        ...(c.message.reasoning_content !== undefined
          ? { reasoning_content: p.restore(c.message.reasoning_content) }
          : {}),
        ...(c.message.tool_calls
          ? {
              tool_calls: c.message.tool_calls.map((t) => ({
                ...t,
                function: { ...t.function, arguments: p.restore(t.function.arguments) },
              })),
            }
          : {}),
      },
    })),
  };
}

/**
 * Restores placeholders in a stream of chunks: one StreamRestorer per choice for the content and
 * the reasoning, and one per tool call for its arguments. A held tail is given back in the chunk
 * that finishes its choice, or by `flush` when the stream ends without one.
 */
export class ChunkRestorer {
  private readonly restorers = new Map<string, StreamRestorer>();

  constructor(private readonly protection: RequestProtection) {}

  chunk(chunk: CanonicalChatChunk): CanonicalChatChunk {
    if (!this.protection.restores || chunk.choices.length === 0) return chunk;
    return {
      ...chunk,
      choices: chunk.choices.map((c) => {
        const delta = { ...c.delta };
        if (typeof delta.content === 'string') delta.content = this.pass(`c${c.index}`, delta.content);
        if (typeof delta.reasoning_content === 'string')
          delta.reasoning_content = this.pass(`r${c.index}`, delta.reasoning_content);
        if (delta.tool_calls)
          delta.tool_calls = delta.tool_calls.map((t) =>
            t.function?.arguments !== undefined
              ? {
                  ...t,
                  function: { ...t.function, arguments: this.pass(`t${c.index}.${t.index}`, t.function.arguments) },
                }
              : t,
          );
        if (c.finish_reason !== null) this.finish(c.index, delta);
        return { ...c, delta };
      }),
    };
  }

  /** A last chunk with whatever is still held (null when nothing is). */
  flush(base: Pick<CanonicalChatChunk, 'id' | 'created' | 'model'>): CanonicalChatChunk | null {
    const indexes = new Set([...this.restorers.keys()].map((k) => Number(/^[crt](\d+)/.exec(k)![1])));
    const choices: CanonicalChatChunk['choices'] = [];
    for (const index of indexes) {
      const delta: CanonicalChatChunk['choices'][number]['delta'] = {};
      this.finish(index, delta);
      if (Object.keys(delta).length) choices.push({ index, delta, finish_reason: null });
    }
    return choices.length ? { ...base, object: 'chat.completion.chunk', choices } : null;
  }

  private pass(key: string, text: string): string {
    let r = this.restorers.get(key);
    if (!r) this.restorers.set(key, (r = new StreamRestorer(this.protection.vault!)));
    return r.push(text);
  }

  /** Gives the held tails of choice `index` into `delta`. */
  private finish(index: number, delta: CanonicalChatChunk['choices'][number]['delta']): void {
    for (const [key, r] of this.restorers) {
      const m = /^([crt])(\d+)(?:\.(\d+))?$/.exec(key)!;
      if (Number(m[2]) !== index) continue;
      const rest = r.flush();
      this.restorers.delete(key);
      if (!rest) continue;
      if (m[1] === 'c') delta.content = (delta.content ?? '') + rest;
      else if (m[1] === 'r') delta.reasoning_content = (delta.reasoning_content ?? '') + rest;
      else {
        const ti = Number(m[3]);
        const calls = (delta.tool_calls ??= []);
        const call = calls.find((t) => t.index === ti);
        if (call) call.function = { ...call.function, arguments: (call.function?.arguments ?? '') + rest };
        else calls.push({ index: ti, function: { arguments: rest } });
      }
    }
  }
}
