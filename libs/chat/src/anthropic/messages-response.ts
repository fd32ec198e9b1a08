/**
 * Canonical answers in the Anthropic Messages wire format (for models that do not speak it): the
 * message object, its usage, stop reasons, and the exact stream event sequence
 *   message_start, ping, (content_block_start, content_block_delta…, content_block_stop)…,
 *   message_delta (stop_reason + cumulative usage), message_stop.
 */
import type { CanonicalChatChunk, CanonicalChatResponse, CanonicalUsage, FinishReason } from '@app/providers';

type Json = Record<string, unknown>;

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** Canonical prompt_tokens include cache reads and writes; Anthropic's input_tokens do not. */
export function toAnthropicUsage(u: CanonicalUsage): AnthropicUsage {
  const oneHour = u.cache_write_1h_tokens ?? 0;
  return {
    input_tokens: Math.max(0, u.prompt_tokens - u.cache_read_tokens - u.cache_write_tokens),
    output_tokens: u.completion_tokens,
    cache_creation_input_tokens: u.cache_write_tokens,
    cache_read_input_tokens: u.cache_read_tokens,
    cache_creation: { ephemeral_5m_input_tokens: u.cache_write_tokens - oneHour, ephemeral_1h_input_tokens: oneHour },
  };
}

export function toAnthropicStopReason(finish: FinishReason): string {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

function toolInput(args: string): Json {
  try {
    const v: unknown = JSON.parse(args === '' ? '{}' : args);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : { value: v };
  } catch {
    // a model that produced broken JSON: the client still sees what it wrote
    return { raw: args };
  }
}

/** Anthropic message id for an answer that did not come from Anthropic. */
export function messageId(id: string): string {
  return id.startsWith('msg_') ? id : `msg_${id.replace(/[^A-Za-z0-9_-]/g, '')}`;
}

export function toAnthropicMessage(r: CanonicalChatResponse, model: string, usage: CanonicalUsage): Json {
  const choice = r.choices[0];
  const content: Json[] = [];
  // other models' reasoning has no signature: it is shown, and not sent back to them
  if (choice?.message.reasoning_content)
    content.push({ type: 'thinking', thinking: choice.message.reasoning_content, signature: '' });
  if (choice?.message.content) content.push({ type: 'text', text: choice.message.content });
  for (const call of choice?.message.tool_calls ?? [])
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: toolInput(call.function.arguments),
    });
  return {
    id: messageId(r.id),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: toAnthropicStopReason(choice?.finish_reason ?? 'stop'),
    stop_sequence: null,
    usage: toAnthropicUsage(usage),
  };
}

/** One Anthropic SSE event: the name and its JSON payload (whose `type` is the same name). */
export interface AnthropicEvent {
  event: string;
  data: Json;
}

function ev(data: Json): AnthropicEvent {
  return { event: String(data.type), data };
}

type OpenBlock = { kind: 'thinking' | 'text' } | { kind: 'tool'; toolIndex: number };

/**
 * Canonical stream chunks → Anthropic events. `chunk` per delta; `finish` once the outcome (usage,
 * cost) is known. Blocks open when their first delta arrives and close when another kind starts.
 */
export class AnthropicStreamTranslator {
  private started = false;
  private index = -1;
  private open: OpenBlock | null = null;
  private finish: FinishReason = null;

  constructor(
    private model: string,
    private readonly promptTokens: number,
  ) {}

  chunk(c: CanonicalChatChunk): AnthropicEvent[] {
    const out: AnthropicEvent[] = [];
    if (!this.started) {
      this.started = true;
      // the model that serves (a fallback's key when the requested model failed before any output)
      if (c.model) this.model = c.model;
      out.push(
        ev({
          type: 'message_start',
          message: {
            id: messageId(c.id),
            type: 'message',
            role: 'assistant',
            model: this.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            // the final counts come with message_delta
            usage: { input_tokens: this.promptTokens, output_tokens: 0 },
          },
        }),
        ev({ type: 'ping' }),
      );
    }
    for (const choice of c.choices) {
      const d = choice.delta;
      if (d.reasoning_content) {
        this.openBlock(out, { kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' });
        out.push(this.delta({ type: 'thinking_delta', thinking: d.reasoning_content }));
      }
      if (d.content) {
        this.openBlock(out, { kind: 'text' }, { type: 'text', text: '' });
        out.push(this.delta({ type: 'text_delta', text: d.content }));
      }
      for (const t of d.tool_calls ?? []) {
        const current = this.open;
        if (current?.kind !== 'tool' || current.toolIndex !== t.index || t.id !== undefined) {
          this.openBlock(
            out,
            { kind: 'tool', toolIndex: t.index },
            { type: 'tool_use', id: t.id ?? `toolu_${t.index}`, name: t.function?.name ?? '', input: {} },
            true,
          );
        }
        if (t.function?.arguments)
          out.push(this.delta({ type: 'input_json_delta', partial_json: t.function.arguments }));
      }
      if (choice.finish_reason) this.finish = choice.finish_reason;
    }
    return out;
  }

  /** The closing events: the open block's stop, message_delta with the stop reason, usage and cost, message_stop. */
  end(usage: CanonicalUsage, extra: Json): AnthropicEvent[] {
    const out: AnthropicEvent[] = [];
    if (!this.started)
      out.push(
        ...this.chunk({ id: 'gateway', object: 'chat.completion.chunk', created: 0, model: this.model, choices: [] }),
      );
    this.closeBlock(out);
    out.push(
      ev({
        type: 'message_delta',
        delta: { stop_reason: toAnthropicStopReason(this.finish ?? 'stop'), stop_sequence: null },
        usage: toAnthropicUsage(usage),
        ...extra,
      }),
      ev({ type: 'message_stop' }),
    );
    return out;
  }

  private openBlock(out: AnthropicEvent[], block: OpenBlock, start: Json, force = false): void {
    if (!force && this.open?.kind === block.kind) return;
    this.closeBlock(out);
    this.index += 1;
    this.open = block;
    out.push(ev({ type: 'content_block_start', index: this.index, content_block: start }));
  }

  private closeBlock(out: AnthropicEvent[]): void {
    if (this.open === null) return;
    out.push(ev({ type: 'content_block_stop', index: this.index }));
    this.open = null;
  }

  private delta(delta: Json): AnthropicEvent {
    return ev({ type: 'content_block_delta', index: this.index, delta });
  }
}
